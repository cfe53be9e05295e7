//! FMI 3.0 array variables on the Reference-FMUs' StateSpace (x' = A x + B u, y = C x + D u,
//! sized by the structural parameters m, n, r): shapes in `tandem info`, dimension checks in
//! `tandem validate`, recording by element, array start values and structural parameters,
//! against FMPy and against the solution of the linear system.

mod common;

use std::path::{Path, PathBuf};

use common::{edit_model_description, tandem};
use nalgebra::{Matrix3, Vector3};
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

/// A stable, non-symmetric system for StateSpace (eigenvalues -1, -2, -3), with every matrix
/// given as a list of rows on the command line.
const A: [[f64; 3]; 3] = [[-1.0, 0.5, 0.0], [0.0, -2.0, 1.0], [0.0, 0.0, -3.0]];
const B: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 0.0, 1.0]];
const C: [[f64; 3]; 3] = [[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
const D: [[f64; 3]; 3] = [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.0]];
const U: [f64; 3] = [1.0, -1.0, 2.0];

fn matrix(rows: &[[f64; 3]; 3]) -> Matrix3<f64> {
    Matrix3::from_fn(|i, j| rows[i][j])
}

/// `[[a, b, c], [d, e, f], ...]`, as `--start-value` takes a matrix.
fn list_of_rows(rows: &[[f64; 3]; 3]) -> String {
    let rows: Vec<String> = rows.iter().map(|row| format!("{row:?}")).collect();
    format!("[{}]", rows.join(", "))
}

/// The options giving StateSpace the system above.
fn system_options() -> Vec<String> {
    let mut options = Vec::new();
    for (name, value) in [
        ("A", list_of_rows(&A)),
        ("B", list_of_rows(&B)),
        ("C", list_of_rows(&C)),
        ("D", list_of_rows(&D)),
        ("u", format!("{U:?}")),
    ] {
        options.push("--start-value".to_string());
        options.push(format!("{name}={value}"));
    }
    options
}

/// e^M by scaling and squaring with a Taylor series.
fn expm(m: Matrix3<f64>) -> Matrix3<f64> {
    let squarings = (m.norm() / 0.25).log2().ceil().max(0.0) as i32;
    let scaled = m / 2f64.powi(squarings);
    let (mut sum, mut term) = (Matrix3::identity(), Matrix3::identity());
    for k in 1..20 {
        term = term * scaled / k as f64;
        sum += term;
    }
    (0..squarings).fold(sum, |e, _| e * e)
}

/// y(t) of x' = A x + B u, y = C x + D u from x(0) = 0: x(t) = A⁻¹ (e^{At} - I) B u.
fn exact_output(t: f64) -> Vector3<f64> {
    let (a, u) = (matrix(&A), Vector3::from(U));
    let x = a.try_inverse().unwrap() * (expm(a * t) - Matrix3::identity()) * matrix(&B) * u;
    matrix(&C) * x + matrix(&D) * u
}

/// Asserts that the columns y[1..3] of `result` are `expected(t)` within `relative` of each
/// column's range.
fn assert_outputs(result: &Trajectory, expected: impl Fn(f64) -> Vector3<f64>, relative: f64) {
    let time = result.column("time");
    let exact: Vec<Vector3<f64>> = time.iter().map(|&t| expected(t)).collect();
    for i in 0..3 {
        let ours = result.column(&format!("y[{}]", i + 1));
        let theirs: Vec<f64> = exact.iter().map(|y| y[i]).collect();
        let range = theirs.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - theirs.iter().cloned().fold(f64::INFINITY, f64::min);
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                (a - b).abs() <= relative * range,
                "y[{}] at t = {}: tandem {a}, exact {b} (range {range})",
                i + 1,
                time[k]
            );
        }
    }
}

#[test]
fn matrices_from_lists_of_rows_give_the_lti_solution() {
    let fmu = state_space();
    let options = system_options();
    let mut args: Vec<&str> = options.iter().map(String::as_str).collect();
    args.extend(["--stop-time", "3", "--step-size", "0.1"]);
    // Co-Simulation: the FMU integrates with explicit Euler steps of 1 ms (measured), so its
    // exact result is the Euler recurrence x ← x + h (A x + B u).
    let cs = simulate(&fmu, &args);
    let euler = |t: f64| {
        let (a, b, u) = (matrix(&A), matrix(&B), Vector3::from(U));
        let steps = (t / 1e-3).round() as usize;
        let x = (0..steps).fold(Vector3::zeros(), |x, _| x + 1e-3 * (a * x + b * u));
        matrix(&C) * x + matrix(&D) * u
    };
    assert_outputs(&cs, euler, 1e-6);
    // ... which is within the Euler error of the solution of the differential equation.
    assert_outputs(&cs, exact_output, 1e-2);
    // Model Exchange, integrated by the master at a tight tolerance, gives the exact solution.
    args.extend(["--interface-type", "me", "--relative-tolerance", "1e-10"]);
    let me = simulate(&fmu, &args);
    assert_outputs(&me, exact_output, 1e-6);
}

#[test]
fn an_element_start_value_changes_one_element() {
    let fmu = state_space();
    let result = simulate(&fmu, &["--start-value", "u[2]=5", "--stop-time", "1"]);
    // With identity matrices y = u e^t: y[2] starts at 5 and the others keep u = (1, 2, 3).
    let first = &result.rows[0];
    assert_eq!(&first[1..], [1.0, 5.0, 3.0]);
    tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--start-value",
        "A=[[1, 2], [3, 4]]",
    ])
    .assert_fails_with("A has the shape [3, 3] but the list has the shape [2, 2]");
    tandem(&["simulate", fmu.to_str().unwrap(), "--start-value", "u[4]=1"])
        .assert_fails_with("u has the shape [3]: there is no element u[4]");
}

/// The structural parameters are set in Configuration Mode and resize the recorded arrays.
/// This StateSpace binary refuses every fmi3SetUInt64 of a single value (it checks nValues
/// after consuming the value: "Expected nValues >= 2 but was 1"), so the run fails there, in
/// Configuration Mode (outside it the FMU says that structural variables need it), after the
/// result file was started with the columns of the new shape.
#[test]
fn structural_parameters_are_set_in_configuration_mode() {
    let fmu = state_space();
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result.csv");
    let run = tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--output-file",
        result.to_str().unwrap(),
        "--start-value",
        "r=2",
    ]);
    run.assert_fails_with("fmi3SetUInt64 returned Error");
    assert!(
        run.stderr.contains("Expected nValues >= 2 but was 1"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr
            .contains("Configuration Mode or Reconfiguration Mode"),
        "{}",
        run.stderr
    );
    let header = std::fs::read_to_string(&result).unwrap();
    assert_eq!(header.lines().next(), Some("\"time\",\"y[1]\",\"y[2]\""));
}

#[test]
fn system_files_take_lists_and_lists_of_rows() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(state_space(), dir.path().join("StateSpace.fmu")).unwrap();
    let write = |matrix: &str| {
        let path = dir.path().join("system.toml");
        std::fs::write(
            &path,
            format!(
                "[experiment]\nstop = 1.0\nstep = 0.1\n\n[[component]]\nname = \"ss\"\n\
                 fmu = \"StateSpace.fmu\"\nparameters = {{ A = {matrix} }}\n\
                 start = {{ u = [1.0, 2.0, 3.0] }}\n"
            ),
        )
        .unwrap();
        path
    };
    let result = dir.path().join("result.csv");
    let run = |path: &Path| {
        tandem(&[
            "run",
            path.to_str().unwrap(),
            "--output-file",
            result.to_str().unwrap(),
        ])
    };
    // The FMU refuses values of another size, so a run that succeeds set them whole.
    let path = write("[[-1.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0, 0, -3]]");
    run(&path).assert_success();
    let path = write("[[-1.0, 0.0, 0.0], [0.0, -2.0, 0.0]]");
    run(&path).assert_fails_with(
        "line 8: component ss: parameters.A: A has the shape [3, 3] but the list has the shape [2, 3]",
    );
}

#[test]
fn array_elements_are_plotted_by_name() {
    let fmu = state_space();
    let dir = tempfile::tempdir().unwrap();
    let (result, plot) = (dir.path().join("result.csv"), dir.path().join("plot.svg"));
    let run = tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--output-file",
        result.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
        "--plot-variables",
        "A[1,1],y[2]",
    ]);
    run.assert_success();
    let drawing = std::fs::read_to_string(&plot).unwrap();
    assert!(
        drawing.contains("A[1,1]") && drawing.contains("y[2]"),
        "the panels are not labelled"
    );
}
