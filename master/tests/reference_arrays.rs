//! FMI 3.0 array variables on the Reference-FMUs' StateSpace (x' = A x + B u, y = C x + D u,
//! sized by the structural parameters m, n, r): shapes in `tandem info`, dimension checks in
//! `tandem validate`, recording by element, array start values and structural parameters.

mod common;

use std::path::{Path, PathBuf};

use common::{edit_model_description, tandem};

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
