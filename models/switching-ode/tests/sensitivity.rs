//! Example 5.1 of Serban & Recuero (2019): `dG/dp = -2.31195` by forward sensitivities and by
//! the discrete adjoint with the jump conditions at the three switches; without the
//! event-time sensitivity the gradient vanishes (their footnote 4).
//!
//! Reference values from the digest's exact piecewise-analytic solution (30-digit arithmetic):
//! `G = 20.0290746533596`, `dG/dp = -2.31195310744389`, switches at
//! t = 0.219215922289804, 0.275812591473484, 1.26634784179607.

use fmu_export::adjoint::{
    discrete_adjoint_gradient, parameter_sensitivities, record_trajectory, Cost,
    EventTimeSensitivity, ScheduledStep, Trajectory,
};
use fmu_export::integrators::tape::Segment;
use fmu_export::integrators::Sdirk;
use fmu_export::{OdeSystem, Scalar, StepInputs, System};
use switching_ode::SwitchingOde;

const STEP: f64 = 0.1;
const STEPS: usize = 50;
const PAPER_GRADIENT: f64 = -2.31195;
const EXACT_GRADIENT: f64 = -2.31195310744389;
const EXACT_G: f64 = 20.0290746533596;
const SWITCHES: [f64; 3] = [0.219215922289804, 0.275812591473484, 1.26634784179607];

/// `G(5)`, the quadrature state at the last point.
struct FinalIntegral;

impl Cost for FinalIntegral {
    fn term<T: Scalar>(&self, k: usize, _t: f64, w: &[T], _p: &[T]) -> T {
        if k == STEPS {
            w[1]
        } else {
            T::cst(0.0)
        }
    }
}

fn simulate(sys: &OdeSystem<SwitchingOde>) -> (Trajectory, Sdirk) {
    let schedule: Vec<ScheduledStep> = (0..STEPS)
        .map(|k| ScheduledStep {
            h: STEP,
            inputs: StepInputs::held(k as f64 * STEP, &[]),
        })
        .collect();
    let declaration = sys.declaration();
    let mut integrator = sys.integrator();
    let (x0, p, d0) = (
        declaration.state_starts(),
        declaration.parameter_starts(),
        declaration.discrete_starts(),
    );
    let trajectory = record_trajectory(sys, &mut integrator, &x0, &p, &d0, &schedule).unwrap();
    (trajectory, integrator)
}

#[test]
fn the_gradient_of_the_integral_is_the_papers_by_adjoint_and_forward_mode() {
    let sys = OdeSystem::<SwitchingOde>::default();
    let (trajectory, integrator) = simulate(&sys);
    let switches: Vec<f64> = trajectory
        .steps
        .iter()
        .flat_map(|tape| &tape.segments)
        .filter_map(|s| match s {
            Segment::Reset { t, .. } => Some(*t),
            Segment::Step { .. } => None,
        })
        .collect();
    println!("switches at {switches:?}");
    assert_eq!(switches.len(), 3);
    assert!(switches
        .iter()
        .zip(SWITCHES)
        .all(|(t, exact)| (t - exact).abs() < 1e-9));
    let g = trajectory.state(STEPS)[1];
    println!("G = {g} (exact {EXACT_G}, error {:e})", g - EXACT_G);
    assert!((g - EXACT_G).abs() < 1e-8 * EXACT_G);

    let scheme = integrator.scheme();
    let adjoint = discrete_adjoint_gradient(
        &sys,
        scheme,
        &trajectory,
        &FinalIntegral,
        EventTimeSensitivity::Included,
    )
    .unwrap()
    .params[0];
    let forward =
        parameter_sensitivities(&sys, scheme, &trajectory, EventTimeSensitivity::Included).unwrap()
            [STEPS]
            .get(1, 0);
    println!(
        "dG/dp: adjoint {adjoint:.15}, forward {forward:.15}; against the paper {:e}, against the exact value {:e}",
        adjoint - PAPER_GRADIENT,
        adjoint - EXACT_GRADIENT
    );
    assert!((adjoint - PAPER_GRADIENT).abs() < 5e-6);
    assert!((adjoint - EXACT_GRADIENT).abs() < 1e-7);
    assert!((adjoint - forward).abs() < 1e-12 * forward.abs());
}

#[test]
fn without_the_event_time_sensitivity_the_gradient_vanishes() {
    let sys = OdeSystem::<SwitchingOde>::default();
    let (trajectory, integrator) = simulate(&sys);
    let gradient = discrete_adjoint_gradient(
        &sys,
        integrator.scheme(),
        &trajectory,
        &FinalIntegral,
        EventTimeSensitivity::Ignored,
    )
    .unwrap();
    println!(
        "dG/dp with the switching times held fixed: {}",
        gradient.params[0]
    );
    assert_eq!(gradient.params[0], 0.0);
}
