//! The hydraulic crane of Rodríguez et al. (2022, Sect. 4.4) as one monolithic model, the
//! reference for the co-simulation of its subsystems `crane-arm` and `crane-cylinder`. The
//! arm and the cylinder are coupled exactly through the actuator force, which is computed
//! inside:
//!
//! ```text
//! x = (theta1, theta2, omega1, omega2, p1, p2)
//! theta' = omega
//! omega' = M(theta)^-1 (f_grav - f_cor + J^T f),   f = A (p2 - p1) - c J omega
//! p'     = h(s(theta1), J omega, p, gamma(t))
//! ```
//!
//! (equations in [`benchmark_equations::crane`]). The system is stiff (hydraulic bulk modulus
//! about 1.5 GPa), so it is integrated by the L-stable ESDIRK method with error control; the
//! kinks of the spool manoeuvre are time events. Outputs: the actuator length, rate and
//! force, the spool displacement and the arm's mechanical energy.
//!
//! Defaults: the benchmark's values, starting in the static equilibrium at the initial angles,
//! with the sinusoidal manoeuvre M2. With them the model reproduces the published reference
//! trajectory (see the tests).

use benchmark_equations::crane::arm::{self, Arm};
use benchmark_equations::crane::cylinder::{self, Cylinder};
use benchmark_equations::crane::manoeuvre::{self, Manoeuvre};
use benchmark_equations::crane::{equilibrium, signals};
use fmu_export::{Args, Declaration, OdeModel, Scalar};

/// State indices.
const THETA: usize = 0;
const OMEGA: usize = 2;
const PRESSURES: usize = 4;
/// Parameter offsets: the arm's, then the cylinder's, then `gamma0`.
const CYLINDER: usize = arm::PARAMETER_COUNT;
const GAMMA0: usize = CYLINDER + cylinder::PARAMETER_COUNT;
/// Index of the discrete parameter `manoeuvre`.
const MANOEUVRE: usize = 0;
/// Index of the output `s_c`.
pub const LENGTH: usize = 0;
/// Index of the output `s_c_dot`.
pub const RATE: usize = 1;
/// Index of the output `f`.
pub const FORCE: usize = 2;
/// Index of the output `gamma`.
pub const SPOOL: usize = 3;
/// Index of the output `energy`.
pub const ENERGY: usize = 4;

/// The monolithic crane model.
#[derive(Default)]
pub struct Crane;

/// The coupled quantities at one point: the arm, the cylinder and the actuator's length, rate
/// and force.
struct Coupling<T> {
    arm: Arm<T>,
    cylinder: Cylinder<T>,
    theta: [T; 2],
    omega: [T; 2],
    s: T,
    s_rate: T,
    force: T,
}

impl<T: Scalar> Coupling<T> {
    fn new(a: &Args<T>) -> Self {
        let arm = Arm::from_parameters(&a.p[..CYLINDER]);
        let cylinder = Cylinder::from_parameters(&a.p[CYLINDER..GAMMA0]);
        let (x, p) = (a.x, &a.x[PRESSURES..]);
        let theta = [x[THETA], x[THETA + 1]];
        let omega = [x[OMEGA], x[OMEGA + 1]];
        let s_rate = arm.actuator_rate(theta[0], omega[0]);
        let force = cylinder.force(p[0], p[1], s_rate);
        Coupling {
            arm,
            cylinder,
            theta,
            omega,
            s: arm.actuator_length(theta[0]),
            s_rate,
            force,
        }
    }
}

/// The spool displacement at the arguments' time.
fn spool<T: Scalar>(a: &Args<T>) -> T {
    Manoeuvre::from_setting(a.d[MANOEUVRE]).spool(a.t, a.p[GAMMA0])
}

impl OdeModel for Crane {
    fn declaration(&self) -> Declaration {
        let start = equilibrium::benchmark();
        let declaration = Declaration::new(
            "crane",
            "Hydraulic crane: 2-DOF arm (angles theta1, theta2) lifted by a hydraulic cylinder \
             (pressures p1, p2) whose valve follows the spool manoeuvre gamma(t), as one model",
        );
        let declaration =
            cylinder::declare_pressures(arm::declare_states(declaration), [start.p1, start.p2]);
        let declaration = cylinder::declare_parameters(arm::declare_parameters(declaration));
        manoeuvre::declare(declaration, start.gamma)
            .output(signals::actuator_length(0.0))
            .output(signals::actuator_rate(0.0))
            .output(signals::actuator_force(0.0))
            .output(signals::spool())
            .output(signals::arm_energy())
            .cosimulation(cylinder::INTEGRATOR, 1e-3)
            .experiment(0.0, 10.0, 1e-8, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let c = Coupling::new(a);
        let acc = c.arm.accelerations(c.theta, c.omega, c.force);
        let (p1, p2) = (a.x[PRESSURES], a.x[PRESSURES + 1]);
        let rates = c.cylinder.pressure_rates(c.s, c.s_rate, p1, p2, spool(a));
        dx[THETA..THETA + 2].copy_from_slice(&c.omega);
        dx[OMEGA..OMEGA + 2].copy_from_slice(&acc);
        dx[PRESSURES..].copy_from_slice(&rates);
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        let c = Coupling::new(a);
        y[LENGTH] = c.s;
        y[RATE] = c.s_rate;
        y[FORCE] = c.force;
        y[SPOOL] = spool(a);
        y[ENERGY] = c.arm.energy(c.theta, c.omega);
    }

    fn next_time_event(&self, t: f64, _p: &[f64], d: &[f64]) -> Option<f64> {
        Manoeuvre::from_setting(d[MANOEUVRE]).next_kink(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::{OdeSystem, System};

    /// A moving state `[theta1, theta2, omega1, omega2, p1, p2]` away from the start.
    const X: [f64; 6] = [0.62, -1.4, 0.05, -0.3, 3.0e6, 4.6e6];

    /// The derivatives and the outputs at time `t` and state `x`, with the default parameters
    /// and manoeuvre.
    fn evaluate(t: f64, x: &[f64]) -> ([f64; 6], [f64; 5]) {
        let sys = OdeSystem::<Crane>::default();
        let d = sys.declaration();
        let (p, disc) = (d.parameter_starts(), d.discrete_starts());
        let args = Args {
            t,
            x,
            u: &[],
            p: &p,
            d: &disc,
        };
        let (mut dx, mut y) = ([f64::NAN; 6], [f64::NAN; 5]);
        sys.derivatives(&args, &mut dx);
        sys.outputs(&args, &mut y);
        (dx, y)
    }

    #[test]
    fn derivatives_couple_the_arm_and_the_cylinder_through_the_actuator_force() {
        let (t, p) = (
            3.3,
            OdeSystem::<Crane>::default()
                .declaration()
                .parameter_starts(),
        );
        let (dx, y) = evaluate(t, &X);
        let (a, c) = (arm::BENCHMARK, cylinder::BENCHMARK);
        let s_rate = a.actuator_jacobian(X[0]) * X[2];
        let force = 65e-4 * (X[5] - X[4]) - 1e5 * s_rate;
        let acc = a.accelerations([X[0], X[1]], [X[2], X[3]], force);
        let gamma = Manoeuvre::Sinusoid.spool(t, p[GAMMA0]);
        let rates = c.pressure_rates(a.actuator_length(X[0]), s_rate, X[4], X[5], gamma);
        let expected = [X[2], X[3], acc[0], acc[1], rates[0], rates[1]];
        for i in 0..6 {
            assert!(
                (dx[i] - expected[i]).abs() < 1e-12 * expected[i].abs().max(1.0),
                "{dx:?} vs {expected:?}"
            );
        }
        assert_eq!(y[FORCE], force);
        assert_eq!(y[SPOOL], gamma);
    }

    #[test]
    fn the_dual_jacobian_of_the_derivatives_matches_central_differences() {
        // The Newton matrices of the ESDIRK integrator and the FMU's directional derivatives
        // come from this Jacobian.
        let sys = OdeSystem::<Crane>::default();
        let d = sys.declaration();
        let (p, disc, t) = (d.parameter_starts(), d.discrete_starts(), 3.3);
        let (jac, _) = fmu_export::jacobian::jacobian(&X, 6, |x, dx| {
            let p: Vec<_> = p.iter().map(|&v| v.into()).collect();
            sys.derivatives(
                &Args {
                    t: t.into(),
                    x,
                    u: &[],
                    p: &p,
                    d: &disc,
                },
                dx,
            );
        });
        for j in 0..6 {
            let step = 1e-6 * X[j].abs().max(1e-3);
            let (mut plus, mut minus) = (X, X);
            plus[j] += step;
            minus[j] -= step;
            let (f_plus, f_minus) = (evaluate(t, &plus).0, evaluate(t, &minus).0);
            for i in 0..6 {
                let difference = (f_plus[i] - f_minus[i]) / (2.0 * step);
                let exact = jac[i * 6 + j];
                let scale = (0..6)
                    .map(|k| jac[i * 6 + k].abs() * X[k].abs().max(1e-3))
                    .fold(0.0, f64::max);
                assert!(
                    (exact - difference).abs() * X[j].abs().max(1e-3) <= 1e-6 * scale,
                    "d(dx{i})/d(x{j}): {exact} vs {difference}"
                );
            }
        }
    }

    #[test]
    fn the_default_start_is_a_static_equilibrium_with_the_published_values() {
        let sys = OdeSystem::<Crane>::default();
        let d = sys.declaration();
        let (x, p) = (d.state_starts(), d.parameter_starts());
        assert!(
            (x[PRESSURES] - 3.1708e6).abs() < 50.0 && (x[PRESSURES + 1] - 4.5292e6).abs() < 50.0,
            "{x:?}"
        );
        assert!((p[GAMMA0] - 0.45435).abs() < 1e-5, "{}", p[GAMMA0]);
        let (dx, y) = evaluate(0.0, &x);
        assert!(
            dx[..4].iter().all(|v| v.abs() < 1e-12) && dx[4..].iter().all(|v| v.abs() < 1e-4),
            "{dx:?}"
        );
        assert!(
            (y[FORCE] - 8829.0).abs() < 0.5 && (y[LENGTH] - 0.5).abs() < 1e-15,
            "{y:?}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<Crane>);
