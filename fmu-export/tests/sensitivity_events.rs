//! Forward sensitivities across state events (Corner et al. 2019), on the digest's test
//! problem (seed-001 digest, Sect. 9), which exercises every term of the jump conditions:
//!
//! ```text
//! x'' = -c x' + 0.3 sin t,   y'' = -g - c y' + 0.5 x,   q0 = (0, 1), v0 = (0.7, 0)
//! event r = y - 0.2 x falling;  jump v+ = (vx + 0.1 x vy, -e vy + 0.05 t)
//! quadratures z1 = int y' dt, z2 = int y'' dt;  p = (g, c, e) = (9.81, 0.2, 0.8), t in [0, 4]
//! ```
//!
//! The references are the digest's state and analytic sensitivities at t = 4 (13 events,
//! computed there with an independent Python implementation of eqs. (33), (35), (38), (48)
//! at rtol 1e-12), and central differences of the replayed discrete solution.

mod adjoint_support;

use adjoint_support::duality_defect;
use fmu_export::adjoint::check::{
    central_difference_jacobian, central_differences, relative_error, relative_steps,
};
use fmu_export::adjoint::{
    discrete_adjoint_gradient, parameter_sensitivities, record_trajectory, replay_trajectory,
    CommunicationLinearization, Cost, EventTimeSensitivity, Matrix, ScheduledStep, Trajectory,
};
use fmu_export::integrators::tape::Segment;
use fmu_export::integrators::Sdirk;
use fmu_export::{
    Args, Crossing, Declaration, DiscreteRole, DiscreteType, Event, Method, OdeModel, OdeSystem,
    Scalar, StepInputs, System, Var,
};

const PARAMS: [f64; 3] = [9.81, 0.2, 0.8];
const X0: [f64; 6] = [0.0, 1.0, 0.7, 0.0, 0.0, 0.0];
const STEP: f64 = 0.1;
const STEPS: usize = 40;

/// States `[x, y, vx, vy, z1, z2]`; `d = [events]`.
#[derive(Default)]
struct Impacts;

impl Impacts {
    fn accelerations<T: Scalar>(a: &Args<T>) -> [T; 2] {
        let (x, p) = (a.x, a.p);
        [
            -p[1] * x[2] + T::cst(0.3) * a.t.sin(),
            -p[0] - p[1] * x[3] + T::cst(0.5) * x[0],
        ]
    }
}

impl OdeModel for Impacts {
    fn declaration(&self) -> Declaration {
        let mut declaration = Declaration::new("impacts", "");
        for (name, start) in ["x", "y", "vx", "vy", "z1", "z2"].into_iter().zip(X0) {
            declaration = declaration.state(Var::new(name, start));
        }
        for (name, value) in ["g", "c", "e"].into_iter().zip(PARAMS) {
            declaration =
                declaration.parameter(Var::new(name, value), fmu_export::Tunability::Tunable);
        }
        declaration
            .discrete(
                Var::new("events", 0.0),
                DiscreteType::Integer,
                DiscreteRole::Output,
            )
            .event_indicators(1)
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-10,
                    atol: 1e-12,
                },
                0.05,
            )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let [ax, ay] = Self::accelerations(a);
        dx[0] = a.x[2];
        dx[1] = a.x[3];
        dx[2] = ax;
        dx[3] = ay;
        dx[4] = a.x[3];
        dx[5] = ay;
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[1] - T::cst(0.2) * a.x[0];
    }
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x: &mut [T], d: &mut [f64]) {
        if event != Event::State(&[Crossing::Falling]) {
            return;
        }
        let (pre, p) = (a.x, a.p);
        x[2] = pre[2] + T::cst(0.1) * pre[0] * pre[3];
        x[3] = -p[2] * pre[3] + T::cst(0.05) * a.t;
        d[0] += 1.0;
    }
}

fn schedule() -> Vec<ScheduledStep> {
    (0..STEPS)
        .map(|k| ScheduledStep {
            h: STEP,
            inputs: StepInputs::held(k as f64 * STEP, &[]),
        })
        .collect()
}

fn simulate(sys: &OdeSystem<Impacts>) -> (Trajectory, Sdirk, Vec<f64>) {
    let mut integrator = sys.integrator();
    let mut d = vec![0.0];
    let trajectory =
        record_trajectory(sys, &mut integrator, &X0, &PARAMS, &d, &schedule()).unwrap();
    d = trajectory.steps.last().unwrap().d_end().to_vec();
    (trajectory, integrator, d)
}

/// Rows `x, y, vx, vy, z1, z2` of `dw_N/dp`.
fn state_rows(sensitivity: &Matrix) -> Vec<f64> {
    (0..6)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| sensitivity.get(i, j))
        .collect()
}

/// The digest's analytic sensitivities at t = 4, rows `x, y, vx, vy, z1, z2`, columns `g, c, e`.
#[rustfmt::skip]
const DIGEST: [f64; 18] = [
    -1.559783544e-01, -8.527734941e-01, 1.563978724e-01,
    -2.629494650e-02, -2.424340872e-01, 4.790713863e-01,
    5.094262137e-02, 1.566691976e+00, -1.061390744e+01,
    -2.490763850e+00, -2.061709590e+01, 2.547857250e+02,
    -2.629494650e-02, -2.424340872e-01, 4.790713863e-01,
    -4.100789052e+00, -5.779274882e-01, 2.413576875e-01,
];

#[test]
fn state_and_sensitivities_at_the_final_time_match_the_reference() {
    let sys = OdeSystem::<Impacts>::default();
    let (trajectory, integrator, d) = simulate(&sys);
    assert_eq!(d[0], 13.0, "13 impacts");
    let state = &trajectory.state(STEPS)[..6];
    let digest_state = [
        0.7899088088,
        0.2438098863,
        -0.6061159030,
        -0.0340737879,
        -0.7561901137,
        -37.443399009,
    ];
    let state_error = relative_error(state, &digest_state);
    println!("state at t = 4: {state:?} (relative error {state_error:e})");
    assert!(state_error < 1e-8, "{state_error:e}");

    let scheme = integrator.scheme();
    let sensitivities =
        parameter_sensitivities(&sys, scheme, &trajectory, EventTimeSensitivity::Included).unwrap();
    let analytic = state_rows(&sensitivities[STEPS]);
    let digest_error = relative_error(&analytic, &DIGEST);
    println!("dw(4)/dp {analytic:?}\nrelative error against the digest {digest_error:e}");
    assert!(digest_error < 1e-6, "{digest_error:e}");

    // Central differences of the replayed discrete solution (same schedule, events
    // re-located), which the forward sensitivities differentiate exactly.
    let held: Vec<StepInputs<f64>> = schedule().into_iter().map(|s| s.inputs).collect();
    let steps: Vec<f64> = PARAMS.iter().map(|p| 1e-6 * p).collect();
    let fd = central_difference_jacobian(&PARAMS, &steps, |p| {
        let states = replay_trajectory(&sys, scheme, &trajectory, &X0, p, &held).unwrap();
        states[STEPS][..6].to_vec()
    });
    let fd_error = relative_error(&analytic, fd.data());
    println!(
        "central differences {:?}\nrelative error {fd_error:e}",
        fd.data()
    );
    assert!(fd_error < 1e-6, "{fd_error:e}");

    // The quadrature z1 = int y' dt equals y - y0, and so does its sensitivity.
    for j in 0..3 {
        let (dz1, dy) = (
            sensitivities[STEPS].get(4, j),
            sensitivities[STEPS].get(1, j),
        );
        assert!(
            (dz1 - dy).abs() <= 1e-9 * dy.abs(),
            "column {j}: {dz1} vs {dy}"
        );
    }
}

#[test]
fn ignoring_the_event_time_sensitivity_gives_wrong_sensitivities() {
    let sys = OdeSystem::<Impacts>::default();
    let (trajectory, integrator, _) = simulate(&sys);
    let frozen = parameter_sensitivities(
        &sys,
        integrator.scheme(),
        &trajectory,
        EventTimeSensitivity::Ignored,
    )
    .unwrap();
    let error = relative_error(&state_rows(&frozen[STEPS]), &DIGEST);
    println!("with the event times held fixed: relative error {error:e}");
    assert!(error > 0.1, "{error:e}");
}

/// A terminal cost `c^T w_N` over the six states.
struct Terminal([f64; 6]);

impl Cost for Terminal {
    fn term<T: Scalar>(&self, k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        if k < STEPS {
            return T::cst(0.0);
        }
        self.0
            .iter()
            .zip(w)
            .fold(T::cst(0.0), |sum, (&c, &wi)| sum + wi * T::cst(c))
    }
}

#[test]
fn the_adjoint_across_events_is_the_transpose_of_the_forward_sensitivities() {
    let sys = OdeSystem::<Impacts>::default();
    let (trajectory, integrator, _) = simulate(&sys);
    let scheme = integrator.scheme();
    let weights = [0.3, -1.0, 0.7, 0.05, 2.0, -0.4];
    let gradient = discrete_adjoint_gradient(
        &sys,
        scheme,
        &trajectory,
        &Terminal(weights),
        EventTimeSensitivity::Included,
    )
    .unwrap();
    let sensitivities =
        parameter_sensitivities(&sys, scheme, &trajectory, EventTimeSensitivity::Included).unwrap();
    let forward: Vec<f64> = (0..3)
        .map(|j| {
            (0..6)
                .map(|i| weights[i] * sensitivities[STEPS].get(i, j))
                .sum()
        })
        .collect();
    let error = relative_error(&gradient.params, &forward);
    println!(
        "adjoint {:?}, forward {forward:?}, relative difference {error:e}",
        gradient.params
    );
    assert!(error < 1e-11, "{error:e}");
}

#[test]
fn steps_with_events_have_transposed_jvp_and_vjp() {
    let sys = OdeSystem::<Impacts>::default();
    let (trajectory, integrator, _) = simulate(&sys);
    let with_events: Vec<usize> = (0..STEPS)
        .filter(|&k| {
            trajectory.steps[k]
                .segments
                .iter()
                .any(|s| matches!(s, Segment::Reset { .. }))
        })
        .collect();
    assert!(with_events.len() >= 10, "{with_events:?}");
    for &k in &with_events {
        let tape = &trajectory.steps[k];
        let step = CommunicationLinearization::new(
            &sys,
            integrator.scheme(),
            tape,
            EventTimeSensitivity::Included,
        )
        .unwrap();
        let defect = duality_defect(&step, [0.1, 1.0, 1.0], 11 + k as u64);
        assert!(defect < 1e-12, "step {k}: {defect:e}");
    }
    println!("{} steps with events, all dual to 1e-12", with_events.len());
}

/// A harmonic oscillator kicked at fixed times: every 0.25 s, `v+ = v- + a x - b`.
#[derive(Default)]
struct Kicked;

impl OdeModel for Kicked {
    fn declaration(&self) -> Declaration {
        Declaration::new("kicked", "")
            .state(Var::new("x", 1.0))
            .state(Var::new("v", 0.0))
            .parameter(Var::new("k", 4.0), fmu_export::Tunability::Tunable)
            .parameter(Var::new("a", 0.3), fmu_export::Tunability::Tunable)
            .parameter(Var::new("b", 0.2), fmu_export::Tunability::Tunable)
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-10,
                    atol: 1e-12,
                },
                0.05,
            )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = a.x[1];
        dx[1] = -a.p[0] * a.x[0];
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x: &mut [T], _d: &mut [f64]) {
        if event == Event::Time {
            x[1] = a.x[1] + a.p[1] * a.x[0] - a.p[2];
        }
    }
    fn next_time_event(&self, t: f64, _p: &[f64], _d: &[f64]) -> Option<f64> {
        Some(((t / 0.25).floor() + 1.0) * 0.25)
    }
}

/// `sum_k STEP x_k^2`.
struct Excursion;

impl Cost for Excursion {
    fn term<T: Scalar>(&self, _k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        w[0] * w[0] * T::cst(STEP)
    }
}

#[test]
fn time_events_with_parameter_dependent_resets_have_exact_gradients() {
    let sys = OdeSystem::<Kicked>::default();
    let (x0, p) = ([1.0, 0.0], [4.0, 0.3, 0.2]);
    let schedule: Vec<ScheduledStep> = (0..20)
        .map(|k| ScheduledStep {
            h: STEP,
            inputs: StepInputs::held(k as f64 * STEP, &[]),
        })
        .collect();
    let mut integrator = sys.integrator();
    let trajectory = record_trajectory(&sys, &mut integrator, &x0, &p, &[], &schedule).unwrap();
    let kicks = trajectory
        .steps
        .iter()
        .flat_map(|t| &t.segments)
        .filter(|s| matches!(s, Segment::Reset { .. }))
        .count();
    assert_eq!(kicks, 8, "kicks at 0.25, 0.5, ..., 2.0");
    let scheme = integrator.scheme();
    let gradient = discrete_adjoint_gradient(
        &sys,
        scheme,
        &trajectory,
        &Excursion,
        EventTimeSensitivity::Included,
    )
    .unwrap();
    let held: Vec<StepInputs<f64>> = schedule.iter().map(|s| s.inputs.clone()).collect();
    let fd = central_differences(&p, &relative_steps(&p, 1e-6), |p| {
        let states = replay_trajectory(&sys, scheme, &trajectory, &x0, p, &held).unwrap();
        trajectory.cost_of(&states, p, &Excursion)
    });
    let error = relative_error(&gradient.params, &fd);
    println!(
        "adjoint {:?}, FD {fd:?}, relative error {error:e}",
        gradient.params
    );
    assert!(error < 1e-7, "{error:e}");
}
