//! A co-simulation that fails mid-run (an FMU call returning Error, or an FMU output turning
//! NaN) ends with exit code 1 and a message naming the instance, the call and the time, and
//! leaves the result rows written before the failure.

mod common;

use std::path::Path;

use common::double_oscillator::Setup;
use common::pythonfmu::{build_file, libpython};
use common::{read_csv, tandem, tandem_with_env};
use tandem_tests::double_oscillator::DoubleOscillator;
use tandem_tests::fmus::{self, FmiVersion};

/// Runs `tandem run system --output-file out` with `env`.
fn run(system: &Path, output: &Path, env: &[(&str, &str)]) -> common::Run {
    let args = [
        "run",
        system.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ];
    if env.is_empty() {
        tandem(&args)
    } else {
        tandem_with_env(&args, env)
    }
}

#[test]
fn an_unstable_mass_fails_with_its_call_and_time_and_keeps_the_rows_before() {
    // Symplectic Euler is unstable for omega h > 2: with k2 = 1e8 (omega h = 10) mass2's
    // state grows a hundredfold per step until its energy overflows and the FMU refuses it.
    // The same on the calling thread and on a pool of threads.
    for threads in ["1", "2"] {
        let setup = Setup {
            system: DoubleOscillator {
                k2: 1e8,
                ..DoubleOscillator::UNDAMPED
            },
            stop: 1.0,
            threads: Some(threads),
            ..Setup::jacobi("zoh", 1e-3)
        };
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.csv");
        let result = run(&setup.write(dir.path()), &output, &[]);
        result.assert_fails_with(
            "simulation failed at t = 0.077: instance mass2: fmi3GetFloat64 returned Error",
        );
        let (header, rows) = read_csv(&output);
        assert_eq!(header[1], "mass1.position");
        assert_eq!(rows.len(), 77, "rows at 0, 0.001, ..., 0.076");
        assert!((rows[76][0] - 0.076).abs() < 1e-12);
        assert!(rows.iter().flatten().all(|v| v.is_finite()));
    }
}

#[test]
fn a_nan_output_stops_the_run_at_its_time_and_keeps_the_rows_before() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nan_after_fmi2.py");
    let nan_fmu = build_file("pythonfmu", &source, "NanAfter");
    let mass = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let system = format!(
        r#"connections = ["source.y -> mass.F"]

[experiment]
stop = 1.0
step = 0.01

[[component]]
name = "source"
fmu = '{}'

[[component]]
name = "mass"
fmu = '{mass}'
"#,
        nan_fmu.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nan.toml");
    std::fs::write(&path, system).unwrap();
    let output = dir.path().join("out.csv");
    let result = run(&path, &output, &[("LD_PRELOAD", libpython())]);
    result.assert_fails_with(
        "simulation failed at t = 0.51: instance source: fmi2GetReal returned the non-finite value y = NaN",
    );
    let (header, rows) = read_csv(&output);
    assert_eq!(header[..2], ["time".to_string(), "source.y".to_string()]);
    assert_eq!(rows.len(), 51, "rows at 0, 0.01, ..., 0.5");
    for row in &rows {
        assert!(
            (row[1] - row[0]).abs() < 1e-12,
            "y = t before the NaN: {row:?}"
        );
    }
}
