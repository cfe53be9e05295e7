//! The bouncing ball's (ESDIRK with located events) sensitivity outputs `d(y)/d(g)`,
//! `d(y)/d(e)` in Co-Simulation across its first two impacts, against central finite
//! differences, and against the trajectory-level reference [`parameter_sensitivities`]; the
//! reference without the event-time terms misses the differences by far.

use bouncing_ball::BouncingBall;
use fmu_export::adjoint::{
    parameter_sensitivities, record_trajectory, EventTimeSensitivity, ScheduledStep,
};
use fmu_export::{OdeSystem, StepInputs, System};
use tandem_tests::sensitivities::{by_parameter, differences, relative_error, run, H, TOLERANCE};

/// 1.3 s: past the impacts at 0.45 s and 1.08 s, before the ball comes to rest.
const BALL_STEPS: usize = 130;

#[test]
fn bouncing_ball_sensitivities_match_central_differences_across_impacts() {
    let exact = by_parameter(&run::<OdeSystem<BouncingBall>>(BALL_STEPS, &[]).sensitivities);
    let error = relative_error(&exact, &differences::<OdeSystem<BouncingBall>>(BALL_STEPS));
    println!("bouncing ball: largest relative error of d(y)/d(g, e) over two impacts: {error:e}");
    assert!(error < TOLERANCE, "relative error {error:e}");
}

/// The reference sensitivities of the bouncing ball over the same schedule, with or without
/// the event-time terms, as `[s][k][i]` (outputs are the states).
fn reference(event_time: EventTimeSensitivity) -> Vec<Vec<Vec<f64>>> {
    let sys = OdeSystem::<BouncingBall>::default();
    let decl = sys.declaration().clone();
    let schedule: Vec<ScheduledStep> = (0..BALL_STEPS)
        .map(|k| ScheduledStep {
            h: H,
            inputs: StepInputs::held(k as f64 * H, &[]),
        })
        .collect();
    let mut integrator = sys.integrator();
    let (x0, p, d0) = (
        decl.state_starts(),
        decl.parameter_starts(),
        decl.discrete_starts(),
    );
    let trajectory = record_trajectory(&sys, &mut integrator, &x0, &p, &d0, &schedule).unwrap();
    let matrices =
        parameter_sensitivities(&sys, integrator.scheme(), &trajectory, event_time).unwrap();
    decl.sensitivities
        .iter()
        .map(|&j| {
            matrices[1..]
                .iter()
                .map(|m| (0..decl.outputs.len()).map(|i| m.get(i, j)).collect())
                .collect()
        })
        .collect()
}

#[test]
fn bouncing_ball_sensitivities_need_the_jump_conditions() {
    let exact = by_parameter(&run::<OdeSystem<BouncingBall>>(BALL_STEPS, &[]).sensitivities);
    let with_jumps = relative_error(&exact, &reference(EventTimeSensitivity::Included));
    println!("against the trajectory reference: {with_jumps:e}");
    assert!(with_jumps < 1e-10, "relative difference {with_jumps:e}");
    let differences = differences::<OdeSystem<BouncingBall>>(BALL_STEPS);
    let without_jumps = relative_error(&reference(EventTimeSensitivity::Ignored), &differences);
    println!("without the event-time terms, against differences: {without_jumps:e}");
    assert!(
        without_jumps > 1e-2,
        "relative error only {without_jumps:e}"
    );
}
