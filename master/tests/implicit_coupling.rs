//! Implicit coupling on the double oscillator of the energy study (`master/systems/
//! energy-double-oscillator.toml`: Jacobi, zero-order hold, H = 1 ms, 10 s) with a stiff
//! coupling spring, where explicit coupling diverges: each macro step repeated until the
//! values exchanged at its end agree. The masses as Co-Simulation FMUs taking one step per
//! macro step, Newton's Jacobian from their directional derivatives (exact: one iteration per
//! step); with ten sub-steps per macro step or as Model Exchange FMUs integrated by the
//! master, the energy stays within 1 % of its start value. The three Jacobians converge to
//! the same values; errors name what is wrong.

mod common;

use common::energy::{run_system, Finished, Variant};
use common::{fmu_with_model_description, tandem};

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

/// The double oscillator with coupling stiffness `kc`, `schedule` the lines added to its
/// `[schedule]`, `masses` the lines added to both components, stopped at `stop`.
fn run_coupled(kc: &str, schedule: &str, masses: &str, stop: f64) -> Finished {
    let kc = format!("kc = {kc},");
    let schedule = format!("extrapolation = \"zoh\"\n{schedule}");
    let m1 = format!("name = \"m1\"\n{masses}");
    let m2 = format!("name = \"m2\"\n{masses}");
    let edits = [
        ("kc = 100.0,", kc.as_str()),
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
fn every_jacobian_converges_to_the_same_values_under_either_schedule() {
    let columns = ["m1.position", "m2.position", "m1.f"];
    let reference = run_coupled("1e4", "implicit = { jacobian = \"differences\" }", "", 1.0);
    let variants = [
        "implicit = { jacobian = \"directional-derivatives\" }",
        "implicit = { jacobian = \"broyden\", tolerance = 1e-12 }",
        "kind = \"gauss-seidel\"\nimplicit = true",
    ];
    for schedule in variants {
        let schedule = schedule.to_string();
        // Gauss-Seidel replaces the kind; the others add to the Jacobi schedule.
        let run = if schedule.starts_with("kind") {
            let edits = [
                ("kc = 100.0,", "kc = 1e4,"),
                (
                    "kind = \"jacobi\"",
                    "kind = \"gauss-seidel\"\nimplicit = true",
                ),
            ];
            run_system(
                SYSTEM,
                &Variant {
                    edits: &edits,
                    stop_time: Some(1.0),
                    ..Variant::default()
                },
            )
        } else {
            run_coupled("1e4", &schedule, "", 1.0)
        };
        for column in columns {
            for (a, b) in run.column(column).iter().zip(reference.column(column)) {
                assert!(
                    (a - b).abs() <= 1e-8 * b.abs().max(1.0),
                    "{schedule}: {column} {a} against {b}"
                );
            }
        }
    }
}

#[test]
fn settings_and_fmus_that_cannot_iterate_are_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let system = common::energy::system_file(SYSTEM);
    let text = std::fs::read_to_string(&system).unwrap();
    let fmus = tandem_tests::fmus::find("mass", tandem_tests::fmus::FmiVersion::Fmi3)
        .path
        .parent()
        .unwrap()
        .to_path_buf();
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
    // Gradients do not go through the iterations yet.
    let gradient = write(
        "gradient.toml",
        &text.replace("extrapolation = \"zoh\"", "implicit = true"),
    );
    tandem(&[
        "gradient",
        gradient.to_str().unwrap(),
        "--fmu-dir",
        fmus.to_str().unwrap(),
        "--parameters",
        "m1.kc",
        "--cost",
        "final:m2.position",
    ])
    .assert_fails_with(
        "gradients through an implicit coupling's converged iterations are not available yet",
    );
}
