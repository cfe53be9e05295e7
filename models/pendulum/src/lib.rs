//! Subsystem M2 of the coupled pendula of Rodríguez et al. (2022, Sect. 4.3): a point mass on
//! a massless rod pinned at a pivot, in the Cartesian coordinates of the mass, driven by the
//! force `(fx, fy)` on it (the coupling spring-damper's force from `coupled-pendulum`):
//!
//! ```text
//! m x'' + (x - x_A) lambda = fx
//! m y'' + (y - y_A) lambda = fy - m g
//! ((x - x_A)^2 + (y - y_A)^2 - l^2) / 2 = 0
//! ```
//!
//! (equations in [`benchmark_equations::pendulum`]). The tip position and velocity and the
//! energy `m |v|^2 / 2 + m g (y - y_A)` depend on the state only.
//!
//! **Integrator.** HHT-alpha at 1 ms on the index-3 form, which keeps the rod length; the
//! benchmark's symplectic Euler would let it drift without its augmented Lagrangian (see
//! [`pendulum::HHT_ALPHA`] for the measurements behind this choice).
//!
//! Defaults: pendulum 2 of our reconstruction, pivot at `(10.5, 0)` m, rod 2 m, mass 1 kg,
//! starting at rest `pi/18` from the downward vertical toward pendulum 1.

use benchmark_equations::pendulum::{self, Pendulum, HHT_ALPHA};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Var};

/// Input indices.
const FX: usize = 0;
const FY: usize = 1;
/// Index of the output `tip_x` (then `tip_y`, `tip_vx`, `tip_vy`).
pub const TIP: usize = 0;
/// Index of the output `energy`.
pub const ENERGY: usize = 4;

/// The forced pendulum model.
#[derive(Default)]
pub struct ForcedPendulum;

impl MechanicalModel for ForcedPendulum {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "pendulum",
            "Point mass m on a rod of length l pinned at (pivot_x, pivot_y), in Cartesian coordinates, \
             under gravity and the force (fx, fy) on the mass",
        );
        let declaration = pendulum::declare(declaration, &pendulum::RIGHT)
            .input(
                Var::new("fx", 0.0)
                    .unit("N")
                    .description("horizontal force on the mass"),
            )
            .input(
                Var::new("fy", 0.0)
                    .unit("N")
                    .description("vertical force on the mass"),
            );
        pendulum::declare_tip_outputs(declaration)
            .output(Var::new("energy", 0.0).unit("J").description(
                "kinetic plus potential energy, the potential measured from the pivot's height",
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
        f[0] = gx + a.u[FX];
        f[1] = gy + a.u[FY];
    }

    fn constraints<T: Scalar>(&self, _t: T, q: &[T], p: &[T], c: &mut [T]) {
        c[0] = Pendulum::from_parameters(p).constraint(q);
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, _acc: &[T], _lambda: &[T], y: &mut [T]) {
        y[TIP..TIP + 2].copy_from_slice(a.q);
        y[TIP + 2..TIP + 4].copy_from_slice(a.v);
        y[ENERGY] = Pendulum::from_parameters(a.p).energy(a.q, a.v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::directional;
    use fmu_export::{Args, Integrator, MechArgs, MechanicalSystem, StepInputs, System};

    /// Parameters `[m, l, pivot_x, pivot_y, g]` away from the defaults.
    const P: [f64; 5] = [2.0, 1.5, 1.0, 0.5, 10.0];

    #[test]
    fn consistent_accelerations_keep_the_mass_on_its_rod_under_gravity_and_the_input() {
        let sys = MechanicalSystem::<ForcedPendulum>::default();
        // Mass at (1.9, -0.7): 1.5 m from the pivot (0.9, -1.2); velocity tangent to the rod.
        let (q, v, u) = ([1.9, -0.7], [1.2, 0.9], [3.0, -1.0]);
        let args = MechArgs {
            t: 0.0,
            q: &q,
            v: &v,
            u: &u,
            p: &P,
            d: &[],
        };
        let (acc, lambda) = sys.accelerations(&args).unwrap();
        let r = [0.9, -1.2];
        // Acceleration-level constraint: r . a + |v|^2 = 0.
        assert!(
            (r[0] * acc[0] + r[1] * acc[1] + 2.25).abs() < 1e-13,
            "{acc:?}"
        );
        // Force balance: m a + r lambda = (fx, fy - m g).
        assert!((2.0 * acc[0] + r[0] * lambda[0] - 3.0).abs() < 1e-12);
        assert!((2.0 * acc[1] + r[1] * lambda[0] + 1.0 + 20.0).abs() < 1e-12);
    }

    #[test]
    fn energy_changes_by_the_power_of_the_input_force() {
        // Along the consistent motion the rod does no work: dE/dt = f . v.
        let sys = MechanicalSystem::<ForcedPendulum>::default();
        let (x, u) = ([1.9, -0.7, 1.2, 0.9], [3.0, -1.0]);
        let args = MechArgs {
            t: 0.0,
            q: &x[..2],
            v: &x[2..],
            u: &u,
            p: &P,
            d: &[],
        };
        let (acc, _) = sys.accelerations(&args).unwrap();
        let direction = [x[2], x[3], acc[0], acc[1], 0.0, 0.0];
        let rate = directional(&[x.as_slice(), &u].concat(), &direction, 5, |w, y| {
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
        let expected = u[0] * x[2] + u[1] * x[3];
        assert!((rate - expected).abs() < 1e-12, "{rate} vs {expected}");
    }

    #[test]
    fn the_rod_length_and_the_energy_hold_over_the_benchmark() {
        // Free swing from the default start, 10 s at the benchmark's 1 ms step.
        let sys = MechanicalSystem::<ForcedPendulum>::default();
        let declaration = sys.declaration();
        let (p, x0) = (declaration.parameter_starts(), declaration.state_starts());
        let zero = [0.0, 0.0];
        let mut integrator = sys.integrator();
        integrator
            .initialize(&sys, 0.0, &x0, &StepInputs::held(0.0, &zero), &p, &[])
            .unwrap();
        let energy = |integrator: &<MechanicalSystem<ForcedPendulum> as System>::Integrator,
                      t: f64| {
            let mut y = [f64::NAN; 5];
            integrator.outputs(&sys, t, &zero, &p, &[], &mut y);
            y[ENERGY]
        };
        let e0 = energy(&integrator, 0.0);
        let (h, mut drift, mut energy_error, mut x) = (1e-3, 0.0f64, 0.0f64, [0.0; 4]);
        for k in 0..10_000 {
            let t = k as f64 * h;
            integrator
                .do_step(&sys, t, h, &StepInputs::held(t, &zero), &p, &mut [])
                .unwrap();
            Integrator::<MechanicalSystem<ForcedPendulum>>::continuous_state(&integrator, &mut x);
            drift = drift.max(((x[0] - p[2]).hypot(x[1] - p[3]) - p[1]).abs());
            energy_error = energy_error.max((energy(&integrator, t + h) - e0).abs());
        }
        assert!(drift < 1e-12, "largest rod-length error {drift} m");
        assert!(energy_error < 1e-4, "largest energy error {energy_error} J");
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<ForcedPendulum>);
