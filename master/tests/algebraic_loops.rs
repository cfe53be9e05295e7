//! Algebraic loops under Gauss-Seidel, on two Reference-FMU Feedthrough components whose
//! output equals their input at every instant: `a.u = b.y` and `b.u = f a.y + o` close a loop
//! whose solution is `a.y = b.y = o / (1 - f)`. Gauss-Seidel solves it at the start and at
//! every communication point, whatever the order and the FMI version; a loop without a unique
//! solution (`f = 1`) is an error naming the loop; gradients refuse such systems. On the double
//! oscillator with mass1's acceleration fed to the spring's x_a, the loop's values change at
//! every point, and the solved loop holds at every one. Implicit coupling under Jacobi
//! satisfies the Feedthrough loop at every point too.

mod common;

use std::path::{Path, PathBuf};

use common::double_oscillator::Setup;
use common::{read_csv, tandem};

const OUTPUT: &str = "Float64_continuous_output";
const INPUT: &str = "Float64_continuous_input";

/// The Reference FMU Feedthrough of FMI `version` ("2" or "3").
fn feedthrough(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/reference-fmus/fmi{version}/Feedthrough.fmu"
    ))
}

/// The loop with `b.u = factor a.y + offset`, stepped in `order`, written into `dir`.
fn looped(dir: &Path, version: &str, order: [&str; 2], factor: f64, offset: f64) -> PathBuf {
    let fmu = feedthrough(version);
    let component = |name: &str| format!("[[component]]\nname = \"{name}\"\nfmu = {fmu:?}\n\n");
    let text = format!(
        "[experiment]\nstop = 1.0\nstep = 0.1\n\n\
         [schedule]\nkind = \"gauss-seidel\"\norder = [\"{}\", \"{}\"]\n\n{}{}\
         [[connection]]\nfrom = \"a.{OUTPUT}\"\nto = \"b.{INPUT}\"\nfactor = {factor:?}\noffset = {offset:?}\n\n\
         [[connection]]\nfrom = \"b.{OUTPUT}\"\nto = \"a.{INPUT}\"\n\n\
         [output]\nvariables = [\"a.{OUTPUT}\", \"b.{OUTPUT}\"]\n",
        order[0],
        order[1],
        component("a"),
        component("b"),
    );
    let path = dir.join("loop.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `system` (result file beside it), asserting that it succeeds and that a line of its
/// summary contains `report`; the header and rows of the result, and that line.
fn run_loop(system: &Path, report: &str) -> (Vec<String>, Vec<Vec<f64>>, String) {
    let result = system.with_file_name("result.csv");
    let run = tandem(&[
        "run",
        system.to_str().unwrap(),
        "--output-file",
        result.to_str().unwrap(),
    ]);
    run.assert_success();
    let line = run
        .stderr
        .lines()
        .find(|line| line.contains(report))
        .unwrap_or_else(|| panic!("no {report:?} in {}", run.stderr))
        .to_string();
    let (header, rows) = read_csv(&result);
    (header, rows, line)
}

#[test]
fn gauss_seidel_solves_the_loop_at_the_start_and_every_communication_point() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["2", "3"] {
        for order in [["a", "b"], ["b", "a"]] {
            for (factor, offset) in [(0.5, 1.0), (-3.0, 2.0), (2.0, -0.25)] {
                let system = looped(dir.path(), version, order, factor, offset);
                // Feedthrough gives no directional derivatives: differences, once. At the start
                // a pass finds the residual, one differences it, one confirms the step; at the
                // ten later points the loop's values are unchanged, one pass confirms them.
                let (_, rows, _) = run_loop(
                    &system,
                    ": solved at 11 points in 13 passes, 1 Jacobian by forward differences",
                );
                assert_eq!(rows.len(), 11);
                let expected = offset / (1.0 - factor);
                for row in &rows {
                    for &value in &row[1..] {
                        assert!(
                            (value - expected).abs() <= 1e-10 * expected.abs().max(1.0),
                            "FMI {version}, order {order:?}, f = {factor}, o = {offset}: \
                             {value} at t = {}, expected {expected}",
                            row[0]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_loop_without_a_unique_solution_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let system = looped(dir.path(), "3", ["a", "b"], 1.0, 1.0);
    let result = dir.path().join("result.csv");
    let (system, result) = (system.to_str().unwrap(), result.to_str().unwrap());
    tandem(&["run", system, "--output-file", result]).assert_fails_with(&format!(
        "simulation failed at t = 0: algebraic loop a.{OUTPUT} -> b.{INPUT} -> b.{OUTPUT} -> \
             a.{INPUT} -> a.{OUTPUT}: its equations have no unique solution"
    ));
}

#[test]
fn gradients_refuse_the_loops_gauss_seidel_solves() {
    let dir = tempfile::tempdir().unwrap();
    let system = looped(dir.path(), "3", ["a", "b"], 0.5, 1.0);
    tandem(&[
        "gradient",
        system.to_str().unwrap(),
        "--parameters",
        "a.Float64_tunable_parameter",
        "--cost",
        &format!("final:a.{OUTPUT}"),
    ])
    .assert_fails_with("gradients through the loops Gauss-Seidel solves are not available yet");
}

#[test]
fn a_loop_whose_values_change_holds_at_every_communication_point() {
    // The Tandem FMUs give directional derivatives: the exact Jacobian of the loop, which is
    // linear, made once, serves every point in one Newton step (a pass to find the residual,
    // one to confirm the step); initialization's propagation already satisfies it at the start.
    check_acceleration_loop(
        &[],
        ": solved at 51 points in 101 passes, 1 Jacobian from the FMUs' directional derivatives",
    );
}

#[test]
fn broyden_keeps_a_jacobian_by_differences_up_to_date() {
    // Without mass1's directional derivatives the Jacobian is made by differences, once: the
    // steps it gives leave the differences' error, which Broyden's updates remove, so no
    // second Jacobian is made.
    // Both interfaces' flags (an edit replaces the first one it finds).
    let off = (
        "providesDirectionalDerivatives=\"true\"",
        "providesDirectionalDerivatives=\"false\"",
    );
    let report = check_acceleration_loop(&[off, off], ": solved at 51 points in ");
    assert!(
        report.contains("passes, 1 Jacobian by forward differences, ")
            && report.contains(" Broyden updates"),
        "{report}"
    );
}

/// Runs the double oscillator with mass1's acceleration fed to the spring's x_a (mass1's
/// model description edited by `edits`), a loop solved anew at every point as the masses
/// move; checks that the loop holds at every point and that the loop solver's summary line
/// contains `report`, which it returns.
fn check_acceleration_loop(edits: &[(&str, &str)], report: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        stop: 0.5,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-2)
    };
    let text = setup
        .acceleration_loop_toml_with(dir.path(), edits)
        .replacen(
            "variables = [",
            "variables = [\"mass1.F\", \"mass1.acceleration\", \"spring.x_a\", ",
            1,
        );
    let system = dir.path().join("looped.toml");
    std::fs::write(&system, text).unwrap();
    let (header, rows, line) = run_loop(&system, report);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (force, acceleration) = (column("mass1.F"), column("mass1.acceleration"));
    let (x_a, f_a) = (column("spring.x_a"), column("spring.f_a"));
    assert_eq!(rows.len(), 51);
    let mut changes = 0;
    for pair in rows.windows(2) {
        changes += usize::from(pair[1][f_a] != pair[0][f_a]);
    }
    assert!(changes > 40, "the loop's values change: {changes} changes");
    for row in &rows {
        let scale = row[f_a].abs().max(1.0);
        assert!(
            (row[force] - row[f_a]).abs() <= 1e-10 * scale
                && (row[x_a] - row[acceleration]).abs() <= 1e-10 * row[acceleration].abs().max(1.0),
            "the loop does not hold at t = {}: {row:?}",
            row[0]
        );
    }
    line
}

#[test]
fn implicit_coupling_under_jacobi_satisfies_the_loop_at_every_point() {
    // Explicit Jacobi breaks the loop with a delay of one macro step; an implicit coupling
    // iterates every step until the values exchanged at its end agree, and solves the loop
    // at the start.
    let dir = tempfile::tempdir().unwrap();
    for version in ["2", "3"] {
        for (factor, offset) in [(0.5, 1.0), (-3.0, 2.0)] {
            let system = looped(dir.path(), version, ["a", "b"], factor, offset);
            let text = std::fs::read_to_string(&system).unwrap().replacen(
                "kind = \"gauss-seidel\"\norder = [\"a\", \"b\"]",
                "kind = \"jacobi\"\nimplicit = true",
                1,
            );
            std::fs::write(&system, text).unwrap();
            let (_, rows, _) = run_loop(
                &system,
                "implicit coupling (2 unknowns, Jacobian: differences): 10 macro steps",
            );
            let expected = offset / (1.0 - factor);
            for row in &rows {
                for &value in &row[1..] {
                    assert!(
                        (value - expected).abs() <= 1e-10 * expected.abs().max(1.0),
                        "FMI {version}, f = {factor}, o = {offset}: {value} at t = {}, \
                         expected {expected}",
                        row[0]
                    );
                }
            }
        }
    }
}
