//! Bad power bonds and energy settings give exit code 1 and a message naming the system file,
//! the line, the bond and the variable, without a panic. Runs the built `tandem` binary on
//! variants of `master/systems/energy-double-oscillator.toml`.

mod common;

use std::path::Path;

use common::energy::system_file;
use common::{tandem, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// The double oscillator's system file.
fn original() -> String {
    std::fs::read_to_string(system_file("energy-double-oscillator")).unwrap()
}

/// Runs `tandem run` on the double oscillator's system file changed by `edits` (each `from`
/// must occur), with `extra` arguments and the test FMUs.
fn run(edits: &[(&str, &str)], extra: &[&str]) -> Run {
    run_in(tempfile::tempdir().unwrap().path(), edits, extra)
}

/// [`run`] with the system and result files in `dir`.
fn run_in(dir: &Path, edits: &[(&str, &str)], extra: &[&str]) -> Run {
    let text = edits.iter().fold(original(), |text, (from, to)| {
        assert!(text.contains(from), "{from:?} is not in the system file");
        text.replacen(from, to, 1)
    });
    let path = dir.join("oscillator.toml");
    std::fs::write(&path, text).unwrap();
    let output = dir.join("run.csv");
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3).path.parent().unwrap();
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
        "--fmu-dir",
        fmu_dir.to_str().unwrap(),
        "--stop-time",
        "0.01",
    ];
    args.extend(extra);
    tandem(&args)
}

/// The line of the bond's `effort` key, where bond errors point.
fn bond_line() -> usize {
    let text = original();
    text[..text.find("effort = \"m1.f\"").unwrap()]
        .lines()
        .count()
        + 1
}

/// Asserts a clean failure naming the system file and containing every needle.
fn assert_fails(run: &Run, needles: &[&str]) {
    run.assert_fails_with("oscillator.toml");
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "expected {needle:?} in: {}",
            run.stderr
        );
    }
}

#[test]
fn the_valid_file_runs_and_reports_the_energy() {
    let result = run(&[], &[]);
    result.assert_success();
    for needle in [
        "energy: E(start) = 1.000000e4 J",
        "bond 1 (m1.f x m2.velocity)",
        "mu = 0.5",
    ] {
        assert!(
            result.stderr.contains(needle),
            "{needle:?} in {}",
            result.stderr
        );
    }
}

#[test]
fn bond_variables_must_exist_and_be_outputs_of_two_components() {
    let bond = "effort = \"m1.f\"\nflow = \"m2.velocity\"";
    let at_line = format!("line {}: bond 1: effort:", bond_line());
    for (replacement, needles) in [
        (
            "effort = \"m1.force\"\nflow = \"m2.velocity\"",
            &[at_line.as_str(), "has no variable \"force\""][..],
        ),
        (
            "effort = \"m1.x2\"\nflow = \"m2.velocity\"",
            &["bond 1: effort: m1.x2 has causality input"][..],
        ),
        (
            "effort = \"m1.f\"\nflow = \"m1.velocity\"",
            &["effort and flow both come from component m1"][..],
        ),
        (
            "effort = [\"m1.f\", \"m1.position\"]\nflow = \"m2.velocity\"",
            &["2 efforts but 1 flows"][..],
        ),
        (
            "effort = [\"m1.f\", \"m2.position\"]\nflow = [\"m2.velocity\", \"m2.position\"]",
            &["m2.position is not an output of m1 like m1.f"][..],
        ),
        (
            "effort = 3\nflow = \"m2.velocity\"",
            &["expected \"component.output\""][..],
        ),
    ] {
        assert_fails(&run(&[(bond, replacement)], &[]), needles);
    }
}

#[test]
fn a_bond_needs_the_connections_that_carry_its_power() {
    assert_fails(
        &run(&[("    \"m1.f -> m2.F\",\n", "")], &[]),
        &["bond 1: the effort m1.f feeds no input of the flow side m2"],
    );
    assert_fails(
        &run(&[("    \"m2.velocity -> m1.v2\",\n", "")], &[]),
        &["bond 1: the flow m2.velocity feeds no input of the effort side m1"],
    );
    // A connection that scales the flow would make the two sides disagree on the power.
    assert_fails(
        &run(
            &[
                ("    \"m2.velocity -> m1.v2\",\n", ""),
                (
                    "[[bond]]",
                    "[[connection]]\nfrom = \"m2.velocity\"\nto = \"m1.v2\"\nfactor = 2.0\n\n[[bond]]",
                ),
            ],
            &[],
        ),
        &["bond 1: m1.v2 receives 2 * m2.velocity (a unit conversion or transformation on the \
           connection); a bond's connections must pass values unchanged"],
    );
}

#[test]
fn energy_settings_are_checked() {
    let correction = "correction = false";
    for (replacement, needle) in [
        (
            "mu = 2.0",
            "energy.mu = 2.0: must be \"auto\" or a number from 0 to 1",
        ),
        ("nu = 1.5", "energy.nu = 1.5: must be from 0 to 1"),
        (
            "cap_absolute = -1.0",
            "energy.cap_absolute = -1: must be positive",
        ),
        ("gain = 1.0", "unknown field `gain`"),
        (
            "monitor = false\ncorrection = true",
            "needs energy.monitor = true",
        ),
    ] {
        assert_fails(&run(&[(correction, replacement)], &[]), &[needle]);
    }
    // The rules for mu = "auto" are made for the Jacobi schedule, and assume that a slower
    // (or equally fast) feedthrough side holds its inputs. Without correction the run only
    // reports that there is no mu; with it, it fails (at the line when the file corrects).
    let gauss_seidel = ("kind = \"jacobi\"", "kind = \"gauss-seidel\"");
    let first_order = ("extrapolation = \"zoh\"", "extrapolation = \"foh\"");
    let schedule = "follows rules made for the jacobi schedule: give energy.mu";
    let extrapolating =
        "extrapolates its inputs (FOH); the rules assume it holds them (ZOH); give energy.mu";
    for (edit, needle) in [(gauss_seidel, schedule), (first_order, extrapolating)] {
        let monitored = run(&[edit], &[]);
        monitored.assert_success();
        assert!(
            monitored.stderr.contains("no mu: mu = \"auto\""),
            "{}",
            monitored.stderr
        );
        assert_fails(
            &run(&[edit], &["--energy-correction", "on"]),
            &["bond 1: mu = \"auto\"", needle],
        );
        let corrected = [edit, ("correction = false", "correction = true")];
        let at_line = format!("line {}: bond 1:", bond_line());
        assert_fails(&run(&corrected, &[]), &[&at_line, needle]);
    }
}

#[test]
fn correcting_or_plotting_energy_needs_bonds() {
    let no_energy = [(
        "[[bond]]\neffort = \"m1.f\"\nflow = \"m2.velocity\"\n\n[energy]\ncorrection = false",
        "",
    )];
    let needle = "declare [[bond]] tables or an [energy] table";
    assert_fails(&run(&no_energy, &["--energy-correction", "on"]), &[needle]);
    assert_fails(&run(&no_energy, &["--plot", "energy"]), &[needle]);
    let bonds_removed = [("[[bond]]\neffort = \"m1.f\"\nflow = \"m2.velocity\"\n", "")];
    assert_fails(
        &run(&bonds_removed, &["--energy-correction", "on"]),
        &["the energy correction is on, but the system declares no [[bond]]"],
    );
    assert_fails(
        &run(
            &[
                (bonds_removed[0].0, ""),
                ("correction = false", "correction = true"),
            ],
            &[],
        ),
        &["energy.correction = true, but the system declares no [[bond]]"],
    );
}

#[test]
fn plots_are_drawn_beside_the_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let result = run_in(
        dir.path(),
        &[],
        &["--plot", "energy", "--plot", "variables"],
    );
    result.assert_success();
    for name in ["run_energy.png", "run_variables.png"] {
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        assert_eq!(&bytes[1..4], b"PNG", "{name}");
    }
}

#[test]
fn the_variables_plot_shows_the_chosen_columns() {
    let dir = tempfile::tempdir().unwrap();
    let chosen = [
        "--plot",
        "variables",
        "--plot-variables",
        "m1.position,bond1.dP",
    ];
    run_in(dir.path(), &[], &chosen).assert_success();
    let bytes = std::fs::read(dir.path().join("run_variables.png")).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // Two panels instead of one per recorded variable: a shorter image.
    let all = tempfile::tempdir().unwrap();
    run_in(all.path(), &[], &["--plot", "variables"]).assert_success();
    let height = |path: &Path| {
        let bytes = std::fs::read(path).unwrap();
        u32::from_be_bytes(bytes[20..24].try_into().unwrap())
    };
    assert!(
        height(&dir.path().join("run_variables.png"))
            < height(&all.path().join("run_variables.png"))
    );
    let unknown = ["--plot", "variables", "--plot-variables", "m1.x"];
    run_in(dir.path(), &[], &unknown)
        .assert_fails_with("--plot-variables: m1.x is no result column");
    run_in(dir.path(), &[], &["--plot-variables", "m1.position"])
        .assert_fails_with("needs --plot variables");
}
