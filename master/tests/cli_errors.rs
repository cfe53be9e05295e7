//! Every bad input gives a clear message naming the file and the problem, and exit code 1,
//! without a panic. Runs the built `tandem` binary.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, tandem, write_zip, Run};

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The FMU `dir/name` holding only the model description `text`.
fn description_only(dir: &Path, name: &str, text: &str) -> PathBuf {
    write_zip(
        &dir.join(name),
        &[("modelDescription.xml", text.as_bytes())],
    )
}

/// `tandem simulate fmu <options> --output-file output`.
fn simulate(fmu: &Path, options: &[&str], output: &Path) -> Run {
    let mut args = vec!["simulate", path_str(fmu)];
    args.extend_from_slice(options);
    args.extend(["--output-file", path_str(output)]);
    tandem(&args)
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.fmu");
    tandem(&["info", path_str(&path)]).assert_fails_with("absent.fmu");
}

#[test]
fn corrupt_zip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.fmu");
    std::fs::write(&path, b"this is not a zip archive at all").unwrap();
    for command in ["info", "validate", "simulate"] {
        tandem(&[command, path_str(&path)])
            .assert_fails_with("corrupt.fmu: not a valid FMU archive (corrupt zip)");
    }
}

#[test]
fn truncated_zip() {
    let dir = tempfile::tempdir().unwrap();
    let good = description_only(dir.path(), "good.fmu", &fixture("fmi2_bouncing_ball.xml"));
    let bytes = std::fs::read(&good).unwrap();
    let path = dir.path().join("truncated.fmu");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    tandem(&["info", path_str(&path)]).assert_fails_with("truncated.fmu: not a valid FMU archive");
}

#[test]
fn missing_model_description() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_zip(
        &dir.path().join("empty.fmu"),
        &[("documentation/index.html", b"<html/>")],
    );
    tandem(&["info", path_str(&path)])
        .assert_fails_with("empty.fmu: the archive contains no modelDescription.xml at its root");
}

#[test]
fn malformed_xml_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi3_feature_tour.xml").replace(
        "<Float64 name=\"der(w)\" valueReference=\"2\" derivative=\"1\"/>",
        "<Float64 name=\"der(w)\" valueReference=\"2\" derivative=\"1\">",
    );
    let path = description_only(dir.path(), "broken.fmu", &text);
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_fails_with("broken.fmu: modelDescription.xml line ");
    assert!(run.stderr.contains("malformed XML"), "{}", run.stderr);
}

#[test]
fn missing_required_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml").replace(r#"modelName="BouncingBall""#, "");
    let path = description_only(dir.path(), "nameless.fmu", &text);
    tandem(&["info", path_str(&path)]).assert_fails_with("nameless.fmu: modelDescription.xml line 2, column 1: <fmiModelDescription> lacks the required attribute modelName");
}

#[test]
fn unsupported_fmi_version() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        fixture("fmi2_bouncing_ball.xml").replace(r#"fmiVersion="2.0""#, r#"fmiVersion="1.0""#);
    let path = description_only(dir.path(), "old.fmu", &text);
    tandem(&["info", path_str(&path)])
        .assert_fails_with("old.fmu: FMI version 1.0 is not supported");
}

#[test]
fn no_binary_for_this_platform() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi3_feature_tour.xml");
    let path = write_zip(
        &dir.path().join("windows_only.fmu"),
        &[
            ("modelDescription.xml", text.as_bytes()),
            ("binaries/x86_64-windows/FeatureTour.dll", b"MZ"),
        ],
    );
    let output = dir.path().join("out.csv");
    let run = simulate(&path, &[], &output);
    run.assert_fails_with("windows_only.fmu: no binary for this platform: expected binaries/");
    assert!(
        run.stderr.contains("FeatureTour"),
        "names the expected binary: {}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("(the FMU has binaries for: x86_64-windows)"),
        "{}",
        run.stderr
    );
    simulate(&path, &["--interface-type", "me"], &output)
        .assert_fails_with("no binary for this platform");
}

#[test]
fn interface_not_provided() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml");
    let start = text.find("<CoSimulation").unwrap();
    let end = start + text[start..].find("/>").unwrap() + 2;
    let me_only = format!("{}{}", &text[..start], &text[end..]);
    let path = description_only(dir.path(), "me_only.fmu", &me_only);
    simulate(
        &path,
        &["--interface-type", "cs"],
        &dir.path().join("o.csv"),
    )
    .assert_fails_with(
        "me_only.fmu: the FMU does not implement Co-Simulation (it implements: Model Exchange)",
    );
}

#[test]
fn unknown_variable_in_start_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = description_only(dir.path(), "ball.fmu", &fixture("fmi2_bouncing_ball.xml"));
    let output = dir.path().join("out.csv");
    for (start_value, message) in [
        ("nope=1", "ball.fmu: unknown variable \"nope\""),
        (
            "bounce=1",
            "ball.fmu: unknown variable \"bounce\"; did you mean \"bounces\"?",
        ),
        ("e=lots", "--start-value e: \"lots\" is not a valid Float64"),
        ("e", "expected name=value"),
        (
            "time=1",
            "--start-value time: time is a continuous independent variable and cannot be set",
        ),
    ] {
        simulate(&path, &["--start-value", start_value], &output).assert_fails_with(message);
    }
}

#[test]
fn bad_experiment_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = description_only(dir.path(), "ball.fmu", &fixture("fmi2_bouncing_ball.xml"));
    let output = dir.path().join("out.csv");
    for (options, message) in [
        (
            &["--stop-time", "-1"][..],
            "stop time -1 must be after start time 0",
        ),
        (
            &["--step-size", "0.1", "--output-interval", "0.25"],
            "output interval 0.25 must be a multiple of the step size 0.1",
        ),
    ] {
        simulate(&path, options, &output).assert_fails_with(message);
    }
}

#[test]
fn bad_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = description_only(dir.path(), "tour.fmu", &fixture("fmi3_feature_tour.xml"));
    let output = dir.path().join("out.csv");
    let input = dir.path().join("in.csv");
    for (csv, message) in [
        (
            "\"time\",\"nope\"\n0,1\n",
            "in.csv: column \"nope\" is no variable",
        ),
        (
            "\"time\",\"f32\"\n0,1\n",
            "causality is parameter, not input",
        ),
        (
            "\"time\",\"i32\"\n0,1\n1,x\n",
            "line 3, column 2: \"x\" is not a number",
        ),
    ] {
        std::fs::write(&input, csv).unwrap();
        simulate(&path, &["--input-file", path_str(&input)], &output).assert_fails_with(message);
    }
}

#[test]
fn validate_reports_problems_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml").replace(r#"name="e""#, r#"name="g""#);
    let path = description_only(dir.path(), "dup.fmu", &text);
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_fails_with("variable name \"g\" is used more than once");
    assert!(run.stderr.contains("1 problem found"), "{}", run.stderr);
}

#[test]
fn validate_notes_derivatives_of_unselected_states_and_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let path = description_only(
        dir.path(),
        "dymola.fmu",
        &fixture("fmi2_state_selection.xml"),
    );
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_success();
    assert!(
        run.stdout.contains("the model description is valid")
            && run.stdout.contains("note: modelDescription.xml line ")
            && run
                .stdout
                .contains("variable der(mass.s): is the derivative of mass.s"),
        "{}",
        run.stdout
    );
}

#[test]
fn validate_and_info_accept_a_good_description() {
    let dir = tempfile::tempdir().unwrap();
    let path = description_only(dir.path(), "ball.fmu", &fixture("fmi2_bouncing_ball.xml"));
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_success();
    assert!(
        run.stdout.contains("the model description is valid"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("note:") && run.stdout.contains("no binary for this platform"),
        "the missing binary is noted: {}",
        run.stdout
    );
    let info = tandem(&["info", path_str(&path)]);
    info.assert_success();
    for expected in [
        "BouncingBall",
        "2.0",
        "Model Exchange",
        "Co-Simulation",
        "canGetAndSetFMUState",
        "stopTime=3",
        "der(v)",
        "m/s2",
    ] {
        assert!(
            info.stdout.contains(expected),
            "info shows {expected}: {}",
            info.stdout
        );
    }
}
