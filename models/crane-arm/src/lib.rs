//! The mechanical subsystem M of the hydraulic crane of Rodríguez et al. (2022, Sect. 4.4):
//! the 2-DOF arm in the minimal coordinates `theta1, theta2`, driven by the actuator force `f`
//! (the input, from `crane-cylinder`):
//!
//! ```text
//! M(theta) theta'' + f_cor(theta, theta') = f_grav(theta) + J^T f
//! ```
//!
//! (equations in [`benchmark_equations::crane::arm`]). Outputs: the actuator length `s_c` and
//! rate `s_c_dot = J theta'` (the cylinder's inputs; state only, no direct feedthrough), the
//! two angles and the arm's mechanical energy (kinetic plus gravitational, from the pivot's
//! height), which changes by `f s_c_dot`.
//!
//! Integrated in co-simulation by symplectic Euler, the benchmark's integrator. `max_step` is
//! 20 ms so that every communication step the study uses (1 to 11.5 ms) is one integration
//! step, as in the paper. The defaults are the benchmark's values; the input starts at the
//! force that holds the arm at rest at its initial angles (8829 N).

use benchmark_equations::crane::arm::{self, Arm};
use benchmark_equations::crane::{equilibrium, signals};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Var};

/// Input index.
const F: usize = 0;
/// Index of the output `s_c`.
pub const LENGTH: usize = 0;
/// Index of the output `s_c_dot`.
pub const RATE: usize = 1;
/// Index of the output `angle1` (then `angle2`).
pub const ANGLES: usize = 2;
/// Index of the output `energy`.
pub const ENERGY: usize = 4;

/// The crane-arm model.
#[derive(Default)]
pub struct CraneArm;

/// The coordinates as a pair.
fn pair<T: Scalar>(s: &[T]) -> [T; 2] {
    [s[0], s[1]]
}

impl MechanicalModel for CraneArm {
    fn declaration(&self) -> Declaration {
        let holding_force = equilibrium::benchmark().force;
        let declaration = Declaration::new(
            "crane_arm",
            "Arm of the hydraulic crane in the angles theta1, theta2 from the x axis, driven by the \
             actuator force f: M theta'' + f_cor = f_grav + J^T f",
        );
        arm::declare_parameters(arm::declare_states(declaration))
            .input(signals::actuator_force(holding_force))
            .output(signals::actuator_length(0.0))
            .output(signals::actuator_rate(0.0))
            .output(Var::new("angle1", 0.0).unit("rad").description("theta1"))
            .output(Var::new("angle2", 0.0).unit("rad").description("theta2"))
            .output(signals::arm_energy())
            .cosimulation(Method::SymplecticEuler, 0.02)
            .experiment(0.0, 10.0, 1e-8, 1e-3)
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m.copy_from_slice(&Arm::from_parameters(a.p).mass_matrix(pair(a.q)));
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f.copy_from_slice(&Arm::from_parameters(a.p).generalized_forces(
            pair(a.q),
            pair(a.v),
            a.u[F],
        ));
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, _acc: &[T], _lambda: &[T], y: &mut [T]) {
        let arm = Arm::from_parameters(a.p);
        y[LENGTH] = arm.actuator_length(a.q[0]);
        y[RATE] = arm.actuator_rate(a.q[0], a.v[0]);
        y[ANGLES] = a.q[0];
        y[ANGLES + 1] = a.q[1];
        y[ENERGY] = arm.energy(pair(a.q), pair(a.v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::{directional, jacobian};
    use fmu_export::{Args, MechanicalSystem, System};

    /// A moving state `[theta1, theta2, omega1, omega2]` and force away from the defaults.
    const X: [f64; 4] = [0.8, -1.3, 0.3, -0.9];
    const U: [f64; 1] = [9500.0];

    /// The default parameters.
    fn parameters() -> Vec<f64> {
        MechanicalSystem::<CraneArm>::default()
            .declaration()
            .parameter_starts()
    }

    /// The state derivatives at the state `x` and force `u`, with the default parameters.
    fn derivatives(x: &[f64], u: &[f64]) -> [f64; 4] {
        let (p, mut dx) = (parameters(), [f64::NAN; 4]);
        MechanicalSystem::<CraneArm>::default().derivatives(
            &Args {
                t: 0.0,
                x,
                u,
                p: &p,
                d: &[],
            },
            &mut dx,
        );
        dx
    }

    /// The outputs at the state and force `w = [theta1, theta2, omega1, omega2, f]`, with the
    /// default parameters.
    fn outputs_at<T: Scalar>(w: &[T], y: &mut [T]) {
        let p: Vec<T> = parameters().iter().map(|&v| T::cst(v)).collect();
        MechanicalSystem::<CraneArm>::default().outputs(
            &Args {
                t: T::cst(0.0),
                x: &w[..4],
                u: &w[4..],
                p: &p,
                d: &[],
            },
            y,
        );
    }

    #[test]
    fn derivatives_are_the_arm_equations_and_the_default_start_is_at_rest() {
        let dx = derivatives(&X, &U);
        let acc = arm::BENCHMARK.accelerations([X[0], X[1]], [X[2], X[3]], U[0]);
        let expected = [X[2], X[3], acc[0], acc[1]];
        for i in 0..4 {
            assert!(
                (dx[i] - expected[i]).abs() < 1e-12 * expected[i].abs().max(1.0),
                "{dx:?} vs {expected:?}"
            );
        }
        // Default state and input: the holding force keeps the arm at rest.
        let d = CraneArm.declaration();
        let dx = derivatives(&d.state_starts(), &d.input_starts());
        assert!(dx.iter().all(|v| v.abs() < 1e-12), "{dx:?}");
    }

    #[test]
    fn the_actuator_outputs_have_the_jacobian_j() {
        let (jac, value) = jacobian(&[X.as_slice(), &U].concat(), 5, outputs_at);
        let j = arm::BENCHMARK.actuator_jacobian(X[0]);
        let s = (1.0 - 0.75f64.sqrt() * X[0].cos()).sqrt();
        assert!((value[LENGTH] - s).abs() < 1e-15);
        assert!((value[RATE] - j * X[2]).abs() < 1e-15);
        // Columns theta1, theta2, omega1, omega2, f: ds/dtheta = J, ds'/domega = J, no feedthrough.
        assert!((jac[LENGTH * 5] - j).abs() < 1e-14 && jac[LENGTH * 5 + 1] == 0.0);
        assert!((jac[RATE * 5 + 2] - j).abs() < 1e-14 && jac[RATE * 5 + 3] == 0.0);
        assert!((0..5).all(|row| jac[row * 5 + 4] == 0.0));
    }

    #[test]
    fn energy_changes_by_the_actuator_power() {
        let dx = derivatives(&X, &U);
        let direction = [dx[0], dx[1], dx[2], dx[3], 0.0];
        let rate = directional(&[X.as_slice(), &U].concat(), &direction, 5, outputs_at)[ENERGY];
        let power = U[0] * arm::BENCHMARK.actuator_rate(X[0], X[2]);
        assert!(
            (rate - power).abs() < 1e-9 * power.abs(),
            "{rate} vs {power}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<CraneArm>);
