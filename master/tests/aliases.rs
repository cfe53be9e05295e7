//! FMI 3.0 `<Alias>`: the Reference-FMUs BouncingBall's `h_ft` (an alias of `h` shown in feet),
//! rebuilt on Tandem's bouncing ball: listed by `info`, recorded by `simulate` and `run` under
//! its own name and converted to its display unit.

mod common;

use std::path::{Path, PathBuf};

use common::{read_csv, tandem};
use tandem_tests::fmus::{self, FmiVersion};

/// Feet per metre, the display unit's factor.
const FT: f64 = 3.28084;

/// Tandem's FMI 3.0 bouncing ball with `h_ft` (display unit ft) and `h_m` (no display unit) as
/// aliases of `h`, written to `dir`.
fn ball_with_aliases(dir: &Path) -> PathBuf {
    let source = &fmus::find("bouncing_ball", FmiVersion::Fmi3).path;
    common::edit_model_description(source, &dir.join("BouncingBall.fmu"), |text| {
        let unit = r#"<Unit name="m">
      <BaseUnit m="1"/>
    </Unit>"#;
        let h = r#"unit="m" start="1" reinit="true"/>"#;
        assert!(text.contains(unit) && text.contains(h), "{text}");
        text.replace(
            unit,
            &format!(
                r#"<Unit name="m"><BaseUnit m="1"/><DisplayUnit name="ft" factor="{FT}"/></Unit>"#
            ),
        )
        .replace(
            h,
            r#"unit="m" start="1" reinit="true"><Alias name="h_ft" description="height in feet" displayUnit="ft"/><Alias name="h_m"/></Float64>"#,
        )
    })
}

/// Column `name` of a result file.
fn column(header: &[String], rows: &[Vec<f64>], name: &str) -> Vec<f64> {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("{name} in {header:?}"));
    rows.iter().map(|row| row[i]).collect()
}

#[test]
fn info_lists_an_alias_with_its_description_and_display_unit() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = ball_with_aliases(dir.path());
    let run = tandem(&["info", fmu.to_str().unwrap()]);
    run.assert_success();
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("h_ft "))
        .unwrap_or_else(|| panic!("no h_ft row:\n{}", run.stdout));
    for part in ["alias of h", "ft", "height in feet"] {
        assert!(line.contains(part), "{line}");
    }
}

#[test]
fn simulate_records_an_alias_in_its_display_unit() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = ball_with_aliases(dir.path());
    let out = dir.path().join("out.csv");
    let run = tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--output-variable",
        "h",
        "--output-variable",
        "h_ft",
        "--output-variable",
        "h_m",
        "--stop-time",
        "1",
        "--output-file",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let (header, rows) = read_csv(&out);
    assert_eq!(header, ["time", "h", "h_ft", "h_m"]);
    let (h, h_ft, h_m) = (
        column(&header, &rows, "h"),
        column(&header, &rows, "h_ft"),
        column(&header, &rows, "h_m"),
    );
    assert_eq!(h[0], 1.0);
    for k in 0..h.len() {
        assert!(
            (h_ft[k] - FT * h[k]).abs() <= 1e-12 * h_ft[k].abs().max(1.0),
            "row {k}"
        );
        assert_eq!(h_m[k], h[k]);
    }
}

#[test]
fn a_system_records_and_connects_an_alias() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = ball_with_aliases(dir.path());
    let system = dir.path().join("system.toml");
    std::fs::write(
        &system,
        format!(
            r#"
[experiment]
stop = 0.5
step = 0.01

[[component]]
name = "ball"
fmu = "{}"

[output]
variables = ["ball.h", "ball.h_ft"]
"#,
            fmu.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    let out = dir.path().join("out.csv");
    let run = tandem(&[
        "run",
        system.to_str().unwrap(),
        "--output-file",
        out.to_str().unwrap(),
    ]);
    run.assert_success();
    let (header, rows) = read_csv(&out);
    assert_eq!(header, ["time", "ball.h", "ball.h_ft"]);
    let (h, h_ft) = (
        column(&header, &rows, "ball.h"),
        column(&header, &rows, "ball.h_ft"),
    );
    assert!(h[h.len() - 1] < 1.0);
    for k in 0..h.len() {
        assert!(
            (h_ft[k] - FT * h[k]).abs() <= 1e-12 * h_ft[k].abs().max(1.0),
            "row {k}"
        );
    }
}
