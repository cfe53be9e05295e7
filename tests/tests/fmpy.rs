//! Every packaged FMU checked by FMPy, an independent FMI client: its model description
//! validates, it simulates through Model Exchange (CVode) and Co-Simulation, the oscillator
//! and the state-space system (array parameters) agree with their closed-form solutions and
//! the bouncing ball with its analytic impact times.

use fmu_export::variables::sensitivity_name;
use tandem_tests::bouncing_ball::{increments, DroppedBall};
use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::fmus::{self, FmiVersion};
use tandem_tests::lti::Lti2;
use tandem_tests::oscillator::DampedOscillator;
use tandem_tests::trajectory::Trajectory;

/// The oscillator scenario (the HHT discrete-adjoint paper's academic example), set explicitly
/// as start values so the test does not depend on the model's defaults.
const OSCILLATOR: DampedOscillator = DampedOscillator {
    m: 2.0,
    c: 400.0,
    d: 3.0,
    x0: 0.01,
    v0: 0.0,
};

fn oscillator_start_values() -> [(&'static str, f64); 5] {
    let o = OSCILLATOR;
    [("m", o.m), ("c", o.c), ("d", o.d), ("x", o.x0), ("v", o.v0)]
}

/// Error of the last recorded state against the closed form, in
/// [`DampedOscillator::relative_error`]'s norm.
fn oscillator_error(result: &Trajectory) -> f64 {
    let t = result.last("time");
    OSCILLATOR.relative_error(
        [result.last("position"), result.last("velocity")],
        OSCILLATOR.state(t),
    )
}

#[test]
fn every_model_has_an_fmi2_and_an_fmi3_fmu() {
    let models = |version: FmiVersion| -> Vec<&str> {
        fmus::all()
            .iter()
            .filter(|f| f.version == version)
            .map(|f| f.model.as_str())
            .collect()
    };
    assert!(
        models(FmiVersion::Fmi2).contains(&"oscillator"),
        "{:?}",
        fmus::all()
    );
    assert_eq!(models(FmiVersion::Fmi2), models(FmiVersion::Fmi3));
}

#[test]
fn fmpy_validate_finds_no_problem_in_any_fmu() {
    let problems: Vec<String> = fmus::all()
        .iter()
        .filter_map(|fmu| {
            fmpy::validate(&fmu.path)
                .err()
                .map(|p| format!("{}:\n{p}", fmu.path.display()))
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_fmu_simulates_its_default_experiment_in_both_interfaces() {
    let mut failures = Vec::new();
    for fmu in fmus::all() {
        for interface in [Interface::ModelExchange, Interface::CoSimulation] {
            match fmpy::simulate(&fmu.path, &Simulation::new(interface)) {
                Ok(result)
                    if result.rows.len() > 1
                        && result.rows.iter().flatten().all(|v| v.is_finite()) => {}
                Ok(result) => failures.push(format!(
                    "{} {interface:?}: {} rows, or non-finite values",
                    fmu.path.display(),
                    result.rows.len()
                )),
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Model Exchange under CVode with relative tolerance 1e-9 (absolute tolerance 1e-9 times the
/// state nominals, FMPy's rule) must stay within 1e-6 of the closed form after 10 s (about 22
/// periods).
fn model_exchange_matches_the_closed_form(version: FmiVersion) {
    let start_values = oscillator_start_values();
    let simulation = Simulation {
        stop_time: Some(10.0),
        output_interval: Some(1e-2),
        relative_tolerance: Some(1e-9),
        start_values: &start_values,
        outputs: &["position", "velocity"],
        ..Simulation::new(Interface::ModelExchange)
    };
    let result = fmpy::simulate(&fmus::find("oscillator", version).path, &simulation).unwrap();
    assert!(
        (result.last("time") - 10.0).abs() < 1e-9,
        "stopped at {}",
        result.last("time")
    );
    let error = oscillator_error(&result);
    assert!(
        error < 1e-6,
        "{version:?} Model Exchange: relative error {error:e} at t = 10 s"
    );
}

#[test]
fn oscillator_fmi2_model_exchange_matches_the_closed_form() {
    model_exchange_matches_the_closed_form(FmiVersion::Fmi2);
}

#[test]
fn oscillator_fmi3_model_exchange_matches_the_closed_form() {
    model_exchange_matches_the_closed_form(FmiVersion::Fmi3);
}

/// Co-simulation with communication steps h, h/2, h/4 (at most the model's largest internal
/// step, 1 ms, so each doStep is one HHT step) over 1 s: halving the step must divide the error
/// by about 4, HHT-alpha being second-order accurate.
fn co_simulation_converges_at_second_order(version: FmiVersion) {
    let start_values = oscillator_start_values();
    let fmu = &fmus::find("oscillator", version).path;
    let errors: Vec<f64> = [1e-3, 5e-4, 2.5e-4]
        .iter()
        .map(|&h| {
            let simulation = Simulation {
                stop_time: Some(1.0),
                output_interval: Some(h),
                start_values: &start_values,
                outputs: &["position", "velocity"],
                ..Simulation::new(Interface::CoSimulation)
            };
            let result = fmpy::simulate(fmu, &simulation).unwrap();
            assert!(
                (result.last("time") - 1.0).abs() < 1e-9,
                "h = {h}: stopped at {}",
                result.last("time")
            );
            oscillator_error(&result)
        })
        .collect();
    let orders: Vec<f64> = errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
    assert!(
        orders.iter().all(|p| (1.7..2.3).contains(p)),
        "{version:?} Co-Simulation: errors {errors:?} give observed orders {orders:?}, expected 2"
    );
}

#[test]
fn oscillator_fmi2_co_simulation_converges_at_second_order() {
    co_simulation_converges_at_second_order(FmiVersion::Fmi2);
}

#[test]
fn oscillator_fmi3_co_simulation_converges_at_second_order() {
    co_simulation_converges_at_second_order(FmiVersion::Fmi3);
}

/// The bouncing ball dropped from 1 m, with the model's rest condition.
const BALL: DroppedBall = DroppedBall {
    h0: 1.0,
    g: 9.81,
    e: 0.7,
    rest_speed: bouncing_ball::REST_SPEED,
};

/// Output interval, which is also the co-simulation communication step.
const BALL_INTERVAL: f64 = 1e-3;

/// Required agreement of the impact times with the analytic ones. Both interfaces locate the
/// impacts to far better than this: CVode's root finding (FMPy records the event instant
/// itself) and the FMU's own event location inside doStep (to a 1e-12 s bracket, the impact
/// time then being recovered exactly from the first sample of the following flight, whose
/// parabola every integrator of order >= 2 reproduces). The measured errors are printed.
const BALL_TOLERANCE: f64 = 1e-6;

/// FMPy simulates the ball for 3 s; each increment of the `bounces` counter is an impact. The
/// impact time is recovered from the first sample after it ([`DroppedBall::impact_before`]),
/// except for the last impact in Co-Simulation: it leaves the ball at rest, where the samples
/// no longer tell when it happened, so that one is only known to lie within the communication
/// step that counted it.
fn bounce_times_match_the_analytic_ones(version: FmiVersion, interface: Interface) {
    let start_values = [("h", BALL.h0), ("v", 0.0), ("g", BALL.g), ("e", BALL.e)];
    let simulation = Simulation {
        stop_time: Some(3.0),
        output_interval: Some(BALL_INTERVAL),
        relative_tolerance: Some(1e-10),
        start_values: &start_values,
        outputs: &["height", "velocity", "bounces"],
        ..Simulation::new(interface)
    };
    let result = fmpy::simulate(&fmus::find("bouncing_ball", version).path, &simulation).unwrap();
    let expected = BALL.impact_times();
    let rows = increments(&result, "bounces");
    assert_eq!(
        rows.len(),
        expected.len(),
        "{version:?} {interface:?}: impacts at rows {rows:?}"
    );
    let (time, height, velocity) = (
        result.column("time"),
        result.column("height"),
        result.column("velocity"),
    );
    let mut worst: f64 = 0.0;
    for (k, (&row, &exact)) in rows.iter().zip(&expected).enumerate() {
        let (t, h, v) = (time[row], height[row], velocity[row]);
        if interface == Interface::CoSimulation && k + 1 == expected.len() {
            assert!(
                t - BALL_INTERVAL - BALL_TOLERANCE <= exact && exact <= t + BALL_TOLERANCE,
                "{version:?} {interface:?}: the resting impact at {exact} s was counted at {t} s"
            );
            continue;
        }
        let error = (BALL.impact_before(t, h, v) - exact).abs();
        worst = worst.max(error);
        assert!(
            error <= BALL_TOLERANCE,
            "{version:?} {interface:?}: impact {} at {} s, analytic {exact} s",
            k + 1,
            BALL.impact_before(t, h, v)
        );
    }
    eprintln!("bouncing_ball {version:?} {interface:?}: worst impact-time error {worst:.2e} s");
}

#[test]
fn bouncing_ball_fmi2_model_exchange_bounces_at_the_analytic_times() {
    bounce_times_match_the_analytic_ones(FmiVersion::Fmi2, Interface::ModelExchange);
}

#[test]
fn bouncing_ball_fmi3_model_exchange_bounces_at_the_analytic_times() {
    bounce_times_match_the_analytic_ones(FmiVersion::Fmi3, Interface::ModelExchange);
}

#[test]
fn bouncing_ball_fmi2_co_simulation_bounces_at_the_analytic_times() {
    bounce_times_match_the_analytic_ones(FmiVersion::Fmi2, Interface::CoSimulation);
}

#[test]
fn bouncing_ball_fmi3_co_simulation_bounces_at_the_analytic_times() {
    bounce_times_match_the_analytic_ones(FmiVersion::Fmi3, Interface::CoSimulation);
}

/// The steel law (a hybrid system with memory: every velocity reversal starts a new branch)
/// under FMPy's CVode: its indicator `v` starts at zero with zero rate, so only the values FMPy
/// reads can arm it (FMPy skips fmiCompletedIntegratorStep). Missing the first reversal sends
/// the law off its branch and CVode stops near t = 1.3 s; with every reversal seen, the cost
/// `G = int u^2 dt` reaches the digest's 0.04994 (seed 002, example 5.2) and agrees with the
/// Co-Simulation interface.
#[test]
fn the_steel_law_sees_every_velocity_reversal_under_cvode() {
    for version in FmiVersion::ALL {
        let fmu = fmus::find("steel_law", version);
        let run = |interface| {
            let simulation = Simulation {
                outputs: &["integral"],
                ..Simulation::new(interface)
            };
            fmpy::simulate(&fmu.path, &simulation).unwrap_or_else(|e| panic!("{e}"))
        };
        let (me, cs) = (run(Interface::ModelExchange), run(Interface::CoSimulation));
        assert_eq!(me.last("time"), 10.0, "{version:?}: ME stopped early");
        let g = me.last("integral");
        assert!((g / 0.04994 - 1.0).abs() < 1e-4, "{version:?}: G = {g}");
        let g_cs = cs.last("integral");
        assert!(
            (g / g_cs - 1.0).abs() < 1e-5,
            "{version:?}: ME G = {g}, CS G = {g_cs}"
        );
    }
}

/// Relative move of the parameter in the finite differences of two FMPy runs.
const SENSITIVITY_DELTA: f64 = 1e-5;

/// Required agreement of the recorded sensitivity with the differences, relative to the
/// sensitivity (or to 1e-3 of its largest recorded value, for samples near a zero).
const SENSITIVITY_TOLERANCE: f64 = 1e-6;

/// FMPy simulates `model` in Co-Simulation and records `d(y)/d(p)`; it must match the central
/// differences of `y` from two more FMPy runs with `p` moved by [`SENSITIVITY_DELTA`].
fn recorded_sensitivity_matches_differences(
    model: &str,
    version: FmiVersion,
    (p, value): (&str, f64),
    y: &str,
    stop_time: f64,
) {
    let fmu = &fmus::find(model, version).path;
    let sensitivity = sensitivity_name(y, p);
    let simulate = |value: f64, outputs: &[&str]| {
        let start_values = [(p, value)];
        let simulation = Simulation {
            stop_time: Some(stop_time),
            output_interval: Some(1e-2),
            start_values: &start_values,
            outputs,
            ..Simulation::new(Interface::CoSimulation)
        };
        fmpy::simulate(fmu, &simulation).unwrap_or_else(|e| panic!("{e}"))
    };
    let recorded = simulate(value, &[y, &sensitivity]).column(&sensitivity);
    let dp = SENSITIVITY_DELTA * value.abs();
    let (plus, minus) = (
        simulate(value + dp, &[y]).column(y),
        simulate(value - dp, &[y]).column(y),
    );
    assert_eq!(recorded.len(), plus.len());
    let largest = recorded.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    assert!(largest > 0.0, "{sensitivity} is zero throughout");
    let error = recorded
        .iter()
        .zip(plus.iter().zip(&minus))
        .map(|(s, (a, b))| (s - (a - b) / (2.0 * dp)).abs() / s.abs().max(1e-3 * largest))
        .fold(0.0_f64, f64::max);
    println!("{model} {version:?}: {sensitivity} against differences of two FMPy runs: {error:e}");
    assert!(
        error < SENSITIVITY_TOLERANCE,
        "{model} {version:?} {sensitivity}: relative error {error:e}"
    );
}

#[test]
fn fmpy_records_the_oscillator_sensitivities() {
    for version in FmiVersion::ALL {
        recorded_sensitivity_matches_differences(
            "oscillator",
            version,
            ("c", 400.0),
            "position",
            1.0,
        );
    }
}

#[test]
fn fmpy_records_the_bouncing_ball_sensitivities_across_impacts() {
    for version in FmiVersion::ALL {
        recorded_sensitivity_matches_differences(
            "bouncing_ball",
            version,
            ("e", 0.7),
            "velocity",
            1.3,
        );
    }
}

#[test]
fn string_variables_are_set_read_saved_and_reset_through_fmpy() {
    for version in FmiVersion::ALL {
        let fmu = fmus::find("bouncing_ball", version);
        let r = fmpy::strings(&fmu.path, "surface", "trampoline \u{e9}", "status", 3.0)
            .unwrap_or_else(|e| panic!("{e}"));
        let context = format!("{}: {r}", fmu.path.display());
        assert_eq!(r["start"], "ground", "{context}");
        assert_eq!(
            r["initial"],
            serde_json::json!([
                "trampoline \u{e9}",
                "bouncing on the trampoline \u{e9} after 0 impacts"
            ]),
            "{context}"
        );
        let impacts = r["integers"]["bounces"]
            .as_i64()
            .expect("bounces is an Integer");
        let phase = if r["booleans"]["resting"] == true {
            "resting"
        } else {
            "bouncing"
        };
        assert!(impacts > 3, "{context}");
        let status = format!("{phase} on the trampoline \u{e9} after {impacts} impacts");
        assert_eq!(
            r["final"],
            serde_json::json!([status, "trampoline \u{e9}"]),
            "{context}"
        );
        assert_eq!(r["late_set_refused"], true, "{context}");
        assert_eq!(r["after_reset"], "ground", "{context}");
        assert_eq!(
            r["after_restore"],
            serde_json::json!(["trampoline \u{e9}", status]),
            "{context}"
        );
    }
}

/// The state-space model at its start values: `A` a lightly damped oscillator
/// (`x1'' + 0.4 x1' + 4 x1 = u`), `x(0) = (1, 0)`, `y = x1`, the input at zero.
const STATE_SPACE: Lti2 = Lti2 {
    a: [0.0, 1.0, -4.0, -0.4],
    c: [1.0, 0.0],
    x0: [1.0, 0.0],
};

/// Required agreement of the state-space output with the closed form over 10 s, relative to
/// the initial amplitude: CVode at relative tolerance 1e-9 and the FMU's SDIRK (1e-8) reach
/// about 1e-7.
const STATE_SPACE_TOLERANCE: f64 = 1e-6;

/// FMPy simulates the state-space FMU of `version` for 10 s with the interface and start values
/// of `start`; every sample of `y` must agree with `expected`.
fn state_space_matches_the_closed_form(version: FmiVersion, start: Simulation, expected: Lti2) {
    let simulation = Simulation {
        stop_time: Some(10.0),
        output_interval: Some(1e-2),
        relative_tolerance: Some(1e-9),
        outputs: &["y"],
        ..start
    };
    let fmu = fmus::find("state_space", version);
    let result = fmpy::simulate(&fmu.path, &simulation).unwrap_or_else(|e| panic!("{e}"));
    let (time, y) = (result.column("time"), result.column("y"));
    let interface = simulation.interface;
    assert!(
        (result.last("time") - 10.0).abs() < 1e-9 && time.len() > 900,
        "{version:?} {interface:?}: {} samples up to {} s",
        time.len(),
        result.last("time")
    );
    let error = time
        .iter()
        .zip(&y)
        .map(|(&t, &y)| (y - expected.output(t)).abs())
        .fold(0.0_f64, f64::max);
    eprintln!(
        "state_space {version:?} {interface:?} {:?} {:?}: worst error {error:.2e}",
        simulation.start_values, simulation.start_arrays
    );
    assert!(
        error < STATE_SPACE_TOLERANCE,
        "{version:?} {interface:?}: y differs from the closed form by {error:e}"
    );
}

#[test]
fn state_space_agrees_with_the_closed_form_in_both_versions_and_interfaces() {
    for version in FmiVersion::ALL {
        for interface in [Interface::ModelExchange, Interface::CoSimulation] {
            state_space_matches_the_closed_form(version, Simulation::new(interface), STATE_SPACE);
        }
    }
}

/// Another `A` (stiffer, more damped) and initial state, set through FMPy: FMI 2.0 hosts set
/// the elements as the scalars `A[i,j]`, FMI 3.0 hosts the array whole.
#[test]
fn state_space_matrices_set_by_fmpy_change_the_response() {
    let a = [0.0, 1.0, -9.0, -0.6];
    let expected = Lti2 {
        a,
        x0: [1.0, 0.5],
        ..STATE_SPACE
    };
    let elements = [("A[2,1]", a[2]), ("A[2,2]", a[3]), ("x2", 0.5)];
    let arrays: [(&str, &[f64]); 1] = [("A", &a)];
    for interface in [Interface::ModelExchange, Interface::CoSimulation] {
        let fmi2 = Simulation {
            start_values: &elements,
            ..Simulation::new(interface)
        };
        state_space_matches_the_closed_form(FmiVersion::Fmi2, fmi2, expected);
        let fmi3 = Simulation {
            start_values: &[("x2", 0.5)],
            start_arrays: &arrays,
            ..Simulation::new(interface)
        };
        state_space_matches_the_closed_form(FmiVersion::Fmi3, fmi3, expected);
    }
}
