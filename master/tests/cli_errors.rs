//! Every bad input gives a clear message naming the file and the problem, and exit code 1,
//! without a panic. Runs the built `tandem` binary.

mod common;

use common::{fixture, tandem, write_zip};

fn path_str(path: &std::path::Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
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
    let good = write_zip(
        &dir.path().join("good.fmu"),
        &[(
            "modelDescription.xml",
            fixture("fmi2_bouncing_ball.xml").as_bytes(),
        )],
    );
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
    let path = write_zip(
        &dir.path().join("broken.fmu"),
        &[("modelDescription.xml", text.as_bytes())],
    );
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_fails_with("broken.fmu: modelDescription.xml line ");
    assert!(run.stderr.contains("malformed XML"), "{}", run.stderr);
}

#[test]
fn missing_required_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml").replace(r#"modelName="BouncingBall""#, "");
    let path = write_zip(
        &dir.path().join("nameless.fmu"),
        &[("modelDescription.xml", text.as_bytes())],
    );
    tandem(&["info", path_str(&path)]).assert_fails_with("nameless.fmu: modelDescription.xml line 2, column 1: <fmiModelDescription> lacks the required attribute modelName");
}

#[test]
fn unsupported_fmi_version() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        fixture("fmi2_bouncing_ball.xml").replace(r#"fmiVersion="2.0""#, r#"fmiVersion="1.0""#);
    let path = write_zip(
        &dir.path().join("old.fmu"),
        &[("modelDescription.xml", text.as_bytes())],
    );
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
    let run = tandem(&[
        "simulate",
        path_str(&path),
        "--output-file",
        path_str(&output),
    ]);
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
    let me = tandem(&[
        "simulate",
        path_str(&path),
        "--interface-type",
        "me",
        "--output-file",
        path_str(&output),
    ]);
    me.assert_fails_with("no binary for this platform");
}

#[test]
fn interface_not_provided() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml");
    let start = text.find("<CoSimulation").unwrap();
    let end = start + text[start..].find("/>").unwrap() + 2;
    let me_only = format!("{}{}", &text[..start], &text[end..]);
    let path = write_zip(
        &dir.path().join("me_only.fmu"),
        &[("modelDescription.xml", me_only.as_bytes())],
    );
    tandem(&[
        "simulate",
        path_str(&path),
        "--interface-type",
        "cs",
        "--output-file",
        path_str(&dir.path().join("o.csv")),
    ])
    .assert_fails_with(
        "me_only.fmu: the FMU does not implement Co-Simulation (it implements: Model Exchange)",
    );
}

#[test]
fn unknown_variable_in_start_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_zip(
        &dir.path().join("ball.fmu"),
        &[(
            "modelDescription.xml",
            fixture("fmi2_bouncing_ball.xml").as_bytes(),
        )],
    );
    let output = dir.path().join("out.csv");
    tandem(&[
        "simulate",
        path_str(&path),
        "--start-value",
        "nope=1",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("ball.fmu: unknown variable \"nope\"");
    tandem(&[
        "simulate",
        path_str(&path),
        "--start-value",
        "e=lots",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("--start-value e: \"lots\" is not a valid Float64");
    tandem(&[
        "simulate",
        path_str(&path),
        "--start-value",
        "e",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("expected name=value");
    tandem(&[
        "simulate",
        path_str(&path),
        "--start-value",
        "time=1",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with(
        "--start-value time: time is a continuous independent variable and cannot be set",
    );
}

#[test]
fn bad_experiment_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_zip(
        &dir.path().join("ball.fmu"),
        &[(
            "modelDescription.xml",
            fixture("fmi2_bouncing_ball.xml").as_bytes(),
        )],
    );
    let output = dir.path().join("out.csv");
    tandem(&[
        "simulate",
        path_str(&path),
        "--stop-time",
        "-1",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("stop time -1 must be after start time 0");
    tandem(&[
        "simulate",
        path_str(&path),
        "--step-size",
        "0.1",
        "--output-interval",
        "0.25",
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("output interval 0.25 must be a multiple of the step size 0.1");
}

#[test]
fn bad_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_zip(
        &dir.path().join("tour.fmu"),
        &[(
            "modelDescription.xml",
            fixture("fmi3_feature_tour.xml").as_bytes(),
        )],
    );
    let output = dir.path().join("out.csv");
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "\"time\",\"nope\"\n0,1\n").unwrap();
    tandem(&[
        "simulate",
        path_str(&path),
        "--input-file",
        path_str(&input),
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("in.csv: column \"nope\" is no variable");
    std::fs::write(&input, "\"time\",\"f32\"\n0,1\n").unwrap();
    tandem(&[
        "simulate",
        path_str(&path),
        "--input-file",
        path_str(&input),
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("causality is parameter, not input");
    std::fs::write(&input, "\"time\",\"i32\"\n0,1\n1,x\n").unwrap();
    tandem(&[
        "simulate",
        path_str(&path),
        "--input-file",
        path_str(&input),
        "--output-file",
        path_str(&output),
    ])
    .assert_fails_with("line 3, column 2: \"x\" is not a number");
}

#[test]
fn validate_reports_problems_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("fmi2_bouncing_ball.xml").replace(r#"name="e""#, r#"name="g""#);
    let path = write_zip(
        &dir.path().join("dup.fmu"),
        &[("modelDescription.xml", text.as_bytes())],
    );
    let run = tandem(&["validate", path_str(&path)]);
    run.assert_fails_with("variable name \"g\" is used more than once");
    assert!(run.stderr.contains("1 problem found"), "{}", run.stderr);
}

#[test]
fn validate_and_info_accept_a_good_description() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_zip(
        &dir.path().join("ball.fmu"),
        &[(
            "modelDescription.xml",
            fixture("fmi2_bouncing_ball.xml").as_bytes(),
        )],
    );
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
