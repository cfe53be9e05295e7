//! Discrete adjoint of the error-controlled ESDIRK method on a forced Van der Pol oscillator:
//! step JVP/VJP duality (several internal steps per communication step), and the trajectory
//! gradient with respect to parameters, initial state and inputs against central differences,
//! both of the replayed schedule (the discrete map the adjoint differentiates: accepted step
//! sizes held) and of fresh error-controlled runs.

mod adjoint_support;

use adjoint_support::duality_defect;
use fmu_export::adjoint::check::{central_differences, relative_error, relative_steps};
use fmu_export::adjoint::{
    discrete_adjoint_gradient, flatten_inputs, inputs_like, record_trajectory, replay_trajectory,
    CommunicationLinearization, Cost, Cotangents, EndOutputs, EventTimeSensitivity, Gradient,
    OutputLinearization, ScheduledStep, Trajectory,
};
use fmu_export::integrators::{DifferentiableScheme, Sdirk};
use fmu_export::{
    Args, Declaration, Integrator, Method, OdeModel, OdeSystem, Scalar, StepInputs, System, Var,
};

const PARAMS: [f64; 2] = [1.5, 2.0];
const X0: [f64; 2] = [1.0, -0.5];
const STEP: f64 = 0.1;
const STEPS: usize = 30;

/// `x0' = x1`, `x1' = mu (1 - x0^2) x1 - k x0 + u`; parameters `(mu, k)`.
#[derive(Default)]
struct ForcedVanDerPol;

impl OdeModel for ForcedVanDerPol {
    fn declaration(&self) -> Declaration {
        Declaration::new("forced_van_der_pol", "")
            .state(Var::new("x0", X0[0]))
            .state(Var::new("x1", X0[1]))
            .input(Var::new("u", 0.0))
            .parameter(Var::new("mu", PARAMS[0]), fmu_export::Tunability::Tunable)
            .parameter(Var::new("k", PARAMS[1]), fmu_export::Tunability::Tunable)
            .output(Var::new("y", 0.0))
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-10,
                    atol: 1e-12,
                },
                0.05,
            )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let (x, p) = (a.x, a.p);
        dx[0] = x[1];
        dx[1] = p[0] * (T::cst(1.0) - x[0] * x[0]) * x[1] - p[1] * x[0] + a.u[0];
    }
    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[0] * a.x[1] + a.p[1] * a.u[0];
    }
}

/// `sum_k STEP x0_k^2 + x1_N^2`.
struct Energy;

impl Cost for Energy {
    fn term<T: Scalar>(&self, k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        let terminal = if k == STEPS { w[1] * w[1] } else { T::cst(0.0) };
        w[0] * w[0] * T::cst(STEP) + terminal
    }
}

/// The force `cos(2 t)` as a quadratic Taylor polynomial at each communication point.
fn schedule() -> Vec<ScheduledStep> {
    (0..STEPS)
        .map(|k| {
            let t = k as f64 * STEP;
            let (s, c) = ((2.0 * t).sin(), (2.0 * t).cos());
            let coefficients = vec![vec![c], vec![-2.0 * s], vec![-4.0 * c]];
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

fn simulate(sys: &OdeSystem<ForcedVanDerPol>, x0: &[f64], p: &[f64]) -> (Trajectory, Sdirk) {
    let mut integrator = sys.integrator();
    let trajectory =
        record_trajectory(sys, &mut integrator, x0, p, &[], &schedule()).expect("simulate");
    (trajectory, integrator)
}

fn gradient(
    sys: &OdeSystem<ForcedVanDerPol>,
    trajectory: &Trajectory,
    integrator: &Sdirk,
) -> Gradient {
    discrete_adjoint_gradient(
        sys,
        integrator.scheme(),
        trajectory,
        &Energy,
        EventTimeSensitivity::Included,
    )
    .expect("adjoint")
}

#[test]
fn step_jvp_and_vjp_are_transposes() {
    let sys = OdeSystem::<ForcedVanDerPol>::default();
    let (trajectory, integrator) = simulate(&sys, &X0, &PARAMS);
    for k in [0, 12, 29] {
        let tape = &trajectory.steps[k];
        let step = CommunicationLinearization::new(
            &sys,
            integrator.scheme(),
            tape,
            EventTimeSensitivity::Included,
        )
        .unwrap();
        let defect = duality_defect(&step, [0.1, 1.0, 1.0], 3 + k as u64);
        println!(
            "step {k}: {} internal steps, duality defect {defect:e}",
            tape.segments.len()
        );
        assert!(
            tape.segments.len() >= 2,
            "error control takes several steps"
        );
        assert!(defect < 1e-12, "step {k}: {defect:e}");
    }
}

#[test]
fn parameter_and_initial_state_gradients_match_central_differences() {
    let sys = OdeSystem::<ForcedVanDerPol>::default();
    let (trajectory, integrator) = simulate(&sys, &X0, &PARAMS);
    let scheme = integrator.scheme();
    let g = gradient(&sys, &trajectory, &integrator);
    let polynomials: Vec<StepInputs<f64>> = schedule().into_iter().map(|s| s.inputs).collect();
    let replayed = |x0: &[f64], p: &[f64]| {
        let states = replay_trajectory(&sys, scheme, &trajectory, x0, p, &polynomials).unwrap();
        trajectory.cost_of(&states, p, &Energy)
    };
    let fresh = |x0: &[f64], p: &[f64]| {
        let (run, _) = simulate(&sys, x0, p);
        run.cost_of(&run.states(), p, &Energy)
    };
    let steps = relative_steps(&PARAMS, 1e-5);
    let on_schedule = central_differences(&PARAMS, &steps, |p| replayed(&X0, p));
    let error_schedule = relative_error(&g.params, &on_schedule);
    let adaptive = central_differences(&PARAMS, &steps, |p| fresh(&X0, p));
    let error_adaptive = relative_error(&g.params, &adaptive);
    println!(
        "J = {:e}\nadjoint  {:?}\nreplayed {on_schedule:?} ({error_schedule:e})\nadaptive {adaptive:?} ({error_adaptive:e})",
        g.cost, g.params
    );
    assert!(error_schedule < 1e-7, "{error_schedule:e}");
    assert!(error_adaptive < 1e-6, "{error_adaptive:e}");
    let x0_reference = central_differences(&X0, &[1e-6; 2], |x0| replayed(x0, &PARAMS));
    let x0_error = relative_error(&g.initial_state, &x0_reference);
    println!(
        "dJ/dx0 adjoint {:?}, FD {x0_reference:?} ({x0_error:e})",
        g.initial_state
    );
    assert!(x0_error < 1e-7, "{x0_error:e}");
}

#[test]
fn input_gradients_match_central_differences_of_the_replayed_schedule() {
    let sys = OdeSystem::<ForcedVanDerPol>::default();
    let (trajectory, integrator) = simulate(&sys, &X0, &PARAMS);
    let scheme = integrator.scheme();
    let g = gradient(&sys, &trajectory, &integrator);
    let polynomials: Vec<StepInputs<f64>> = schedule().into_iter().map(|s| s.inputs).collect();
    for (k, order) in [(0, 0), (0, 2), (15, 1), (STEPS - 1, 0), (STEPS - 1, 2)] {
        let base = polynomials[k].coefficients[order][0];
        let fd = central_differences(&[base], &[1e-5], |value| {
            let mut inputs = polynomials.clone();
            inputs[k].coefficients[order][0] = value[0];
            let states =
                replay_trajectory(&sys, scheme, &trajectory, &X0, &PARAMS, &inputs).unwrap();
            trajectory.cost_of(&states, &PARAMS, &Energy)
        })[0];
        let adjoint = g.inputs[k][order];
        let error = relative_error(&[adjoint], &[fd]);
        println!("step {k}, coefficient {order}: adjoint {adjoint:e}, FD {fd:e} ({error:e})");
        assert!(error < 1e-6, "step {k}, coefficient {order}: {error:e}");
    }
}

#[test]
fn output_jacobians_match_central_differences() {
    let sys = OdeSystem::<ForcedVanDerPol>::default();
    let (trajectory, integrator) = simulate(&sys, &X0, &PARAMS);
    let scheme = integrator.scheme();
    let tape = &trajectory.steps[10];
    let (t, w) = (tape.t + tape.h, tape.w_end().to_vec());
    let linearization = OutputLinearization::new(&sys, scheme, t, &w, &tape.inputs, &PARAMS, &[]);
    let output = |w: &[f64], flat: &[f64], p: &[f64]| {
        let u = inputs_like(&tape.inputs, flat);
        let mut u_t = [0.0];
        u.eval(t, &mut u_t);
        let mut y = [0.0];
        scheme.outputs(&sys, t, w, &u_t, p, &[], &mut y);
        y[0]
    };
    let flat = flatten_inputs(&tape.inputs);
    let nt = linearization.state.cols();
    let by_state = central_differences(&w[..nt], &[1e-6; 14], |x| {
        let mut full = w.clone();
        full[..nt].copy_from_slice(x);
        output(&full, &flat, &PARAMS)
    });
    let by_inputs = central_differences(&flat, &[1e-6; 3], |f| output(&w, f, &PARAMS));
    let by_params = central_differences(&PARAMS, &[1e-6; 2], |p| output(&w, &flat, p));
    for (name, exact, fd) in [
        ("state", linearization.state.data(), &by_state),
        ("inputs", linearization.inputs.data(), &by_inputs),
        ("params", linearization.params.data(), &by_params),
    ] {
        let error = exact
            .iter()
            .zip(fd)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!("dy/d{name}: {exact:?} (largest difference to FD {error:e})");
        assert!(error < 1e-8, "{name}: {error:e}");
    }
    // Only x enters the output, not the stage derivatives.
    assert!(linearization.state.data()[2..].iter().all(|&v| v == 0.0));
}

#[test]
fn a_step_linearized_without_its_outputs_has_the_same_state_vjp_bit_for_bit() {
    let sys = OdeSystem::<ForcedVanDerPol>::default();
    let mut integrator = sys.integrator();
    let steps = schedule();
    let start = &steps[0].inputs;
    integrator
        .initialize(&sys, 0.0, &X0, start, &PARAMS, &[])
        .unwrap();
    let adjoint = integrator
        .discrete_adjoint()
        .expect("ESDIRK has a discrete adjoint");
    let linearize = |outputs| {
        adjoint
            .linearize_step(&sys, 0.0, STEP, start, &PARAMS, &[], outputs)
            .unwrap()
    };
    let (full, state_only) = (
        linearize(EndOutputs::Linearized),
        linearize(EndOutputs::Skipped),
    );
    assert!(full.outputs.is_some() && state_only.outputs.is_none());
    // A negative zero too: both must turn it into the same zero.
    let w_bar = [0.7, -0.0];
    let bits = |c: &Cotangents| {
        [&c.state, &c.inputs, &c.params].map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
    };
    assert_eq!(
        bits(&full.vjp(&w_bar, &[0.0])),
        bits(&state_only.vjp(&w_bar, &[]))
    );
}
