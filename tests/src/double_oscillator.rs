//! Reference solutions of the double linear oscillator, against which co-simulations of its
//! subsystems are checked:
//!
//! ```text
//! m1 x1'' = -k1 x1 - c1 x1' - kc (x1 - x2) - cc (x1' - x2')
//! m2 x2'' = -k2 x2 - c2 x2' - kc (x2 - x1) - cc (x2' - x1')
//! ```
//!
//! The state is `[x1, x2, v1, v2]`. Two solutions are provided:
//!
//! - [`DoubleOscillator::modal_solution`], undamped only: closed form. The generalized
//!   eigenproblem `K phi = omega^2 M phi` is solved analytically (a symmetric 2 x 2 problem
//!   after scaling by `M^{-1/2}`), and each mode evolves as `cos`/`sin` of `omega t`.
//! - [`DoubleOscillator::exponential_solution`], any damping: `s(t) = exp(A t) s(0)` with the
//!   4 x 4 system matrix `A`, the exponential computed by nalgebra (Padé approximation with
//!   scaling and squaring). Exact up to rounding, which grows with `|A| t`; on the undamped
//!   benchmark the tests hold it to the closed form within 1e-12 (relative) up to 10 s.
//!
//! [`DoubleOscillator::solution`] picks the closed form whenever every damper is zero.

use nalgebra::{Matrix4, Vector4};

/// The state `[x1, x2, v1, v2]` (m, m, m/s, m/s).
pub type State = [f64; 4];

/// Masses, springs and dampers of the double linear oscillator: spring-dampers `k1, c1` from
/// mass 1 to ground, `k2, c2` from mass 2 to ground and `kc, cc` between the masses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoubleOscillator {
    /// Mass 1 (kg).
    pub m1: f64,
    /// Mass 2 (kg).
    pub m2: f64,
    /// Stiffness from mass 1 to ground (N/m).
    pub k1: f64,
    /// Stiffness from mass 2 to ground (N/m).
    pub k2: f64,
    /// Coupling stiffness between the masses (N/m).
    pub kc: f64,
    /// Damping from mass 1 to ground (N.s/m).
    pub c1: f64,
    /// Damping from mass 2 to ground (N.s/m).
    pub c2: f64,
    /// Coupling damping between the masses (N.s/m).
    pub cc: f64,
}

/// One undamped natural mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mode {
    /// Natural angular frequency `omega` (rad/s); zero for a rigid-body mode.
    pub frequency: f64,
    /// Mode shape `phi = [phi1, phi2]`, normalized to `phi^T M phi = 1`.
    pub shape: [f64; 2],
}

impl DoubleOscillator {
    /// The undamped benchmark: case 0 of the LIM co-simulation benchmarks (energy case 1 of the
    /// energy-correction study, by inference).
    pub const UNDAMPED: Self = DoubleOscillator {
        m1: 1.0,
        m2: 1.0,
        k1: 10.0,
        k2: 1000.0,
        kc: 100.0,
        c1: 0.0,
        c2: 0.0,
        cc: 0.0,
    };

    /// The damped benchmark: LIM case 1, the undamped one with every damper at 0.01 N.s/m.
    pub const DAMPED: Self = DoubleOscillator {
        c1: 0.01,
        c2: 0.01,
        cc: 0.01,
        ..Self::UNDAMPED
    };

    /// The benchmarks' initial state: springs unloaded, `v1 = 100` m/s, `v2 = -100` m/s.
    pub const INITIAL_STATE: State = [0.0, 0.0, 100.0, -100.0];

    /// Whether every damper is zero (then the closed form applies).
    pub fn is_undamped(&self) -> bool {
        self.c1 == 0.0 && self.c2 == 0.0 && self.cc == 0.0
    }

    /// Kinetic plus spring energy (J).
    pub fn energy(&self, s: &State) -> f64 {
        let [x1, x2, v1, v2] = *s;
        let stretch = x1 - x2;
        0.5 * (self.m1 * v1 * v1
            + self.m2 * v2 * v2
            + self.k1 * x1 * x1
            + self.k2 * x2 * x2
            + self.kc * stretch * stretch)
    }

    /// Power dissipated by the three dampers (W, non-negative): the energy decays at this rate.
    pub fn dissipated_power(&self, s: &State) -> f64 {
        let [_, _, v1, v2] = *s;
        let closing = v1 - v2;
        self.c1 * v1 * v1 + self.c2 * v2 * v2 + self.cc * closing * closing
    }

    /// The time derivative of the state: the equations of motion.
    pub fn derivative(&self, s: &State) -> State {
        let [x1, x2, v1, v2] = *s;
        let coupling = -self.kc * (x1 - x2) - self.cc * (v1 - v2);
        let a1 = (-self.k1 * x1 - self.c1 * v1 + coupling) / self.m1;
        let a2 = (-self.k2 * x2 - self.c2 * v2 - coupling) / self.m2;
        [v1, v2, a1, a2]
    }

    /// The system matrix `A` of `s' = A s`, read column by column from [`Self::derivative`].
    pub fn system_matrix(&self) -> Matrix4<f64> {
        let mut a = Matrix4::zeros();
        for j in 0..4 {
            let mut unit = [0.0; 4];
            unit[j] = 1.0;
            a.set_column(j, &Vector4::from(self.derivative(&unit)));
        }
        a
    }

    /// The two undamped natural modes, lowest frequency first.
    ///
    /// With `y = M^{1/2} x` the problem becomes the symmetric `S = M^{-1/2} K M^{-1/2}`, whose
    /// eigenvalues and (rotation-angle) eigenvectors have a closed form. The lower eigenvalue is
    /// taken as `det(S) / lambda_high`, with `det(S)` from the physical constants, so it stays
    /// accurate even when it is much smaller than the higher one.
    pub fn modes(&self) -> [Mode; 2] {
        let (sqrt_m1, sqrt_m2) = (self.m1.sqrt(), self.m2.sqrt());
        let a = (self.k1 + self.kc) / self.m1;
        let d = (self.k2 + self.kc) / self.m2;
        let b = -self.kc / (sqrt_m1 * sqrt_m2);
        let high = 0.5 * (a + d) + (0.5 * (a - d)).hypot(b);
        let det = (self.k1 * self.k2 + self.kc * (self.k1 + self.k2)) / (self.m1 * self.m2);
        let low = if high > 0.0 { det / high } else { 0.0 };
        assert!(
            low >= 0.0 && high >= 0.0,
            "double oscillator {self:?}: negative stiffness gives unstable modes ({low}, {high})"
        );
        let angle = 0.5 * (2.0 * b).atan2(a - d);
        let (sin, cos) = angle.sin_cos();
        let mode = |lambda: f64, e: [f64; 2]| Mode {
            frequency: lambda.sqrt(),
            shape: [e[0] / sqrt_m1, e[1] / sqrt_m2],
        };
        [mode(low, [-sin, cos]), mode(high, [cos, sin])]
    }

    /// The closed-form state at time `t` from `s0` at time 0 (undamped systems only).
    ///
    /// Each modal coordinate `eta = phi^T M x` evolves as
    /// `eta(t) = eta0 cos(omega t) + eta0' sin(omega t) / omega` (`eta0 + eta0' t` when
    /// `omega = 0`).
    pub fn modal_solution(&self, s0: &State, t: f64) -> State {
        assert!(
            self.is_undamped(),
            "double oscillator {self:?}: the closed form needs zero damping"
        );
        let [x1, x2, v1, v2] = *s0;
        let mut s = [0.0; 4];
        for Mode { frequency, shape } in self.modes() {
            let project = |a: f64, b: f64| shape[0] * self.m1 * a + shape[1] * self.m2 * b;
            let (eta, rate) = free_vibration(frequency, project(x1, x2), project(v1, v2), t);
            s[0] += eta * shape[0];
            s[1] += eta * shape[1];
            s[2] += rate * shape[0];
            s[3] += rate * shape[1];
        }
        s
    }

    /// The state at time `t` from `s0` at time 0, as `exp(A t) s0` (any damping).
    pub fn exponential_solution(&self, s0: &State, t: f64) -> State {
        let s = (self.system_matrix() * t).exp() * Vector4::from(*s0);
        s.into()
    }

    /// The state at time `t` from `s0` at time 0: closed form when undamped, else the matrix
    /// exponential.
    pub fn solution(&self, s0: &State, t: f64) -> State {
        if self.is_undamped() {
            self.modal_solution(s0, t)
        } else {
            self.exponential_solution(s0, t)
        }
    }
}

/// `(eta(t), eta'(t))` of `eta'' = -omega^2 eta` from `(eta0, rate0)`.
fn free_vibration(omega: f64, eta0: f64, rate0: f64, t: f64) -> (f64, f64) {
    if omega == 0.0 {
        return (eta0 + rate0 * t, rate0);
    }
    let (sin, cos) = (omega * t).sin_cos();
    (
        eta0 * cos + rate0 * sin / omega,
        -eta0 * omega * sin + rate0 * cos,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LIM case 0 with the second mass ten times lighter, damped (case 7 of the study).
    const LIGHT_SECOND_MASS: DoubleOscillator = DoubleOscillator {
        m2: 0.1,
        ..DoubleOscillator::DAMPED
    };

    /// Classical fourth-order Runge-Kutta over `[0, t]` in `steps` equal steps.
    fn runge_kutta(system: &DoubleOscillator, s0: &State, t: f64, steps: usize) -> State {
        let h = t / steps as f64;
        let shifted =
            |s: &State, k: &State, c: f64| -> State { std::array::from_fn(|i| s[i] + c * k[i]) };
        let mut s = *s0;
        for _ in 0..steps {
            let k1 = system.derivative(&s);
            let k2 = system.derivative(&shifted(&s, &k1, h / 2.0));
            let k3 = system.derivative(&shifted(&s, &k2, h / 2.0));
            let k4 = system.derivative(&shifted(&s, &k3, h));
            s = std::array::from_fn(|i| {
                s[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            });
        }
        s
    }

    /// Largest componentwise difference relative to the largest component of `expected`.
    fn relative_difference(actual: &State, expected: &State) -> f64 {
        let scale = expected.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        actual
            .iter()
            .zip(expected)
            .fold(0.0f64, |m, (a, e)| m.max((a - e).abs()))
            / scale
    }

    #[test]
    fn modes_solve_the_generalized_eigenproblem_and_are_mass_orthonormal() {
        for system in [DoubleOscillator::UNDAMPED, LIGHT_SECOND_MASS] {
            let modes = system.modes();
            assert!(modes[0].frequency < modes[1].frequency);
            let stiffness = |[p1, p2]: [f64; 2]| {
                [
                    (system.k1 + system.kc) * p1 - system.kc * p2,
                    (system.k2 + system.kc) * p2 - system.kc * p1,
                ]
            };
            let mass_product =
                |a: [f64; 2], b: [f64; 2]| system.m1 * a[0] * b[0] + system.m2 * a[1] * b[1];
            for Mode { frequency, shape } in modes {
                let k_phi = stiffness(shape);
                let lambda = frequency * frequency;
                assert!(
                    (k_phi[0] - lambda * system.m1 * shape[0]).abs() < 1e-12 * lambda,
                    "{system:?}"
                );
                assert!(
                    (k_phi[1] - lambda * system.m2 * shape[1]).abs() < 1e-12 * lambda,
                    "{system:?}"
                );
                assert!((mass_product(shape, shape) - 1.0).abs() < 1e-14);
            }
            assert!(mass_product(modes[0].shape, modes[1].shape).abs() < 1e-14);
        }
    }

    #[test]
    fn closed_form_starts_at_the_initial_state_and_conserves_energy() {
        let system = DoubleOscillator::UNDAMPED;
        let s0 = [0.3, -0.2, 100.0, -100.0];
        assert!(relative_difference(&system.modal_solution(&s0, 0.0), &s0) < 1e-15);
        let e0 = system.energy(&s0);
        for i in 1..=1000 {
            let t = 0.01 * i as f64;
            let error = (system.energy(&system.modal_solution(&s0, t)) - e0).abs() / e0;
            assert!(error < 1e-12, "relative energy error {error:e} at t = {t}");
        }
    }

    #[test]
    fn closed_form_matches_a_fine_runge_kutta_integration() {
        for system in [
            DoubleOscillator::UNDAMPED,
            DoubleOscillator {
                c1: 0.0,
                c2: 0.0,
                cc: 0.0,
                ..LIGHT_SECOND_MASS
            },
        ] {
            let s0 = DoubleOscillator::INITIAL_STATE;
            let difference = relative_difference(
                &runge_kutta(&system, &s0, 1.0, 50_000),
                &system.modal_solution(&s0, 1.0),
            );
            assert!(difference < 1e-9, "{system:?}: {difference:e}");
        }
    }

    #[test]
    fn exponential_agrees_with_the_closed_form_without_damping() {
        let system = DoubleOscillator::UNDAMPED;
        let s0 = DoubleOscillator::INITIAL_STATE;
        for t in [1e-3, 0.37, 1.0, 2.0, 5.0, 10.0] {
            let difference = relative_difference(
                &system.exponential_solution(&s0, t),
                &system.modal_solution(&s0, t),
            );
            assert!(difference < 1e-12, "t = {t}: {difference:e}");
        }
    }

    #[test]
    fn exponential_matches_a_fine_runge_kutta_integration_with_damping() {
        for system in [
            DoubleOscillator::DAMPED,
            LIGHT_SECOND_MASS,
            DoubleOscillator {
                c1: 5.0,
                cc: 2.0,
                ..DoubleOscillator::DAMPED
            },
        ] {
            let s0 = DoubleOscillator::INITIAL_STATE;
            let difference = relative_difference(
                &runge_kutta(&system, &s0, 1.0, 50_000),
                &system.exponential_solution(&s0, 1.0),
            );
            assert!(difference < 1e-9, "{system:?}: {difference:e}");
        }
    }

    #[test]
    fn damped_energy_decays_by_the_dissipated_work() {
        // E(t) + integral of the dissipated power = E(0), with the integral by Simpson's rule
        // over states advanced by the exact one-step propagator exp(A h).
        let system = DoubleOscillator {
            c1: 0.5,
            c2: 0.2,
            cc: 1.0,
            ..DoubleOscillator::UNDAMPED
        };
        let s0 = DoubleOscillator::INITIAL_STATE;
        let (t_end, intervals) = (1.0, 4000);
        let h = t_end / intervals as f64;
        let propagator = (system.system_matrix() * h).exp();
        let mut s = Vector4::from(s0);
        let mut work = 0.0;
        for i in 0..=intervals {
            let weight = if i == 0 || i == intervals {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            work += weight * h / 3.0 * system.dissipated_power(&s.into());
            if i < intervals {
                s = propagator * s;
            }
        }
        let end = system.exponential_solution(&s0, t_end);
        let (e0, e_end) = (system.energy(&s0), system.energy(&end));
        assert!(
            e_end < 0.5 * e0,
            "the dampers should take a large share of the energy: {e_end} of {e0}"
        );
        let imbalance = (e_end + work - e0).abs() / e0;
        assert!(imbalance < 1e-10, "energy imbalance {imbalance:e}");
    }

    #[test]
    fn without_ground_springs_the_centre_of_mass_drifts_uniformly() {
        // k1 = k2 = 0 leaves a rigid-body mode of zero frequency.
        let system = DoubleOscillator {
            k1: 0.0,
            k2: 0.0,
            m2: 3.0,
            ..DoubleOscillator::UNDAMPED
        };
        assert_eq!(system.modes()[0].frequency, 0.0);
        let s0 = [0.1, -0.4, 100.0, -20.0];
        let total = system.m1 + system.m2;
        let centre = |s: &State| (system.m1 * s[0] + system.m2 * s[1]) / total;
        let centre_speed = (system.m1 * s0[2] + system.m2 * s0[3]) / total;
        for t in [0.5, 3.0] {
            let s = system.modal_solution(&s0, t);
            assert!(
                (centre(&s) - (centre(&s0) + centre_speed * t)).abs() < 1e-12 * centre_speed * t
            );
            assert!(relative_difference(&s, &system.exponential_solution(&s0, t)) < 1e-13);
        }
    }
}
