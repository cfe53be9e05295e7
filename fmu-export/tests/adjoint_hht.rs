//! Discrete adjoint of HHT-alpha on the 1-DOF oscillator of Lauß et al. (2018), Sect. 4 (the
//! digest's A.4 set-up): m = 2, F = 10 sin 7t, h = 1 ms, N = 2000, u_opt = (c, d) = (400, 3),
//! u = (300, 5), cost J = 1/2 sum_{i<N} h (a_i - abar_i)^2 with abar from u_opt.
//!
//! The force enters as the model's input, a second-order Taylor polynomial of 10 sin 7t per
//! step, so the input adjoints are exercised too.

mod adjoint_support;
mod common;

use adjoint_support::duality_defect;
use common::{Oscillator, MASS};
use fmu_export::adjoint::check::{central_differences, relative_error, relative_steps};
use fmu_export::adjoint::{
    discrete_adjoint_gradient, record_trajectory, replay_trajectory, CommunicationLinearization,
    Cost, EventTimeSensitivity, Gradient, ScheduledStep, Trajectory,
};
use fmu_export::integrators::MechanicalIntegrator;
use fmu_export::{MechanicalSystem, Method, Scalar, StepInputs, System};

const H: f64 = 1e-3;
const STEPS: usize = 2000;
const OPTIMAL: [f64; 2] = [400.0, 3.0];
const START: [f64; 2] = [300.0, 5.0];

/// `1/2 sum_{i<N} h (a_i - abar_i)^2` over the HHT accelerations `w = [q, v, a]`.
struct AccelerationMisfit {
    measured: Vec<f64>,
}

impl Cost for AccelerationMisfit {
    fn term<T: Scalar>(&self, k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        match self.measured.get(k) {
            Some(&abar) => T::cst(0.5 * H) * (w[2] - T::cst(abar)).powi(2),
            None => T::cst(0.0),
        }
    }
}

/// The force 10 sin 7t as a Taylor polynomial (value, first and second derivative) per step.
fn schedule() -> Vec<ScheduledStep> {
    (0..STEPS)
        .map(|k| {
            let t = k as f64 * H;
            let (s, c) = ((7.0 * t).sin(), (7.0 * t).cos());
            let coefficients = vec![vec![10.0 * s], vec![70.0 * c], vec![-490.0 * s]];
            ScheduledStep {
                h: H,
                inputs: StepInputs {
                    t0: t,
                    coefficients,
                },
            }
        })
        .collect()
}

struct Run {
    sys: MechanicalSystem<Oscillator>,
    integrator: MechanicalIntegrator,
    trajectory: Trajectory,
}

/// The recorded simulation with `(c, d)`, HHT damping `alpha` and initial position `q0`.
fn run(alpha: f64, q0: f64, cd: &[f64], inputs: &[ScheduledStep]) -> Run {
    let sys = MechanicalSystem::<Oscillator>::default();
    let declaration = sys
        .declaration()
        .clone()
        .cosimulation(Method::Hht { alpha }, H);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let p = [MASS, cd[0], cd[1]];
    let trajectory =
        record_trajectory(&sys, &mut integrator, &[q0, 0.0], &p, &[], inputs).expect("simulate");
    Run {
        sys,
        integrator,
        trajectory,
    }
}

/// The measured accelerations: the simulation with the optimal parameters.
fn measured(alpha: f64, q0: f64) -> AccelerationMisfit {
    let optimal = run(alpha, q0, &OPTIMAL, &schedule()).trajectory;
    AccelerationMisfit {
        measured: (0..STEPS).map(|k| optimal.state(k)[2]).collect(),
    }
}

/// The cost of a fresh simulation with `(c, d)`.
fn cost(alpha: f64, q0: f64, cd: &[f64], misfit: &AccelerationMisfit) -> f64 {
    let run = run(alpha, q0, cd, &schedule());
    run.trajectory
        .cost_of(&run.trajectory.states(), &run.trajectory.params, misfit)
}

fn adjoint(run: &Run, misfit: &AccelerationMisfit) -> Gradient {
    let scheme = run.integrator.scheme();
    discrete_adjoint_gradient(
        &run.sys,
        scheme,
        &run.trajectory,
        misfit,
        EventTimeSensitivity::Included,
    )
    .expect("adjoint")
}

/// Relative errors against central differences of the gradient with respect to (c, d), with
/// and without the initial-state term.
fn errors(alpha: f64, q0: f64) -> (f64, f64) {
    let misfit = measured(alpha, q0);
    let gradient = adjoint(&run(alpha, q0, &START, &schedule()), &misfit);
    let reference = central_differences(&START, &relative_steps(&START, 1e-5), |cd| {
        cost(alpha, q0, cd, &misfit)
    });
    let with_term = &gradient.params[1..];
    let without: Vec<f64> = with_term
        .iter()
        .zip(&gradient.initial_state_term[1..])
        .map(|(g, i)| g - i)
        .collect();
    println!(
        "alpha {alpha}, q0 {q0}: J = {:e}, adjoint {with_term:?}, FD {reference:?}, \
         initial-state term {:?}",
        gradient.cost,
        &gradient.initial_state_term[1..]
    );
    (
        relative_error(with_term, &reference),
        relative_error(&without, &reference),
    )
}

#[test]
fn adjoint_gradient_matches_central_differences_for_every_alpha() {
    for alpha in [0.0, -0.1, -0.3] {
        let (error, _) = errors(alpha, 0.0);
        println!("alpha {alpha}: relative error {error:e}");
        assert!(error < 1e-8, "alpha {alpha}: {error:e}");
    }
}

#[test]
fn the_initial_state_term_is_needed_when_a0_depends_on_the_stiffness() {
    // q0 = 0.01: a0 = (F(0) - c q0) / m depends on c.
    for alpha in [0.0, -0.3] {
        let (with_term, without_term) = errors(alpha, 0.01);
        println!("alpha {alpha}: with the term {with_term:e}, without {without_term:e}");
        assert!(with_term < 1e-8, "alpha {alpha}: {with_term:e}");
        assert!(
            without_term > 1e-8,
            "alpha {alpha}: dropping the term gives only {without_term:e}"
        );
    }
}

/// The paper's recursion (9)-(11) with its hand-written condensed Jacobians A = df_i/dx_i (16)
/// and B = df_{i+1}/dx_i (17) for the oscillator (digest A.4), as an independent oracle.
fn paper_gradient(alpha: f64, trajectory: &Trajectory, misfit: &AccelerationMisfit) -> [f64; 2] {
    let (beta, gamma) = ((1.0 - alpha).powi(2) / 4.0, (1.0 - 2.0 * alpha) / 2.0);
    let (c, d, m, h) = (START[0], START[1], MASS, H);
    let s = m / (1.0 + alpha) + c * beta * h * h + d * gamma * h;
    let a = [
        [1.0, 0.0, -h * h * beta],
        [0.0, 1.0, -h * gamma],
        [0.0, 0.0, s],
    ];
    let b = [
        [-1.0, -h, -0.5 * h * h * (1.0 - 2.0 * beta)],
        [0.0, -1.0, -h * (1.0 - gamma)],
        [
            c / (1.0 + alpha),
            h * c + d / (1.0 + alpha),
            0.5 * c * h * h * (1.0 - 2.0 * beta) + d * h * (1.0 - gamma),
        ],
    ];
    let blend = alpha / (1.0 + alpha);
    let mut next = [0.0; 3]; // p_{i+1}, starting from p_N = 0
    let mut gradient = [0.0; 2];
    for i in (1..STEPS).rev() {
        // A^T p_i = -eta (0, 0, a_i - abar_i) - B^T p_{i+1}, A upper triangular.
        let x = trajectory.state(i);
        let mut r = [0.0; 3];
        for (j, rj) in r.iter_mut().enumerate() {
            *rj = -(0..3).map(|k| b[k][j] * next[k]).sum::<f64>();
        }
        r[2] -= h * (x[2] - misfit.measured[i]);
        let p0 = r[0] / a[0][0];
        let p1 = r[1] / a[1][1];
        let p2 = (r[2] - a[0][2] * p0 - a[1][2] * p1) / a[2][2];
        // (11): the terms of step i -> i+1 use p_{i+1}.
        let x_next = trajectory.state(i + 1);
        gradient[0] += next[2] * (x_next[0] - blend * x[0]);
        gradient[1] += next[2] * (x_next[1] - blend * x[1]);
        next = [p0, p1, p2];
    }
    let (x0, x1) = (trajectory.state(0), trajectory.state(1));
    gradient[0] += next[2] * (x1[0] - blend * x0[0]);
    gradient[1] += next[2] * (x1[1] - blend * x0[1]);
    gradient
}

#[test]
fn adjoint_gradient_equals_the_papers_recursion_with_hand_written_jacobians() {
    for alpha in [0.0, -0.3] {
        let misfit = measured(alpha, 0.0);
        let run = run(alpha, 0.0, &START, &schedule());
        let gradient = adjoint(&run, &misfit);
        let paper = paper_gradient(alpha, &run.trajectory, &misfit);
        let error = relative_error(&gradient.params[1..], &paper);
        println!(
            "alpha {alpha}: adjoint {:?}, paper {paper:?}, error {error:e}",
            &gradient.params[1..]
        );
        assert!(error < 1e-12, "alpha {alpha}: {error:e}");
    }
}

#[test]
fn input_adjoints_match_central_differences_of_the_replayed_schedule() {
    let (alpha, q0) = (-0.1, 0.01);
    let misfit = measured(alpha, q0);
    let inputs = schedule();
    let run = run(alpha, q0, &START, &inputs);
    let gradient = adjoint(&run, &misfit);
    let scheme = run.integrator.scheme();
    let p = &run.trajectory.params;
    // Value and slope of the force on the first, a middle and the last step.
    for (k, order) in [
        (0, 0),
        (0, 1),
        (1000, 0),
        (1000, 1),
        (STEPS - 2, 0),
        (STEPS - 2, 1),
    ] {
        let base = inputs[k].inputs.coefficients[order][0];
        // The cost is quadratic in the inputs (a linear model), so central differences are
        // exact but for rounding, which a large step keeps small.
        let step = 10.0;
        let fd = central_differences(&[base], &[step], |value| {
            let mut polynomials: Vec<StepInputs<f64>> =
                inputs.iter().map(|s| s.inputs.clone()).collect();
            polynomials[k].coefficients[order][0] = value[0];
            let states = replay_trajectory(
                &run.sys,
                scheme,
                &run.trajectory,
                &[q0, 0.0],
                p,
                &polynomials,
            )
            .expect("replay");
            run.trajectory.cost_of(&states, p, &misfit)
        })[0];
        let adjoint = gradient.inputs[k][order];
        let error = relative_error(&[adjoint], &[fd]);
        println!("step {k}, coefficient {order}: adjoint {adjoint:e}, FD {fd:e}, error {error:e}");
        assert!(error < 1e-7, "step {k}, coefficient {order}: {error:e}");
    }
}

#[test]
fn step_jvp_and_vjp_are_transposes() {
    let run = run(-0.3, 0.01, &START, &schedule()[..50]);
    for k in [0, 17, 49] {
        let tape = &run.trajectory.steps[k];
        let step = CommunicationLinearization::new(
            &run.sys,
            run.integrator.scheme(),
            tape,
            EventTimeSensitivity::Included,
        )
        .unwrap();
        let defect = duality_defect(&step, [1e-3, 10.0, 100.0], k as u64);
        println!("step {k}: duality defect {defect:e}");
        assert!(defect < 1e-12, "step {k}: {defect:e}");
    }
}
