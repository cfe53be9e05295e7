//! What `tandem simulate` records when no variable is named, on a Dymola-style FMU that
//! declares no outputs (Tandem's FMI 2.0 bouncing ball with its outputs made local): the
//! continuous states, the same columns FMPy records, and the summary line says so.

mod common;

use common::{read_csv, tandem};
use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::fmus::{self, FmiVersion};

#[test]
fn an_fmu_without_outputs_records_its_states_as_fmpy_does() {
    let dir = tempfile::tempdir().unwrap();
    let source = &fmus::find("bouncing_ball", FmiVersion::Fmi2).path;
    let fmu = common::edit_model_description(source, &dir.path().join("ball.fmu"), |text| {
        assert!(text.contains(r#"causality="output""#));
        // The outputs (indices 8, 9, 10) leave the ModelStructure with their causality.
        let gone = ["<Outputs>", "</Outputs>", r#""8""#, r#""9""#, r#""10""#];
        text.replace(r#"causality="output""#, r#"causality="local""#)
            .lines()
            .filter(|line| {
                !(line.trim_start().starts_with("<Unknown ") || line.contains("Outputs>"))
                    || !gone.iter().any(|g| line.contains(g))
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let out = dir.path().join("out.csv");
    let run = tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--stop-time",
        "1",
        "--output-file",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let (header, rows) = read_csv(&out);
    assert_eq!(header, ["time", "h", "v"]);
    assert_eq!(rows[0][1..], [1.0, 0.0]);
    assert!(
        run.stderr
            .contains("recorded the 2 continuous states (the FMU declares no outputs"),
        "{}",
        run.stderr
    );
    let theirs = fmpy::simulate(
        &fmu,
        &Simulation {
            stop_time: Some(1.0),
            ..Simulation::new(Interface::CoSimulation)
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(theirs.names, header);
}

#[test]
fn output_variables_take_patterns_and_all() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = &fmus::find("bouncing_ball", FmiVersion::Fmi3).path;
    let out = dir.path().join("out.csv");
    let simulate = |pattern: &str| {
        tandem(&[
            "simulate",
            fmu.to_str().unwrap(),
            "--output-variable",
            pattern,
            "--stop-time",
            "0.1",
            "--output-file",
            out.to_str().unwrap(),
        ])
    };
    simulate("*ity").assert_success();
    assert_eq!(read_csv(&out).0, ["time", "velocity"]);
    simulate("all").assert_success();
    let header = read_csv(&out).0;
    for name in [
        "h", "v", "g", "e", "height", "velocity", "bounces", "resting",
    ] {
        assert!(header.iter().any(|h| h == name), "{name} in {header:?}");
    }
    simulate("nothing*").assert_fails_with("unknown variable \"nothing*\"");
}
