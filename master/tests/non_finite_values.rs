//! FMUs that return NaN part-way through a run (built with `pythonfmu`/`pythonfmu3`: Tandem's
//! own FMUs refuse to return non-finite values): `tandem simulate` stops with exit code 1 and
//! an error naming the variable and the time, and the rows before stay in the result file.

mod common;

use std::path::Path;

use common::pythonfmu::{build, libpython};
use common::{read_csv, tandem_with_env, Run};

fn tandem(args: &[&str]) -> Run {
    tandem_with_env(args, &[("LD_PRELOAD", libpython())])
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The number written after `prefix` in `text`.
fn number_after(text: &str, prefix: &str) -> f64 {
    let rest = &text[text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"))
        + prefix.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | '-' | '+')))
        .unwrap_or(rest.len());
    rest[..end]
        .parse()
        .unwrap_or_else(|_| panic!("no number after {prefix:?} in {text}"))
}

#[test]
fn a_nan_output_in_co_simulation_names_the_variable_and_time_and_keeps_earlier_rows() {
    let fmu = build("pythonfmu", "nan_output_fmi2", "NanOutput");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nan.csv");
    let plot = dir.path().join("nan.png");
    let run = tandem(&[
        "simulate",
        s(&fmu),
        "--stop-time",
        "1",
        "--step-size",
        "0.1",
        "--start-value",
        "t_nan=0.5",
        "--output-file",
        s(&out),
        "--plot",
        s(&plot),
    ]);
    run.assert_fails_with("simulation failed at t = 0.5: NanOutput returned y = NaN");
    let (header, rows) = read_csv(&out);
    assert_eq!(header, ["time", "y"]);
    assert_eq!(rows.len(), 5, "rows at 0, 0.1, ..., 0.4: {rows:?}");
    for row in &rows {
        assert!(
            (row[1] - row[0]).abs() < 1e-12,
            "y = t before the NaN: {row:?}"
        );
    }
    assert!(
        plot.is_file(),
        "the plot of the rows before the failure is drawn"
    );
}

#[test]
fn a_nan_derivative_in_model_exchange_names_the_derivative_and_time_for_both_solvers() {
    let fmu = build("pythonfmu3", "nan_derivative_me_fmi3", "NanDerivative");
    let dir = tempfile::tempdir().unwrap();
    for solver in ["dopri5", "esdirk"] {
        let out = dir.path().join(format!("nan_{solver}.csv"));
        let run = tandem(&[
            "simulate",
            s(&fmu),
            "--solver",
            solver,
            "--stop-time",
            "1",
            "--output-interval",
            "0.1",
            "--start-value",
            "t_nan=0.5",
            "--output-file",
            s(&out),
        ]);
        run.assert_fails_with("NanDerivative returned der_x = NaN at t = ");
        let at = number_after(&run.stderr, "der_x = NaN at t = ");
        let failed = number_after(&run.stderr, "simulation failed at t = ");
        assert!((at - 0.5).abs() < 1e-9, "{solver}: NaN reported at {at}");
        assert!(
            failed <= 0.5 && failed > 0.5 - 1e-9,
            "{solver}: the run stops just before 0.5, at {failed}"
        );
        let (_, rows) = read_csv(&out);
        assert_eq!(
            rows.len(),
            5,
            "{solver}: rows at 0, 0.1, ..., 0.4: {rows:?}"
        );
        for row in &rows {
            assert!(
                (row[1] - (-row[0]).exp()).abs() < 1e-5,
                "{solver}: x = exp(-t) before the NaN: {row:?}"
            );
        }
    }
}
