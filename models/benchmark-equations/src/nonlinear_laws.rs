//! Force laws of the double nonlinear oscillator (Rodríguez et al. 2022, Sect. 4.2):
//!
//! ```text
//! spring (22):  f = -kappa sgn(s) sqrt(|s|)
//! damper (23):  f = -c sgn(v) v^2
//! ```
//!
//! The benchmark's second case combines nonlinear dampers with linear springs, so a
//! [`Spring`] holds a linear and a square-root term in parallel; a zero coefficient switches a
//! term off.
//!
//! **Regularization.** The square-root law has an infinite stiffness at `s = 0`, which would
//! make exact Jacobians (dual numbers) infinite or NaN there. It is evaluated as
//! `-kappa s / (s^2 + eps^2)^(1/4)` with `eps` = [`SQUARE_ROOT_REGULARIZATION`] = 1e-9 m:
//! smooth, with the finite stiffness `kappa / sqrt(eps)` at `s = 0`, and within a relative
//! `eps^2 / (4 s^2)` of the exact law (below 3e-7 for `|s| >= 1 µm`). The energy is the exact
//! integral of the regularized force, so energy balances stay consistent. The quadratic damper
//! `-c |v| v` is continuously differentiable and needs no regularization.

use fmu_export::{Declaration, Scalar, Tunability, Var};

/// Length scale `eps` (m) below which the square-root spring law is smoothed.
pub const SQUARE_ROOT_REGULARIZATION: f64 = 1e-9;

/// A linear spring `k` and a square-root spring `kappa` in parallel:
/// `f = -(k s + kappa sgn(s) sqrt(|s|))` for the stretch `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring<T> {
    /// Linear stiffness (N/m).
    pub k: T,
    /// Square-root stiffness (N/m^(1/2)).
    pub kappa: T,
}

impl<T: Scalar> Spring<T> {
    /// The force the spring exerts on the end whose displacement is the stretch `s`.
    pub fn force(&self, s: T) -> T {
        -self.k * s - self.kappa * s / regularized_square(s).powf(0.25)
    }

    /// The stored energy, whose negative derivative is [`Spring::force`]:
    /// `k s^2 / 2 + 2/3 kappa ((s^2 + eps^2)^(3/4) - eps^(3/2))`.
    pub fn energy(&self, s: T) -> T {
        let eps = SQUARE_ROOT_REGULARIZATION;
        let square_root_part = regularized_square(s).powf(0.75) - T::cst(eps.powf(1.5));
        T::cst(0.5) * self.k * s * s + T::cst(2.0 / 3.0) * self.kappa * square_root_part
    }
}

/// A [`Spring`] and a quadratic damper `c_q` in parallel: the element between each mass and
/// the ground, and between the two masses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringDamper<T> {
    /// The spring.
    pub spring: Spring<T>,
    /// Quadratic damping (N.s2/m2).
    pub c_q: T,
}

impl<T: Scalar> SpringDamper<T> {
    /// Reads `k, kappa, c_q` from the start of `p`, the order [`declare_ground`] adds them in.
    pub fn from_parameters(p: &[T]) -> Self {
        SpringDamper {
            spring: Spring {
                k: p[0],
                kappa: p[1],
            },
            c_q: p[2],
        }
    }

    /// The force on the end whose displacement is the stretch `s` and whose rate is `rate`.
    pub fn force(&self, s: T, rate: T) -> T {
        self.spring.force(s) + quadratic_damper_force(self.c_q, rate)
    }
}

/// Adds the tunable parameters `k = 0`, `kappa` and `c_q = 0` of the spring-damper to ground.
pub fn declare_ground(declaration: Declaration, kappa: f64) -> Declaration {
    declaration
        .parameter(
            Var::new("k", 0.0)
                .unit("N/m")
                .description("linear stiffness of the spring to ground"),
            Tunability::Tunable,
        )
        .parameter(
            Var::new("kappa", kappa)
                .description("square-root stiffness of the spring to ground (N/m^(1/2))"),
            Tunability::Tunable,
        )
        .parameter(
            Var::new("c_q", 0.0)
                .unit("N.s2/m2")
                .description("quadratic damping to ground: f = -c_q sgn(v) v^2"),
            Tunability::Tunable,
        )
}

/// The force of the quadratic damper `-c sgn(v) v^2 = -c |v| v` at the rate `v`.
pub fn quadratic_damper_force<T: Scalar>(c: T, v: T) -> T {
    -c * v.abs() * v
}

/// `s^2 + eps^2`, which stays positive at `s = 0`.
fn regularized_square<T: Scalar>(s: T) -> T {
    s * s + T::cst(SQUARE_ROOT_REGULARIZATION * SQUARE_ROOT_REGULARIZATION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;

    const SPRING: Spring<f64> = Spring {
        k: 30.0,
        kappa: 100.0,
    };

    #[test]
    fn the_square_root_law_matches_the_paper_away_from_zero() {
        let square_root_only = Spring {
            k: 0.0,
            kappa: 100.0,
        };
        for s in [1e-6, 2.5e-3, 0.7, 4.0] {
            for sign in [1.0, -1.0] {
                let exact = -100.0 * sign * f64::sqrt(s);
                let force = square_root_only.force(sign * s);
                assert!(
                    (force - exact).abs() <= 3e-7 * exact.abs(),
                    "s = {}: {force} vs {exact}",
                    sign * s
                );
            }
        }
        // Both terms together.
        let s = -0.36;
        assert!((SPRING.force(s) - (30.0 * 0.36 + 100.0 * 0.6)).abs() < 1e-12);
        assert_eq!(SPRING.force(0.0), 0.0);
    }

    #[test]
    fn energy_derivative_is_minus_the_force_and_energy_vanishes_at_zero() {
        assert_eq!(SPRING.energy(0.0), 0.0);
        for s in [-2.0, -1e-4, 0.0, 3e-10, 0.05, 1.7] {
            let (jac, value) = jacobian(&[s], 1, |x, y| {
                let spring = Spring {
                    k: 30.0.into(),
                    kappa: 100.0.into(),
                };
                y[0] = spring.energy(x[0]);
            });
            assert!(value[0] >= 0.0);
            let force = SPRING.force(s);
            assert!(
                (jac[0] + force).abs() <= 1e-9 * force.abs().max(1e-6),
                "s = {s}: {} vs {force}",
                -jac[0]
            );
        }
        // Far from zero the energy is the closed form k s^2 / 2 + 2/3 kappa |s|^(3/2).
        let s: f64 = -0.81;
        let closed_form = 15.0 * s * s + 200.0 / 3.0 * s.abs().powf(1.5);
        assert!((SPRING.energy(s) - closed_form).abs() < 1e-9);
    }

    #[test]
    fn the_stiffness_stays_finite_at_zero() {
        let (jac, _) = jacobian(&[0.0], 1, |x, y| {
            y[0] = Spring {
                k: 30.0.into(),
                kappa: 100.0.into(),
            }
            .force(x[0]);
        });
        let expected = -30.0 - 100.0 / SQUARE_ROOT_REGULARIZATION.sqrt();
        assert!(
            (jac[0] - expected).abs() < 1e-9 * expected.abs(),
            "{} vs {expected}",
            jac[0]
        );
    }

    #[test]
    fn the_spring_damper_reads_the_declared_parameters_and_adds_both_forces() {
        let declaration = declare_ground(Declaration::new("ground", ""), 1000.0);
        let names: Vec<_> = declaration
            .parameters
            .iter()
            .map(|p| p.var.name.as_str())
            .collect();
        assert_eq!(names, ["k", "kappa", "c_q"]);
        let ground = SpringDamper::from_parameters(&[30.0, 100.0, 0.5]);
        assert_eq!(
            ground,
            SpringDamper {
                spring: SPRING,
                c_q: 0.5
            }
        );
        assert_eq!(ground.force(-0.36, 4.0), SPRING.force(-0.36) - 8.0);
    }

    #[test]
    fn the_quadratic_damper_opposes_the_rate_and_has_derivative_two_c_abs_v() {
        assert_eq!(quadratic_damper_force(0.5, 4.0), -8.0);
        assert_eq!(quadratic_damper_force(0.5, -4.0), 8.0);
        for v in [-3.0, 0.0, 0.2] {
            let (jac, _) = jacobian(&[v], 1, |x, y| {
                y[0] = quadratic_damper_force(0.5.into(), x[0])
            });
            assert!(
                (jac[0] + 2.0 * 0.5 * f64::abs(v)).abs() < 1e-15,
                "v = {v}: {}",
                jac[0]
            );
        }
    }
}
