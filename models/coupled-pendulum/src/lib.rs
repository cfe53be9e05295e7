//! Subsystem M1 of the coupled pendula of Rodríguez et al. (2022, Sect. 4.3): pendulum 1 (a
//! point mass on a massless rod, Cartesian coordinates, see
//! [`benchmark_equations::pendulum`]) together with the spring-damper `k, c, l0` that joins its
//! mass to the mass of pendulum 2, whose position `(x2, y2)` and velocity `(vx2, vy2)` are
//! inputs (spring law in [`benchmark_equations::planar_spring`]):
//!
//! ```text
//! m r'' + (r - r_A) lambda = -m g e_y - f,    |r - r_A| = l
//! f = -(k (|r2 - r| - l0) + c e . (v2 - v)) e,   e = (r2 - r) / |r2 - r|     (force on mass 2)
//! ```
//!
//! The outputs `fx, fy` are the force on mass 2; they depend directly on the inputs (direct
//! feedthrough). The energy output counts pendulum 1's kinetic and potential energy and the
//! spring's energy, so the two subsystems' energies add up to the coupled system's.
//! Integrated in co-simulation by HHT-alpha at 1 ms on the index-3 form, which keeps the rod
//! length (see [`pendulum::HHT_ALPHA`] for why not symplectic Euler). The other subsystem is
//! the `pendulum` model (inputs `fx, fy`).
//!
//! Defaults: our reconstruction of the benchmark (the paper's values are not published):
//! pendulum 1 pivoted at the origin, rod 2 m, mass 1 kg, starting at rest `pi/4` from the
//! downward vertical toward pendulum 2; `k = 10` N/m, `c = 0` (case 1; case 2 uses 0.1 N.s/m)
//! and the unloaded length `l0` equal to the initial distance between the tips, 8.7561 m.
//! The inputs start at pendulum 2's initial state.

use benchmark_equations::pendulum::{self, Pendulum, HHT_ALPHA};
use benchmark_equations::planar_spring::PlanarSpring;
use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Tunability, Var};

/// Parameter indices after the pendulum's own.
const K: usize = pendulum::PARAMETER_COUNT;
const C: usize = K + 1;
const L0: usize = K + 2;
/// Input indices: position, then velocity of mass 2.
const R2: usize = 0;
const V2: usize = 2;
/// Index of the output `fx` (then `fy`).
pub const FORCE: usize = 0;
/// Index of the output `tip_x` (then `tip_y`, `tip_vx`, `tip_vy`).
pub const TIP: usize = 2;
/// Index of the output `energy`.
pub const ENERGY: usize = 6;

/// The coupled pendulum model.
#[derive(Default)]
pub struct CoupledPendulum;

/// The spring-damper between the two masses.
fn spring<T: Scalar>(p: &[T]) -> PlanarSpring<T> {
    PlanarSpring {
        k: p[K],
        c: p[C],
        l0: p[L0],
    }
}

/// The pair `[s[i], s[i + 1]]`.
fn pair<T: Scalar>(s: &[T], i: usize) -> [T; 2] {
    [s[i], s[i + 1]]
}

/// The spring-damper's force on mass 2.
fn force_on_mass_2<T: Scalar>(a: &MechArgs<T>) -> [T; 2] {
    spring(a.p).force_on_b(pair(a.q, 0), pair(a.v, 0), pair(a.u, R2), pair(a.u, V2))
}

impl MechanicalModel for CoupledPendulum {
    fn declaration(&self) -> Declaration {
        let [x2, y2] = pendulum::RIGHT.tip();
        let tunable = |name: &str, value: f64, unit: &str, text: &str| {
            Var::new(name, value).unit(unit).description(text)
        };
        let declaration = Declaration::new(
            "coupled_pendulum",
            "Point mass m on a rod of length l pinned at (pivot_x, pivot_y), in Cartesian coordinates, \
             joined by the spring-damper k, c, l0 to a second mass at (x2, y2) moving at (vx2, vy2); \
             outputs the spring-damper's force (fx, fy) on the second mass",
        );
        let declaration = pendulum::declare(declaration, &pendulum::LEFT)
            .parameter(
                tunable("k", 10.0, "N/m", "stiffness of the coupling spring"),
                Tunability::Tunable,
            )
            .parameter(
                tunable("c", 0.0, "N.s/m", "damping of the coupling damper"),
                Tunability::Tunable,
            )
            .parameter(
                tunable(
                    "l0",
                    pendulum::rest_length(),
                    "m",
                    "unloaded length of the coupling spring",
                ),
                Tunability::Fixed,
            )
            .input(
                Var::new("x2", x2)
                    .unit("m")
                    .description("horizontal position of the second mass"),
            )
            .input(
                Var::new("y2", y2)
                    .unit("m")
                    .description("vertical position of the second mass"),
            )
            .input(
                Var::new("vx2", 0.0)
                    .unit("m/s")
                    .description("horizontal velocity of the second mass"),
            )
            .input(
                Var::new("vy2", 0.0)
                    .unit("m/s")
                    .description("vertical velocity of the second mass"),
            )
            .output(
                Var::new("fx", 0.0)
                    .unit("N")
                    .description("horizontal force on the second mass; depends on the inputs"),
            )
            .output(
                Var::new("fy", 0.0)
                    .unit("N")
                    .description("vertical force on the second mass; depends on the inputs"),
            );
        pendulum::declare_tip_outputs(declaration)
            .output(Var::new("energy", 0.0).unit("J").description(
                "kinetic and potential energy (from the pivot's height) plus the spring's energy",
            ))
            .cosimulation(Method::Hht { alpha: HHT_ALPHA }, 1e-3)
            .experiment(0.0, 10.0, 1e-8, 1e-3)
    }

    fn constraint_count(&self) -> usize {
        1
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        Pendulum::from_parameters(a.p).mass_matrix(m);
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let [gx, gy] = Pendulum::from_parameters(a.p).gravity();
        let [fx, fy] = force_on_mass_2(a);
        f[0] = gx - fx;
        f[1] = gy - fy;
    }

    fn constraints<T: Scalar>(&self, _t: T, q: &[T], p: &[T], c: &mut [T]) {
        c[0] = Pendulum::from_parameters(p).constraint(q);
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, _acc: &[T], _lambda: &[T], y: &mut [T]) {
        y[FORCE..FORCE + 2].copy_from_slice(&force_on_mass_2(a));
        y[TIP..TIP + 2].copy_from_slice(a.q);
        y[TIP + 2..TIP + 4].copy_from_slice(a.v);
        let spring_energy = spring(a.p).energy(pair(a.q, 0), pair(a.u, R2));
        y[ENERGY] = Pendulum::from_parameters(a.p).energy(a.q, a.v) + spring_energy;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::{directional, jacobian};
    use fmu_export::{Args, Integrator, MechanicalSystem, StepInputs, System};

    /// Parameters `[m, l, pivot_x, pivot_y, g, k, c, l0]` away from the defaults.
    const P: [f64; 8] = [2.0, 1.5, 1.0, 0.5, 10.0, 20.0, 0.5, 4.0];
    /// Mass 1 at (1.9, -0.7), on its rod, moving tangentially; mass 2 at (4.9, 3.3) (distance 5).
    const X: [f64; 4] = [1.9, -0.7, 1.2, 0.9];
    const U: [f64; 4] = [4.9, 3.3, 0.5, -1.5];

    fn outputs(x: &[f64], u: &[f64], p: &[f64]) -> [f64; 7] {
        let sys = MechanicalSystem::<CoupledPendulum>::default();
        let mut y = [f64::NAN; 7];
        sys.outputs(
            &Args {
                t: 0.0,
                x,
                u,
                p,
                d: &[],
            },
            &mut y,
        );
        y
    }

    #[test]
    fn the_default_start_leaves_the_spring_unloaded() {
        let sys = MechanicalSystem::<CoupledPendulum>::default();
        let d = sys.declaration();
        let p = d.parameter_starts();
        // The reconstruction reproduces the published l0 ~ 8.756 m.
        assert!((p[L0] - 8.7561).abs() < 5e-5, "{}", p[L0]);
        let y = outputs(&d.state_starts(), &d.input_starts(), &p);
        assert!(
            y[FORCE].abs() < 1e-12 && y[FORCE + 1].abs() < 1e-12,
            "{y:?}"
        );
        // Energy: m g y of pendulum 1 only, y = -2 cos(pi/4).
        let expected = -9.81 * 2.0 * std::f64::consts::FRAC_1_SQRT_2;
        assert!(
            (y[ENERGY] - expected).abs() < 1e-12,
            "{} vs {expected}",
            y[ENERGY]
        );
    }

    #[test]
    fn outputs_are_the_spring_force_on_mass_2_the_tip_and_the_energy() {
        let y = outputs(&X, &U, &P);
        // e = (0.6, 0.8), stretch 1, elongation rate e . (v2 - v) = 0.6 * -0.7 + 0.8 * -2.4 = -2.34:
        // tension 20 - 1.17 = 18.83, force on mass 2 = -18.83 e.
        let expected_force = [-18.83 * 0.6, -18.83 * 0.8];
        // Energy: kinetic 2.25, potential 2 * 10 * -1.2, spring 10.
        let expected = [
            expected_force[0],
            expected_force[1],
            1.9,
            -0.7,
            1.2,
            0.9,
            2.25 - 24.0 + 10.0,
        ];
        for (i, (a, e)) in y.iter().zip(expected).enumerate() {
            assert!(
                (a - e).abs() < 1e-12 * e.abs().max(1.0),
                "output {i}: {a} vs {e}"
            );
        }
    }

    #[test]
    fn the_force_on_mass_2_has_the_stiffness_of_a_spring_along_its_axis() {
        // d f / d r2 = -k e e^T - (k (|d| - l0) / |d|) (I - e e^T) without damping.
        let sys = MechanicalSystem::<CoupledPendulum>::default();
        let p_undamped = [P[0], P[1], P[2], P[3], P[4], P[5], 0.0, P[7]];
        let (jac, _) = jacobian(&U[..2], 2, |r2, y| {
            let p: Vec<_> = p_undamped.iter().map(|&v| v.into()).collect();
            let x: Vec<_> = X.iter().map(|&v| v.into()).collect();
            let u = [r2[0], r2[1], U[2].into(), U[3].into()];
            let mut out = [0.0.into(); 7];
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x: &x,
                    u: &u,
                    p: &p,
                    d: &[],
                },
                &mut out,
            );
            y.copy_from_slice(&out[FORCE..FORCE + 2]);
        });
        let (e, k, geometric) = ([0.6, 0.8], 20.0, 20.0 * 1.0 / 5.0);
        for i in 0..2 {
            for j in 0..2 {
                let identity = if i == j { 1.0 } else { 0.0 };
                let expected = -k * e[i] * e[j] - geometric * (identity - e[i] * e[j]);
                assert!(
                    (jac[2 * i + j] - expected).abs() < 1e-12,
                    "({i}, {j}): {} vs {expected}",
                    jac[2 * i + j]
                );
            }
        }
    }

    #[test]
    fn energy_changes_by_the_power_given_to_mass_2_and_the_damper() {
        // dE/dt = -f . v2 - c (elongation rate)^2 along the consistent motion of mass 1.
        let sys = MechanicalSystem::<CoupledPendulum>::default();
        let args = fmu_export::MechArgs {
            t: 0.0,
            q: &X[..2],
            v: &X[2..],
            u: &U,
            p: &P,
            d: &[],
        };
        let (acc, _) = sys.accelerations(&args).unwrap();
        let direction = [X[2], X[3], acc[0], acc[1], U[2], U[3], 0.3, -0.2];
        let rate = directional(&[X.as_slice(), &U].concat(), &direction, 7, |w, y| {
            let p: Vec<_> = P.iter().map(|&v| v.into()).collect();
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x: &w[..4],
                    u: &w[4..],
                    p: &p,
                    d: &[],
                },
                y,
            );
        })[ENERGY];
        let y = outputs(&X, &U, &P);
        let expected = -(y[FORCE] * U[2] + y[FORCE + 1] * U[3]) - 0.5 * 2.34 * 2.34;
        assert!((rate - expected).abs() < 1e-11, "{rate} vs {expected}");
    }

    #[test]
    fn the_rod_length_and_the_energy_hold_over_the_benchmark() {
        // Pendulum 1 from the default start, 10 s at the benchmark's 1 ms step, with mass 2
        // held at its initial position, so the spring loads it as it swings (undamped, so the
        // energy output must stay constant).
        let sys = MechanicalSystem::<CoupledPendulum>::default();
        let declaration = sys.declaration();
        let (p, x0, u) = (
            declaration.parameter_starts(),
            declaration.state_starts(),
            declaration.input_starts(),
        );
        let mut integrator = sys.integrator();
        integrator
            .initialize(&sys, 0.0, &x0, &StepInputs::held(0.0, &u), &p, &[])
            .unwrap();
        let energy = |integrator: &<MechanicalSystem<CoupledPendulum> as System>::Integrator,
                      t: f64| {
            let mut y = [f64::NAN; 7];
            integrator.outputs(&sys, t, &u, &p, &[], &mut y);
            y[ENERGY]
        };
        let e0 = energy(&integrator, 0.0);
        let (h, mut drift, mut energy_error, mut x) = (1e-3, 0.0f64, 0.0f64, [0.0; 4]);
        for k in 0..10_000 {
            let t = k as f64 * h;
            integrator
                .do_step(&sys, t, h, &StepInputs::held(t, &u), &p, &mut [])
                .unwrap();
            Integrator::<MechanicalSystem<CoupledPendulum>>::continuous_state(&integrator, &mut x);
            drift = drift.max((x[0].hypot(x[1]) - p[1]).abs());
            energy_error = energy_error.max((energy(&integrator, t + h) - e0).abs());
        }
        assert!(drift < 1e-12, "largest rod-length error {drift} m");
        assert!(energy_error < 1e-4, "largest energy error {energy_error} J");
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<CoupledPendulum>);
