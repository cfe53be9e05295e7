//! The discrete adjoint of HHT-alpha on the engine mount (Lauß et al. 2018, Sect. 5) with the
//! project's default parameters (the paper's table is not available): the gradient of the
//! acceleration misfit `J = 1/2 sum_i h (x1''_i - s_i)^2` with respect to
//! `(c_E1, c_E2, d_E, d_H2)` at `u_init`, against central differences, over 0..0.3 s with
//! h = 1e-4 s; the measurement `s` is the simulation with `u_opt`.

use engine_mount::EngineMount;
use fmu_export::adjoint::check::{central_differences, relative_error, relative_steps};
use fmu_export::adjoint::{
    discrete_adjoint_gradient, record_trajectory, CommunicationLinearization, Cost,
    EventTimeSensitivity, ScheduledStep, Trajectory,
};
use fmu_export::{MechanicalSystem, Scalar, StepInputs, System};

const H: f64 = 1e-4;
const STEPS: usize = 3000;
const U_INIT: [f64; 4] = [1.5e5, 8.0e9, 300.0, 5.0];
/// Index of x1'' in the HHT state `[q (4), v (4), a (4), lambda (1)]`.
const LOAD_ACCELERATION: usize = 8;

/// `1/2 sum_{i<N} h (x1''_i - s_i)^2`.
struct Misfit {
    measured: Vec<f64>,
}

impl Cost for Misfit {
    fn term<T: Scalar>(&self, k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        match self.measured.get(k) {
            Some(&s) => T::cst(0.5 * H) * (w[LOAD_ACCELERATION] - T::cst(s)).powi(2),
            None => T::cst(0.0),
        }
    }
}

/// The model's parameters with the four identified ones replaced by `u`.
fn parameters(sys: &MechanicalSystem<EngineMount>, u: &[f64]) -> Vec<f64> {
    let mut p = sys.declaration().parameter_starts();
    p[..4].copy_from_slice(u);
    p
}

fn simulate(sys: &MechanicalSystem<EngineMount>, u: &[f64]) -> (Trajectory, impl Sized + use<>) {
    let schedule: Vec<ScheduledStep> = (0..STEPS)
        .map(|k| ScheduledStep {
            h: H,
            inputs: StepInputs::held(k as f64 * H, &[]),
        })
        .collect();
    let mut integrator = sys.integrator();
    let x0 = sys.declaration().state_starts();
    let p = parameters(sys, u);
    let trajectory = record_trajectory(sys, &mut integrator, &x0, &p, &[], &schedule)
        .unwrap_or_else(|e| panic!("engine mount with u = {u:?}: {e}"));
    (trajectory, integrator)
}

#[test]
fn adjoint_gradient_matches_central_differences() {
    let sys = MechanicalSystem::<EngineMount>::default();
    let u_opt = sys.declaration().parameter_starts()[..4].to_vec();
    let (optimal, _) = simulate(&sys, &u_opt);
    let misfit = Misfit {
        measured: (0..STEPS)
            .map(|k| optimal.state(k)[LOAD_ACCELERATION])
            .collect(),
    };
    let (trajectory, _) = simulate(&sys, &U_INIT);
    let integrator = sys.integrator();
    let gradient = discrete_adjoint_gradient(
        &sys,
        integrator.scheme(),
        &trajectory,
        &misfit,
        EventTimeSensitivity::Included,
    )
    .expect("adjoint");
    let reference = central_differences(&U_INIT, &relative_steps(&U_INIT, 1e-5), |u| {
        let (run, _) = simulate(&sys, u);
        run.cost_of(&run.states(), &run.params, &misfit)
    });
    let error = relative_error(&gradient.params[..4], &reference);
    println!(
        "J = {:e}\nadjoint {:?}\nFD      {reference:?}\nrelative error {error:e}",
        gradient.cost,
        &gradient.params[..4]
    );
    assert!(error < 1e-6, "{error:e}");
    // x0 = 0 and a0 = (g, 0, 0, 0): the start does not depend on the identified parameters.
    assert!(gradient.initial_state_term[..4].iter().all(|&v| v == 0.0));

    // The step JVP and VJP of a communication step late in the sweep are transposes.
    let step = CommunicationLinearization::new(
        &sys,
        integrator.scheme(),
        &trajectory.steps[STEPS - 1],
        EventTimeSensitivity::Included,
    )
    .expect("linearize");
    let dw: Vec<f64> = (0..13).map(|i| 1e-3 * ((i as f64) * 0.7).sin()).collect();
    let dp: Vec<f64> = (0..17).map(|i| ((i as f64) * 1.3).cos()).collect();
    let v: Vec<f64> = (0..13).map(|i| ((i as f64) * 2.1).cos()).collect();
    let forward: f64 = step
        .jvp(&dw, &[], &dp)
        .iter()
        .zip(&v)
        .map(|(a, b)| a * b)
        .sum();
    let adjoint = step.vjp(&v);
    let terms = [
        adjoint
            .state
            .iter()
            .zip(&dw)
            .map(|(a, b)| a * b)
            .sum::<f64>(),
        adjoint
            .params
            .iter()
            .zip(&dp)
            .map(|(a, b)| a * b)
            .sum::<f64>(),
    ];
    let magnitude = terms.iter().fold(forward.abs(), |m, t| m.max(t.abs()));
    let defect = (forward - terms[0] - terms[1]).abs() / magnitude;
    println!("duality defect {defect:e}");
    assert!(defect < 1e-12, "{defect:e}");
}
