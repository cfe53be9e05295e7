//! Every packaged FMU checked by FMPy, an independent FMI client: its model description
//! validates, it simulates through Model Exchange (CVode) and Co-Simulation, and the oscillator
//! agrees with its closed-form solution.

use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::fmus::{self, FmiVersion};
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
