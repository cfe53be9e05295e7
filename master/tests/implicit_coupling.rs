//! Implicit coupling on the double oscillator of the energy study (`master/systems/
//! energy-double-oscillator.toml`: Jacobi, zero-order hold, H = 1 ms, 10 s) with a stiff
//! coupling spring, where explicit coupling diverges: each macro step repeated until the
//! values exchanged at its end agree. The masses as Co-Simulation FMUs taking one step per
//! macro step, Newton's Jacobian from their directional derivatives (exact: one iteration per
//! step), or ten, from the derivatives of their steps (one iteration too); with ten sub-steps
//! per macro step or as Model Exchange FMUs integrated by the master, the energy stays within
//! 1 % of its start value. The three Jacobians converge to
//! the same values; errors name what is wrong. A re-run from a snapshot repeats the steps bit
//! for bit; `tandem gradient` takes the adjoint through the converged interface of every macro
//! point, through the sub-steps that hold the line toward it too (central differences of whole
//! runs where Model Exchange components integrate along the iterate), and `tandem identify`
//! fits with it.

mod common;

use std::path::{Path, PathBuf};

use common::energy::{run_system, system_file, Finished, Variant};
use common::engine_mount::{fitted, measure};
use common::{fmu_with_model_description, tandem};
use tandem::instance::LogSettings;
use tandem::schedule::{CoSimulation, Progress};
use tandem::system::{resolve_port, LoadOptions, System};
use tandem::time_grid::grid_point;

const SYSTEM: &str = "energy-double-oscillator";

/// The largest `|E(t) - E0| / E0` of a run.
fn energy_drift(run: &Finished) -> f64 {
    let energy = run.column("total_energy");
    let e0 = energy[0];
    energy
        .iter()
        .map(|e| (e - e0).abs() / e0)
        .fold(0.0, f64::max)
}

/// The folder of the test FMUs (FMI 3.0), built on the first call.
fn fmu_dir() -> PathBuf {
    tandem_tests::fmus::find("mass", tandem_tests::fmus::FmiVersion::Fmi3)
        .path
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The system file's schedule kind.
const JACOBI: &str = "kind = \"jacobi\"";
/// Gauss-Seidel in the order of the file's components.
const GAUSS_SEIDEL: &str = "kind = \"gauss-seidel\"";

/// The double oscillator with coupling stiffness `kc`, `schedule` the lines added to its
/// `[schedule]`, `masses` the lines added to both components, stopped at `stop`.
fn run_coupled(kc: &str, schedule: &str, masses: &str, stop: f64) -> Finished {
    run_coupled_as(JACOBI, kc, schedule, masses, stop)
}

/// [`run_coupled`] with the schedule's kind (and order) the lines `kind`.
fn run_coupled_as(kind: &str, kc: &str, schedule: &str, masses: &str, stop: f64) -> Finished {
    let kc = format!("kc = {kc},");
    let schedule = format!("extrapolation = \"zoh\"\n{schedule}");
    let m1 = format!("name = \"m1\"\n{masses}");
    let m2 = format!("name = \"m2\"\n{masses}");
    let edits = [
        ("kc = 100.0,", kc.as_str()),
        (JACOBI, kind),
        ("extrapolation = \"zoh\"", schedule.as_str()),
        ("name = \"m1\"", m1.as_str()),
        ("name = \"m2\"", m2.as_str()),
    ];
    run_system(
        SYSTEM,
        &Variant {
            edits: &edits,
            stop_time: Some(stop),
            ..Variant::default()
        },
    )
}

/// Asserts that `run`'s `columns` agree with `reference`'s within 1e-8 (relative; absolute
/// below 1); `label` names the run.
fn assert_columns_agree(run: &Finished, reference: &Finished, columns: &[&str], label: &str) {
    for column in columns {
        for (a, b) in run.column(column).iter().zip(reference.column(column)) {
            assert!(
                (a - b).abs() <= 1e-8 * b.abs().max(1.0),
                "{label}: {column} {a} against {b}"
            );
        }
    }
}

#[test]
fn a_stiff_coupling_that_explicit_jacobi_cannot_hold_stays_stable_implicitly() {
    let explicit = run_coupled("1e4", "", "", 10.0);
    assert!(
        energy_drift(&explicit) > 1e6,
        "explicit: {}",
        energy_drift(&explicit)
    );
    for kc in ["1e4", "1e5"] {
        let run = run_coupled(kc, "implicit = true", "", 10.0);
        let report = run.summary.implicit.clone().expect("an implicit report");
        // The masses' states do not depend on the iterate over a step (their inputs are held
        // at its start), only the coupling force read at its end: the Jacobian is the
        // directional derivatives of that force, exact, and Newton needs one iteration.
        assert_eq!(report.jacobian.to_string(), "directional-derivatives");
        assert_eq!((report.steps, report.most_iterations), (10_000, 1));
        assert_eq!(report.jacobians, 1, "a linear system keeps its Jacobian");
        // Bounded by the masses' own symplectic Euler steps: measured 7.7 % and 28.9 %.
        let drift = energy_drift(&run);
        assert!(drift < 0.3, "kc = {kc}: energy drift {drift}");
    }
}

#[test]
fn with_sub_steps_or_as_model_exchange_the_stiff_oscillator_keeps_its_energy_within_one_percent() {
    let sub_steps = run_coupled(
        "1e4",
        "implicit = { jacobian = \"broyden\" }",
        "step = 1e-4",
        10.0,
    );
    let drift = energy_drift(&sub_steps);
    assert!(drift < 0.01, "ten sub-steps: energy drift {drift}");
    let report = sub_steps.summary.implicit.expect("an implicit report");
    assert!(report.most_iterations <= 3, "{report}");
    assert!(report.updates > 0, "{report}");

    let model_exchange = run_coupled("1e4", "implicit = true", "interface = \"me\"", 10.0);
    let drift = energy_drift(&model_exchange);
    assert!(drift < 0.01, "Model Exchange: energy drift {drift}");
    let report = model_exchange.summary.implicit.expect("an implicit report");
    // The master integrates along the iterate: no directional derivatives give the Jacobian.
    assert_eq!(report.jacobian.to_string(), "differences");
    assert!(report.most_iterations <= 3, "{report}");
}

#[test]
fn sub_stepped_tandem_fmus_give_newton_the_exact_jacobian_of_their_steps() {
    // Ten sub-steps per macro step hold the inputs on the line toward the iterate, so the
    // masses' states at the end depend on it: the step JVPs of the adjoint extension, carried
    // through the sub-steps, give the Jacobian. The oscillator is linear, so an exact Jacobian
    // converges in one iteration per step (measured over 10 s: differences take 2.01 under
    // Jacobi, 2.00 under Gauss-Seidel, and 1.5 times the FMU calls).
    let masses = "step = 1e-4";
    let columns = ["m1.position", "m2.position", "m1.f"];
    let differences = "implicit = { jacobian = \"differences\", tolerance = 1e-12 }";
    let reference = run_coupled("1e4", differences, masses, 1.0);
    let gauss_seidel = "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]";
    for kind in [JACOBI, gauss_seidel] {
        let run = run_coupled_as(kind, "1e4", "implicit = true", masses, 1.0);
        let report = run.summary.implicit.clone().expect("an implicit report");
        assert_eq!(report.jacobian.to_string(), "directional-derivatives");
        assert_eq!(
            (report.steps, report.most_iterations),
            (1000, 1),
            "{report}"
        );
        assert_eq!(
            report.jacobians, 1,
            "a linear system keeps its Jacobian: {report}"
        );
        assert_columns_agree(&run, &reference, &columns, kind);
    }
}

#[test]
fn on_the_hermite_waveform_the_stiffer_spring_keeps_its_energy_within_one_percent_too() {
    // On the line the inputs err by about (omega H)^2 / 8 of the motion, 1.3 % of the energy
    // at kc = 1e5 (omega H = 0.32); on the cubic through the values and their rates, by order
    // (omega H)^4. Measured: the line 1.27 %, the cubic 0.080 % (Jacobi and Gauss-Seidel).
    let masses = "interface = \"me\"";
    let line = run_coupled("1e5", "implicit = true", masses, 10.0);
    let drift = energy_drift(&line);
    assert!(drift > 0.01, "the line: energy drift {drift}");
    let hermite = "implicit = { waveform = \"hermite\" }";
    for kind in [JACOBI, GAUSS_SEIDEL] {
        let run = run_coupled_as(kind, "1e5", hermite, masses, 10.0);
        let drift = energy_drift(&run);
        assert!(drift < 0.002, "{kind}: energy drift {drift}");
        let report = run.summary.implicit.expect("an implicit report");
        assert_eq!(report.jacobian.to_string(), "differences", "{kind}");
        assert_eq!(report.steps, 10_000, "{kind}");
        assert!(report.most_iterations <= 3, "{kind}: {report}");
    }
    // Jacobi iterates every connected value and its rate: m1.f, m2.position, m2.velocity.
    let stiff = run_coupled("1e4", hermite, masses, 10.0);
    let drift = energy_drift(&stiff);
    assert!(drift < 1e-4, "kc = 1e4: energy drift {drift}");
    let report = stiff.summary.implicit.expect("an implicit report");
    assert_eq!(report.unknowns, 6, "{report}");
    assert!(report.most_iterations <= 3, "{report}");
}

#[test]
fn every_jacobian_converges_to_the_same_values_under_either_schedule() {
    let columns = ["m1.position", "m2.position", "m1.f"];
    let reference = run_coupled("1e4", "implicit = { jacobian = \"differences\" }", "", 1.0);
    let variants = [
        (
            JACOBI,
            "implicit = { jacobian = \"directional-derivatives\" }",
        ),
        (
            JACOBI,
            "implicit = { jacobian = \"broyden\", tolerance = 1e-12 }",
        ),
        (GAUSS_SEIDEL, "implicit = true"),
    ];
    for (kind, schedule) in variants {
        let run = run_coupled_as(kind, "1e4", schedule, "", 1.0);
        assert_columns_agree(&run, &reference, &columns, &format!("{kind}, {schedule}"));
    }
}

#[test]
fn settings_and_fmus_that_cannot_iterate_are_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(system_file(SYSTEM)).unwrap();
    let fmus = fmu_dir();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let result = dir.path().join("result.csv");
    let run = |path: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            path.to_str().unwrap(),
            "--fmu-dir",
            fmus.to_str().unwrap(),
            "--output-file",
            result.to_str().unwrap(),
            "--stop-time",
            "0.01",
        ];
        args.extend_from_slice(extra);
        tandem(&args)
    };
    let bad = write(
        "tolerance.toml",
        &text.replace("extrapolation = \"zoh\"", "implicit = { tolerance = 0.0 }"),
    );
    run(&bad, &[])
        .assert_fails_with("line 36: schedule.implicit.tolerance = 0: must lie between 0 and 1");
    let unknown = write(
        "unknown.toml",
        &text.replace(
            "extrapolation = \"zoh\"",
            "implicit = { jacobain = \"broyden\" }",
        ),
    );
    run(&unknown, &[]).assert_fails_with("unknown field `jacobain`");
    let me = write(
        "me.toml",
        &text.replace("name = \"m1\"", "name = \"m1\"\ninterface = \"me\""),
    );
    run(&me, &["--implicit", "directional-derivatives"]).assert_fails_with(
        "component m1 is no Co-Simulation FMU taking one step per macro step with directional \
         derivatives",
    );
    // One iteration cannot reach 1e-14 where the master integrates m1 along the iterate.
    let few = write(
        "few.toml",
        &text
            .replace("kc = 100.0,", "kc = 1e4,")
            .replace("name = \"m1\"", "name = \"m1\"\ninterface = \"me\"")
            .replace(
                "extrapolation = \"zoh\"",
                "implicit = { tolerance = 1e-14, max-iterations = 1 }",
            ),
    );
    run(&few, &[])
        .assert_fails_with("implicit coupling: the macro step to t = 0.001 did not converge");
    // The Hermite waveform needs the rates of the values a participant sends: m1 is a
    // Co-Simulation FMU here.
    let hermite = "implicit = { waveform = \"hermite\" }";
    let co_simulation = write(
        "hermite.toml",
        &text.replace("extrapolation = \"zoh\"", hermite),
    );
    run(&co_simulation, &[]).assert_fails_with(
        "connection m1.f -> m2.F: schedule.implicit.waveform = \"hermite\" needs the time \
         derivative of m1.f",
    );
    // The correction takes out the energy a hold's lag injects; converged values have none.
    run(&me, &["--implicit", "auto", "--energy-correction", "on"])
        .assert_fails_with("implicit coupling exchanges converged values");
    let exact = write(
        "hermite-exact.toml",
        &text.replace(
            "extrapolation = \"zoh\"",
            "implicit = { waveform = \"hermite\", jacobian = \"directional-derivatives\" }",
        ),
    );
    run(&exact, &[])
        .assert_fails_with("the Hermite waveform iterates the values' time derivatives too");
    // An FMU that cannot go back to a saved state.
    let stateless = fmu_with_model_description(
        "mass",
        &[("canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\" providesDirectionalDerivatives=\"true\" providesAdjointDerivatives=\"true\" canHandle",
           "canGetAndSetFMUState=\"false\" canSerializeFMUState=\"false\" providesDirectionalDerivatives=\"true\" providesAdjointDerivatives=\"true\" canHandle")],
    );
    let fmu = dir.path().join("stateless.fmu");
    std::fs::write(&fmu, stateless).unwrap();
    let coupled_mass = fmus.join("coupled_mass.fmu");
    let stateless_system = write(
        "stateless.toml",
        &text
            .replace("../../target/fmus/fmi3/mass.fmu", fmu.to_str().unwrap())
            .replace(
                "../../target/fmus/fmi3/coupled_mass.fmu",
                coupled_mass.to_str().unwrap(),
            ),
    );
    let path = stateless_system.to_str().unwrap();
    let result = result.to_str().unwrap();
    tandem(&[
        "run",
        path,
        "--output-file",
        result,
        "--stop-time",
        "0.01",
        "--implicit",
        "auto",
    ])
    .assert_fails_with("component m2: implicit coupling repeats every macro step");
}

/// The double oscillator's system file with the stiff coupling spring (kc = 1e4 N/m) coupled
/// implicitly (`schedule` the `implicit` line), `masses` added to both components, stopped at
/// `stop`, written into `dir` with the FMUs' paths made absolute.
fn write_stiff(dir: &Path, schedule: &str, masses: &str, stop: f64) -> PathBuf {
    let fmus = fmu_dir();
    let text = std::fs::read_to_string(system_file(SYSTEM))
        .unwrap()
        .replace("stop = 10.0", &format!("stop = {stop:?}"))
        .replace("kc = 100.0,", "kc = 1e4,")
        .replace(
            "extrapolation = \"zoh\"",
            &format!("extrapolation = \"zoh\"\n{schedule}"),
        )
        .replace("name = \"m1\"", &format!("name = \"m1\"\n{masses}"))
        .replace("name = \"m2\"", &format!("name = \"m2\"\n{masses}"))
        .replace(
            "../../target/fmus/fmi3/",
            &format!("{}/", fmus.to_str().unwrap()),
        );
    let path = dir.join("stiff.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_rerun_from_a_snapshot_repeats_the_implicit_steps_bit_for_bit() {
    // Broyden's updates change the kept factors at every step: a re-run that started from the
    // factors of a later step would take other iterations, to values that differ within the
    // tolerance (the gradient's checkpoint segments are such re-runs).
    let dir = tempfile::tempdir().unwrap();
    let path = write_stiff(
        dir.path(),
        "implicit = { jacobian = \"broyden\" }",
        "step = 1e-4",
        0.2,
    );
    let system = System::load(&path, LoadOptions::default()).unwrap();
    let mut cosimulation = CoSimulation::initialize(&system, &LogSettings::default()).unwrap();
    let port = resolve_port("m2.position", &system.components).unwrap();
    let (steps, middle) = (200, 100);
    let time = |k: usize| grid_point(system.start, system.macro_step, k, system.stop);
    let run = |cosimulation: &mut CoSimulation, points: std::ops::RangeInclusive<usize>| {
        points
            .map(|k| {
                assert_eq!(cosimulation.step(time(k)).unwrap(), Progress::Reached);
                cosimulation.value(port)
            })
            .collect::<Vec<f64>>()
    };
    run(&mut cosimulation, 1..=middle);
    let snapshot = cosimulation.snapshot().unwrap();
    let states: Vec<_> = (0..2)
        .map(|i| {
            cosimulation
                .instance_mut(i)
                .unwrap()
                .get_fmu_state()
                .unwrap()
        })
        .collect();
    let first = run(&mut cosimulation, middle + 1..=steps);
    let report = cosimulation.implicit_report().unwrap();
    assert!(report.updates > 0, "{report}");
    cosimulation.rewind(&snapshot).unwrap();
    for (i, state) in states.iter().enumerate() {
        let instance = cosimulation.instance_mut(i).unwrap();
        instance.set_fmu_state(state).unwrap();
    }
    let again = run(&mut cosimulation, middle + 1..=steps);
    assert_eq!(first, again);
    for (i, state) in states.into_iter().enumerate() {
        let instance = cosimulation.instance_mut(i).unwrap();
        instance.free_fmu_state(state).unwrap();
    }
    cosimulation.terminate().unwrap();
}

/// `tandem run` of the stiff oscillator to 0.5 s, coupled implicitly as `schedule` (the lines
/// added to `[schedule]`) says, with `m1.kc` and `m2.k` set to `kc` and `k2` and `masses` added
/// to both components.
fn run_stiff(kc: f64, k2: f64, schedule: &str, masses: &str) -> Finished {
    let kc = format!("kc = {kc:?},");
    let k2 = format!("k = {k2:?},");
    let m1 = format!("name = \"m1\"\n{masses}");
    let m2 = format!("name = \"m2\"\n{masses}");
    let schedule = format!("extrapolation = \"zoh\"\n{schedule}");
    let edits = [
        ("kc = 100.0,", kc.as_str()),
        ("k = 1000.0,", k2.as_str()),
        ("name = \"m1\"", m1.as_str()),
        ("name = \"m2\"", m2.as_str()),
        ("extrapolation = \"zoh\"", schedule.as_str()),
    ];
    let run = run_system(
        SYSTEM,
        &Variant {
            edits: &edits,
            stop_time: Some(0.5),
            ..Variant::default()
        },
    );
    assert_eq!(run.ends("time").1, 0.5);
    run
}

/// m2's position at 0.5 s in [`run_stiff`] with `implicit = true`.
fn final_position(kc: f64, k2: f64, masses: &str) -> f64 {
    run_stiff(kc, k2, "implicit = true", masses)
        .ends("m2.position")
        .1
}

/// The cells of the row of `name` in a table `tandem` printed.
fn row<'a>(stdout: &'a str, name: &str) -> Vec<&'a str> {
    let line = stdout
        .lines()
        .find(|line| line.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in {stdout}"));
    line.split_whitespace().collect()
}

/// The line of `J` in what `tandem gradient` printed.
fn cost_line(stdout: &str) -> &str {
    stdout.lines().next().unwrap()
}

/// That line for the cost `cost`.
fn cost_text(cost: f64) -> String {
    format!("J = {}", tandem::float_text::format_float(cost))
}

/// The relative difference of the gradient to the `--check` differences in a row of
/// `tandem gradient --check`, whose method must be the adjoint.
fn checked_error(stdout: &str, name: &str) -> f64 {
    let cells = row(stdout, name);
    assert_eq!(cells[3], "adjoint", "{name}: {stdout}");
    cells[5].parse().unwrap()
}

/// What `tandem gradient --check` prints for the stiff oscillator of `path` to 0.5 s with the
/// cost `cost`.
fn checked_gradient(path: &Path, cost: &str) -> String {
    let run = tandem(&[
        "gradient",
        path.to_str().unwrap(),
        "--parameters",
        "m1.kc,m2.k,m1.k",
        "--cost",
        cost,
        "--stop-time",
        "0.5",
        "--check",
    ]);
    run.assert_success();
    println!("{}", run.stdout);
    run.stdout
}

#[test]
fn the_adjoint_goes_through_the_converged_interface_of_an_implicit_coupling() {
    // The default tolerance: the oscillator is linear and its Jacobian exact, so Newton's one
    // iteration per step lands on the fixed point to rounding in every run of the `--check`
    // differences (measured: the same digits with `tolerance = 1e-14`), which a looser
    // convergence would blur by about the tolerance divided by their step.
    let schedule = "implicit = true";
    let dir = tempfile::tempdir().unwrap();
    let (kc, k2) = (1e4, 1000.0);
    let run = run_stiff(kc, k2, schedule, "");
    let f = run.column("m1.f");
    let time = run.column("time");
    // The rectangle rule of the cost over the macro points before the last, as the gradient
    // sums it.
    let integral = (0..f.len() - 1).fold(0.0, |total, k| total + (time[k + 1] - time[k]) * f[k]);
    let path = write_stiff(dir.path(), schedule, "", 10.0);
    let jacobi = std::fs::read_to_string(&path).unwrap();
    // Gauss-Seidel with the order against the file's: m1's force, which m2 reads, is the
    // iterate, and m2's values at the end of a step reach m1 in the same iteration.
    let gauss_seidel = "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]";
    for kind in ["kind = \"jacobi\"", gauss_seidel] {
        std::fs::write(&path, jacobi.replace("kind = \"jacobi\"", kind)).unwrap();
        for (cost, value) in [
            ("final:m2.position", run.ends("m2.position").1),
            ("integral:m1.f", integral),
        ] {
            let stdout = checked_gradient(&path, cost);
            // The recorders hear each macro step once, repeated from the converged iterate:
            // the cost is the value `tandem run` computes, bit for bit.
            assert_eq!(cost_line(&stdout), cost_text(value), "{kind}, {cost}");
            // Measured: 3.1e-10, 1.6e-9 and 2.6e-7 (final), 1.4e-10, 5.9e-9 and 3.3e-7
            // (integral) under either schedule. m1.k's is the differences' noise: central
            // differences of `tandem run` with a step of 1e-3 relative agree with its adjoint
            // to 4.2e-10.
            for name in ["m1.kc", "m2.k", "m1.k"] {
                let error = checked_error(&stdout, name);
                assert!(error < 1e-6, "{kind}, {cost}, {name}: {error:e}");
            }
        }
    }
}

/// `final:m2.position` and `integral:m1.f` of the stiff oscillator by `tandem run` to 0.5 s with
/// its system file edited by `edits` (the integral by the rectangle rule over the macro points
/// before the last, as the gradient sums it).
fn stiff_costs(edits: &[(&str, &str)]) -> (f64, f64) {
    let variant = Variant {
        edits,
        stop_time: Some(0.5),
        ..Variant::default()
    };
    let run = run_system(SYSTEM, &variant);
    let (f, time) = (run.column("m1.f"), run.column("time"));
    let integral = (0..f.len() - 1).fold(0.0, |total, k| total + (time[k + 1] - time[k]) * f[k]);
    (run.ends("m2.position").1, integral)
}

#[test]
fn the_adjoint_goes_through_sub_steps_that_hold_the_line_toward_the_iterate() {
    // Ten sub-steps per macro step: all but the first hold the coupling at the line toward the
    // values converged at the step's end, so the masses' states there depend on those values
    // and the adjoint of the interface carries its unknowns back through the sub-steps.
    // Newton's Jacobian is exact (the masses' step derivatives through the sub-steps), so its
    // one iteration per step lands on the fixed point to rounding and the default tolerance
    // serves the `--check` differences. With differences for the Jacobian it stopped short by
    // up to the tolerance, which those differences divide by their step: 5.7e-6 under Jacobi
    // and 1.7e-3 under Gauss-Seidel at the default 1e-10.
    let (masses, schedule) = ("step = 1e-4", "implicit = true");
    let dir = tempfile::tempdir().unwrap();
    let path = write_stiff(dir.path(), schedule, masses, 10.0);
    let jacobi = std::fs::read_to_string(&path).unwrap();
    let m1 = format!("name = \"m1\"\n{masses}");
    let m2 = format!("name = \"m2\"\n{masses}");
    let implicit = format!("extrapolation = \"zoh\"\n{schedule}");
    let gauss_seidel = "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]";
    for kind in ["kind = \"jacobi\"", gauss_seidel] {
        let costs = |k1: f64| {
            let k1 = format!("k = {k1:?},");
            stiff_costs(&[
                ("kc = 100.0,", "kc = 1e4,"),
                ("k = 10.0,", k1.as_str()),
                ("name = \"m1\"", m1.as_str()),
                ("name = \"m2\"", m2.as_str()),
                ("kind = \"jacobi\"", kind),
                ("extrapolation = \"zoh\"", implicit.as_str()),
            ])
        };
        let (position, integral) = costs(10.0);
        // m1.k's derivative moves the cost so little that the `--check` differences are noisy
        // at about 1e-6 (measured 7.6e-7 and 5.3e-7 under Jacobi, 3.1e-7 and 1.3e-6 under
        // Gauss-Seidel): fourth-order differences of `tandem run` with a step of 1e-2
        // relative, whose truncation and noise are both far below, check it instead.
        let h = 0.1;
        let shifted: Vec<(f64, f64)> = [2.0, 1.0, -1.0, -2.0]
            .iter()
            .map(|offset| costs(10.0 + offset * h))
            .collect();
        let fourth = |cost: fn(&(f64, f64)) -> f64| {
            let j: Vec<f64> = shifted.iter().map(cost).collect();
            (-j[0] + 8.0 * j[1] - 8.0 * j[2] + j[3]) / (12.0 * h)
        };
        let references = [fourth(|c| c.0), fourth(|c| c.1)];
        std::fs::write(&path, jacobi.replace("kind = \"jacobi\"", kind)).unwrap();
        for ((cost, value), reference) in
            [("final:m2.position", position), ("integral:m1.f", integral)]
                .into_iter()
                .zip(references)
        {
            let stdout = checked_gradient(&path, cost);
            assert_eq!(cost_line(&stdout), cost_text(value), "{kind}, {cost}");
            // Measured (m1.kc, m2.k): 1.9e-10 and 3.8e-9 (final), 1.1e-10 and 2.8e-9
            // (integral) under Jacobi; 6.1e-11 and 1.8e-10, 8.7e-11 and 6.6e-9 under
            // Gauss-Seidel. With the unknowns' adjoints sent through the end holds only, as for
            // one step per macro step, 0.97 and 0.96 (Jacobi, final).
            for name in ["m1.kc", "m2.k"] {
                let error = checked_error(&stdout, name);
                assert!(error < 1e-6, "{kind}, {cost}, {name}: {error:e}");
            }
            let error = checked_error(&stdout, "m1.k");
            assert!(error < 1e-5, "{kind}, {cost}, m1.k: {error:e}");
            let adjoint: f64 = row(&stdout, "m1.k")[2].parse().unwrap();
            let error = (adjoint - reference).abs() / reference.abs();
            println!("{cost}: m1.k's adjoint {adjoint:e}, differences {reference:e}, {error:.1e}");
            // Measured: 2.7e-11 and 1.5e-11 under Jacobi, 4.7e-11 and 1.0e-10 under
            // Gauss-Seidel.
            assert!(
                error < 1e-8,
                "{kind}, {cost}, m1.k: {adjoint:e} for {reference:e}"
            );
        }
    }
}

#[test]
fn forward_sensitivities_through_the_converged_interface_agree_with_the_adjoint() {
    // Two independent derivatives of the same run: the adjoint solves the interface's
    // transposed equations backwards, the forward sweep its tangent equations forwards; with
    // ten sub-steps per macro step both carry the values of the interface through them.
    let dir = tempfile::tempdir().unwrap();
    let gauss_seidel = "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]";
    for (masses, kind) in [
        ("", "kind = \"jacobi\""),
        ("", gauss_seidel),
        ("step = 1e-4", "kind = \"jacobi\""),
        ("step = 1e-4", gauss_seidel),
    ] {
        let path = write_stiff(dir.path(), "implicit = true", masses, 10.0);
        let jacobi = std::fs::read_to_string(&path).unwrap()
            + "\n[gradient]\nparameters = [\"m1.kc\", \"m2.k\", \"m1.k\"]\n\
               cost = \"final:m2.position\"\n";
        std::fs::write(&path, jacobi.replace("kind = \"jacobi\"", kind)).unwrap();
        let options = LoadOptions {
            stop_time: Some(0.2),
            ..LoadOptions::default()
        };
        let mut problem = tandem::gradient::section::problem(&path, options).unwrap();
        let values = problem.start_values();
        let adjoint = problem.gradient(&values).unwrap();
        let forward = problem.forward_gradient(&values).unwrap();
        assert_eq!(forward.cost, adjoint.cost, "{masses}, {kind}");
        let adjoints = |m: &tandem::gradient::Method| *m == tandem::gradient::Method::Adjoint;
        assert!(adjoint.methods.iter().all(adjoints), "{masses}, {kind}");
        assert!(
            forward
                .methods
                .iter()
                .all(|m| *m == tandem::gradient::Method::ForwardSensitivities),
            "{masses}, {kind}: {:?}",
            forward.methods
        );
        for (f, a) in forward.gradient.iter().zip(&adjoint.gradient) {
            let error = (f - a).abs() / a.abs();
            println!("{masses}, {kind}: forward {f:e}, adjoint {a:e}, {error:.1e}");
            assert!(
                error < 1e-10,
                "{masses}, {kind}: forward {f:e}, adjoint {a:e}, {error:.1e}"
            );
        }
    }
}

/// Why a gradient of the oscillator with Model Exchange masses takes differences (after the
/// component's name and FMU).
const MODEL_EXCHANGE: &str = "is integrated by the master as Model Exchange, and its inputs \
                              follow the implicit coupling's line within each macro step";

/// `tandem gradient` of the system `path` by `m2.k`, the cost m2's final position at 0.5 s,
/// checked to succeed.
fn gradient_of_m2_k(path: &Path) -> common::Run {
    let run = tandem(&[
        "gradient",
        path.to_str().unwrap(),
        "--parameters",
        "m2.k",
        "--cost",
        "final:m2.position",
        "--stop-time",
        "0.5",
    ]);
    run.assert_success();
    run
}

#[test]
fn a_gradient_integrates_model_exchange_components_along_the_iterate_as_tandem_run_does() {
    // The adjoint's held-input steps would hold the inputs over the macro step instead.
    let dir = tempfile::tempdir().unwrap();
    let masses = "interface = \"me\"";
    let path = write_stiff(dir.path(), "implicit = true", masses, 10.0);
    let run = gradient_of_m2_k(&path);
    assert!(run.stdout.contains(MODEL_EXCHANGE), "{}", run.stdout);
    let expected = cost_text(final_position(1e4, 1000.0, masses));
    assert_eq!(cost_line(&run.stdout), expected);
}

#[test]
fn a_gradient_on_the_hermite_waveform_takes_differences_of_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (masses, hermite) = (
        "interface = \"me\"",
        "implicit = { waveform = \"hermite\" }",
    );
    let path = write_stiff(dir.path(), hermite, masses, 10.0);
    let run = gradient_of_m2_k(&path);
    assert!(
        run.stdout
            .contains("couples implicitly on the Hermite waveform"),
        "{}",
        run.stdout
    );
    let expected = run_stiff(1e4, 1000.0, hermite, masses)
        .ends("m2.position")
        .1;
    assert_eq!(cost_line(&run.stdout), cost_text(expected));
}

#[test]
fn identify_fits_a_spring_of_an_implicit_coupling() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_stiff(dir.path(), "implicit = true", "", 0.2);
    let data = dir.path().join("measured.csv");
    measure(&path, &["m2.k"], &[1000.0], "m2.position", &data);
    // Start 30 % off.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("k = 1000.0,", "k = 700.0,")).unwrap();
    let output = dir.path().join("fitted.csv");
    let run = tandem(&[
        "identify",
        path.to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--parameters",
        "m2.k=100:5000",
        "--output",
        output.to_str().unwrap(),
        "--plot",
        dir.path().join("fit.svg").to_str().unwrap(),
    ]);
    run.assert_success();
    println!("{}", run.stdout);
    assert_eq!(row(&run.stdout, "m2.k").last(), Some(&"adjoint"));
    let values = fitted(&output);
    assert_eq!(values[0].0, "m2.k");
    let error = (values[0].1 - 1000.0).abs() / 1000.0;
    assert!(error < 1e-6, "fitted {} for 1000", values[0].1);
}
