//! String variables of an FMU through the command line: `tandem info` lists them with their
//! start values, `--start-value` sets a String parameter, and `--output-variable` records a
//! String output as a quoted CSV column (the bouncing ball's `surface` and `status`); by
//! default, as FMPy, only numeric and Boolean outputs are recorded.

mod common;

use common::tandem;
use tandem_tests::fmus::{self, FmiVersion};

#[test]
fn string_parameters_are_set_and_string_outputs_recorded_as_quoted_text() {
    for version in FmiVersion::ALL {
        let fmu = fmus::find("bouncing_ball", version)
            .path
            .to_str()
            .unwrap()
            .to_owned();
        let info = tandem(&["info", &fmu]);
        info.assert_success();
        for needle in ["surface", "\"ground\"", "status"] {
            assert!(
                info.stdout.contains(needle),
                "{version:?}: no {needle} in\n{}",
                info.stdout
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let default = dir.path().join("default.csv");
        tandem(&["simulate", &fmu, "--output-file", default.to_str().unwrap()]).assert_success();
        let header = std::fs::read_to_string(&default)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_owned();
        assert_eq!(
            header, r#""time","height","velocity","bounces""#,
            "{version:?}"
        );
        let output = dir.path().join("out.csv");
        let run = tandem(&[
            "simulate",
            &fmu,
            "--start-value",
            "surface=wet \"ice\", thin",
            "--output-variable",
            "status",
            "--output-variable",
            "bounces",
            "--output-file",
            output.to_str().unwrap(),
        ]);
        run.assert_success();
        let text = std::fs::read_to_string(&output).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(r#""time","status","bounces""#));
        assert_eq!(
            lines.next(),
            Some(r#"0,"bouncing on the wet ""ice"", thin after 0 impacts",0"#),
            "{version:?}"
        );
        let last = text.lines().last().unwrap();
        let bounces = last.rsplit(',').next().unwrap();
        assert!(bounces.parse::<u32>().unwrap() > 3, "{last}");
        assert!(
            last.contains(&format!(
                r#","resting on the wet ""ice"", thin after {bounces} impacts","#
            )),
            "{version:?}: {last}"
        );
    }
}
