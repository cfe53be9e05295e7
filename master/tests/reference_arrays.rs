//! FMI 3.0 array variables on the Reference-FMUs' StateSpace (x' = A x + B u, y = C x + D u,
//! sized by the structural parameters m, n, r): shapes in `tandem info`, dimension checks in
//! `tandem validate`, recording by element, array start values and structural parameters.

mod common;

use std::path::{Path, PathBuf};

use common::{edit_model_description, tandem};
use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::trajectory::Trajectory;

/// The FMI 3.0 StateSpace FMU of the fixtures.
fn state_space() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-fmus/fmi3/StateSpace.fmu")
}

/// StateSpace with its modelDescription.xml edited by `edits` (each replaces its first match).
fn edited(dir: &Path, edits: &[(&str, &str)]) -> PathBuf {
    edit_model_description(&state_space(), &dir.join("edited.fmu"), |mut text| {
        for (from, to) in edits {
            assert!(
                text.contains(from),
                "{from:?} is not in the model description"
            );
            text = text.replacen(from, to, 1);
        }
        text
    })
}

#[test]
fn info_shows_shapes_and_counts_state_elements() {
    let run = tandem(&["info", state_space().to_str().unwrap()]);
    run.assert_success();
    assert!(
        run.stdout.contains("Continuous states    3\n"),
        "{}",
        run.stdout
    );
    let row = |name: &str| {
        run.stdout
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{}", run.stdout))
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(row("y"), "[3]");
    assert_eq!(row("A"), "[3,3]");
    assert_eq!(row("x0"), "[3]");
    // A scalar has no shape: its second column is the value reference.
    assert_eq!(row("m"), "1");
}

#[test]
fn validate_checks_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let not_structural = edited(
        dir.path(),
        &[(
            r#"<Float64 name="x0" valueReference="8" description="Initial state vector" causality="parameter" variability="tunable" start="0 0 0">
            <Dimension valueReference="2"/>"#,
            r#"<Float64 name="x0" valueReference="8" description="Initial state vector" causality="parameter" variability="tunable" start="0 0 0">
            <Dimension valueReference="4"/>"#,
        )],
    );
    tandem(&["validate", not_structural.to_str().unwrap()]).assert_fails_with(
        "variable x0: dimension 1: A (value reference 4) is a parameter variable, not a structural parameter",
    );

    let dir = tempfile::tempdir().unwrap();
    let wrong_count = edited(dir.path(), &[(r#"start="0 0 0""#, r#"start="0 0""#)]);
    tandem(&["validate", wrong_count.to_str().unwrap()])
        .assert_fails_with("variable x0: 2 start values for an array of shape [3] (3 elements)");

    let dir = tempfile::tempdir().unwrap();
    let negative = edited(
        dir.path(),
        &[(
            r#"<UInt64 name="n" valueReference="2" description="Number of states" causality="structuralParameter" variability="tunable" start="3""#,
            r#"<Int64 name="n" valueReference="2" description="Number of states" causality="structuralParameter" variability="tunable" start="-3""#,
        )],
    );
    tandem(&["validate", negative.to_str().unwrap()])
        .assert_fails_with("structural parameter n has the negative size -3");
}

/// Runs `tandem simulate` on `fmu` with `options` and reads the result.
fn simulate(fmu: &Path, options: &[&str]) -> Trajectory {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result.csv");
    let mut args = vec![
        "simulate",
        fmu.to_str().unwrap(),
        "--output-file",
        result.to_str().unwrap(),
    ];
    args.extend_from_slice(options);
    tandem(&args).assert_success();
    Trajectory::read_csv(&result).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts that `ours` and `theirs` have the columns `names` and agree on each at the times
/// both have, within `relative` of the column's range.
fn assert_agree(ours: &Trajectory, theirs: &Trajectory, names: &[&str], relative: f64) {
    let (our_time, their_time) = (ours.column("time"), theirs.column("time"));
    let common: Vec<(usize, usize)> = our_time
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let j = their_time
                .iter()
                .position(|s| (s - t).abs() < 1e-9 * t.abs().max(1.0))?;
            Some((i, j))
        })
        .collect();
    assert!(common.len() >= 10, "only {} common times", common.len());
    for name in names {
        let (a, b) = (ours.column(name), theirs.column(name));
        let range = b.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - b.iter().cloned().fold(f64::INFINITY, f64::min);
        for &(i, j) in &common {
            assert!(
                (a[i] - b[j]).abs() <= relative * range,
                "{name} at t = {}: tandem {} FMPy {} (range {range})",
                our_time[i],
                a[i],
                b[j]
            );
        }
    }
}

#[test]
fn state_space_records_its_output_array_like_fmpy() {
    let fmu = state_space();
    let y = ["y[1]", "y[2]", "y[3]"];
    for (interface, fmpy_interface, relative) in [
        ("cs", Interface::CoSimulation, 1e-6),
        ("me", Interface::ModelExchange, 1e-3),
    ] {
        let ours = simulate(&fmu, &["--interface-type", interface]);
        assert_eq!(ours.names, ["time", "y[1]", "y[2]", "y[3]"], "{interface}");
        let theirs = fmpy::simulate(&fmu, &Simulation::new(fmpy_interface))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_agree(&ours, &theirs, &y, relative);
        // y = u e^t with A = B = C = D = I, x0 = 0 and u = (1, 2, 3).
        let exact = 10f64.exp();
        let last = ours.last("y[3]");
        assert!(
            (last / (3.0 * exact) - 1.0).abs() < 1e-2,
            "{interface}: y[3](10) = {last}"
        );
    }
}

#[test]
fn arrays_are_recorded_whole_by_element_and_in_all() {
    let fmu = state_space();
    let ours = simulate(
        &fmu,
        &[
            "--output-variable",
            "A[2,3]",
            "--output-variable",
            "x",
            "--output-variable",
            "y[2]",
            "--stop-time",
            "1",
        ],
    );
    assert_eq!(
        ours.names,
        ["time", "A[2,3]", "x[1]", "x[2]", "x[3]", "y[2]"]
    );
    assert_eq!(ours.last("A[2,3]"), 0.0);
    // y = x + u with u[2] = 2.
    assert!((ours.last("y[2]") - ours.last("x[2]") - 2.0).abs() < 1e-9);
    let all = simulate(&fmu, &["--output-variable", "all", "--stop-time", "1"]);
    for name in [
        "m",
        "A[1,1]",
        "A[3,3]",
        "B[2,2]",
        "x0[3]",
        "u[1]",
        "y[3]",
        "x[1]",
        "der(x)[3]",
    ] {
        assert!(
            all.names.iter().any(|n| n == name),
            "{name} not in {:?}",
            all.names
        );
    }
    assert_eq!(all.names.len(), 1 + 3 + 4 * 9 + 5 * 3);
    tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--output-variable",
        "y[4]",
    ])
    .assert_fails_with("unknown variable \"y[4]\"");
}
