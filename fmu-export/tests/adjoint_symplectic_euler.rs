//! Discrete adjoint of symplectic Euler on a damped pendulum in Cartesian coordinates (one
//! constraint, imposed at acceleration level), driven by a horizontal input force: step
//! JVP/VJP duality, and the trajectory gradient against central differences.

mod adjoint_support;

use adjoint_support::duality_defect;
use fmu_export::adjoint::check::{central_differences, relative_error, relative_steps};
use fmu_export::adjoint::{
    discrete_adjoint_gradient, record_trajectory, CommunicationLinearization, Cost,
    EventTimeSensitivity, ScheduledStep, Trajectory,
};
use fmu_export::integrators::MechanicalIntegrator;
use fmu_export::{
    Declaration, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar, StepInputs, System,
    Tunability, Var,
};

/// Parameters: mass, gravity, damping, rod length.
const PARAMS: [f64; 4] = [1.5, 9.81, 0.4, 0.8];
const X0: [f64; 4] = [0.4, -0.69282032302755, 0.0, 0.0];
/// Communication step, internal step, number of communication steps.
const STEP: f64 = 1e-2;
const INTERNAL: f64 = 1e-3;
const STEPS: usize = 100;

/// `m a + C_q^T lambda = [F - c vx, -m g - c vy]`, `C = (x^2 + y^2 - L^2) / 2`.
#[derive(Default)]
struct Pendulum;

impl MechanicalModel for Pendulum {
    fn declaration(&self) -> Declaration {
        let parameter = |name: &str, value: f64| (Var::new(name, value), Tunability::Tunable);
        let mut declaration = Declaration::new("pendulum", "damped Cartesian pendulum")
            .state(Var::new("x", X0[0]))
            .state(Var::new("y", X0[1]))
            .state(Var::new("vx", 0.0))
            .state(Var::new("vy", 0.0))
            .input(Var::new("F", 0.0));
        for (name, value) in ["m", "g", "c", "L"].into_iter().zip(PARAMS) {
            let (var, tunability) = parameter(name, value);
            declaration = declaration.parameter(var, tunability);
        }
        declaration.cosimulation(Method::SymplecticEuler, INTERNAL)
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[0];
        m[3] = a.p[0];
    }
    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = a.u[0] - a.p[2] * a.v[0];
        f[1] = -a.p[0] * a.p[1] - a.p[2] * a.v[1];
    }
    fn constraints<T: Scalar>(&self, _t: T, q: &[T], p: &[T], c: &mut [T]) {
        c[0] = (q[0] * q[0] + q[1] * q[1] - p[3] * p[3]) * T::cst(0.5);
    }
    fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, _acc: &[T], _l: &[T], _y: &mut [T]) {}
}

/// `sum_k STEP (x_k^2 + 0.1 L vy_k^2)`: state and parameter terms.
struct Swing;

impl Cost for Swing {
    fn term<T: Scalar>(&self, _k: usize, _t: f64, w: &[T], p: &[T]) -> T {
        (w[0] * w[0] + T::cst(0.1) * p[3] * w[3] * w[3]) * T::cst(STEP)
    }
}

/// A force `2 sin(3 t)` given by its value and slope at each communication point.
fn schedule() -> Vec<ScheduledStep> {
    (0..STEPS)
        .map(|k| {
            let t = k as f64 * STEP;
            let coefficients = vec![vec![2.0 * (3.0 * t).sin()], vec![6.0 * (3.0 * t).cos()]];
            ScheduledStep {
                h: STEP,
                inputs: StepInputs {
                    t0: t,
                    coefficients,
                },
            }
        })
        .collect()
}

fn simulate(sys: &MechanicalSystem<Pendulum>, p: &[f64]) -> (Trajectory, MechanicalIntegrator) {
    let mut integrator = sys.integrator();
    let trajectory =
        record_trajectory(sys, &mut integrator, &X0, p, &[], &schedule()).expect("simulate");
    (trajectory, integrator)
}

#[test]
fn step_jvp_and_vjp_are_transposes() {
    let sys = MechanicalSystem::<Pendulum>::default();
    let (trajectory, integrator) = simulate(&sys, &PARAMS);
    for k in [0, 50, 99] {
        let step = CommunicationLinearization::new(
            &sys,
            integrator.scheme(),
            &trajectory.steps[k],
            EventTimeSensitivity::Included,
        )
        .unwrap();
        assert_eq!(trajectory.steps[k].segments.len(), 10, "ten internal steps");
        let defect = duality_defect(&step, [0.1, 1.0, 1.0], 7 + k as u64);
        println!("step {k}: duality defect {defect:e}");
        assert!(defect < 1e-12, "step {k}: {defect:e}");
    }
}

#[test]
fn adjoint_gradient_matches_central_differences() {
    let sys = MechanicalSystem::<Pendulum>::default();
    let (trajectory, integrator) = simulate(&sys, &PARAMS);
    let gradient = discrete_adjoint_gradient(
        &sys,
        integrator.scheme(),
        &trajectory,
        &Swing,
        EventTimeSensitivity::Included,
    )
    .expect("adjoint");
    let reference = central_differences(&PARAMS, &relative_steps(&PARAMS, 1e-6), |p| {
        let (run, _) = simulate(&sys, p);
        run.cost_of(&run.states(), p, &Swing)
    });
    let error = relative_error(&gradient.params, &reference);
    println!(
        "J = {:e}\nadjoint {:?}\nFD      {reference:?}\nerror {error:e}",
        gradient.cost, gradient.params
    );
    assert!(error < 1e-6, "{error:e}");
    let x0_reference = central_differences(&X0, &[1e-6; 4], |x0| {
        let mut integrator = sys.integrator();
        let run = record_trajectory(&sys, &mut integrator, x0, &PARAMS, &[], &schedule()).unwrap();
        run.cost_of(&run.states(), &PARAMS, &Swing)
    });
    let x0_error = relative_error(&gradient.initial_state, &x0_reference);
    println!(
        "dJ/dx0 adjoint {:?}\nFD {x0_reference:?}\nerror {x0_error:e}",
        gradient.initial_state
    );
    assert!(x0_error < 1e-6, "{x0_error:e}");
}
