//! The default Model Exchange solver (`--solver auto`) on the Modelica Reference-FMUs: on the
//! stiff Robertson problem it changes to the implicit method and finishes where Dormand–Prince
//! alone would take hours, agreeing with FMPy run as a user would; on the non-stiff van der Pol
//! oscillator it stays on Dormand–Prince and computes the same numbers to the last bit.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::trajectory::Trajectory;

use common::reference_fmu;

/// Longest a run may take before it counts as hanging.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A finished `tandem simulate` run: its result file's contents and its standard error.
struct Finished {
    csv: String,
    stderr: String,
}

/// Runs `tandem simulate fmu --interface-type me args...`, killed after [`TIMEOUT`].
fn simulate(fmu: &Path, args: &[&str]) -> Finished {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result.csv");
    let stderr_file = dir.path().join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("simulate")
        .arg(fmu)
        .args(["--interface-type", "me"])
        .args(args)
        .arg("--output-file")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_file).unwrap())
        .spawn()
        .expect("run tandem");
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > TIMEOUT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("tandem simulate {args:?} did not finish in {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&stderr_file).unwrap();
    assert!(status.success(), "tandem {args:?} failed:\n{stderr}");
    Finished {
        csv: std::fs::read_to_string(&out).unwrap(),
        stderr,
    }
}

#[test]
fn roberts_under_the_default_solver_finishes_switches_and_agrees_with_fmpy() {
    let fmu = reference_fmu("Roberts");
    let run = simulate(&fmu, &[]);
    assert!(
        run.stderr.contains("Model Exchange (auto: dopri5 1e-5–")
            && run.stderr.contains(", esdirk ")
            && run.stderr.contains("–1e8 (1 switch)"),
        "{}",
        run.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tandem.csv");
    std::fs::write(&path, &run.csv).unwrap();
    let ours = Trajectory::read_csv(&path).unwrap();
    let theirs = fmpy::simulate(&fmu, &Simulation::new(Interface::ModelExchange))
        .unwrap_or_else(|e| panic!("{e}"));
    // FMPy's grid counts from the start time 1e-5, so its last row is a hair past 1e8.
    assert_eq!(ours.last("time"), 1e8);
    assert!(
        (theirs.last("time") - 1e8).abs() < 1e-3,
        "{}",
        theirs.last("time")
    );
    for name in ["y1", "y2", "y3"] {
        let (a, b) = (ours.last(name), theirs.last(name));
        assert!(
            (a - b).abs() <= 1e-3 * b.abs(),
            "{name} at t = 1e8: tandem {a:e}, FMPy {b:e}"
        );
    }
}

#[test]
fn van_der_pol_stays_on_dormand_prince_to_the_last_bit() {
    let fmu = reference_fmu("VanDerPol");
    let auto = simulate(&fmu, &[]);
    let dopri5 = simulate(&fmu, &["--solver", "dopri5"]);
    assert!(
        auto.stderr.contains("(auto: dopri5 0–20, no switch)"),
        "{}",
        auto.stderr
    );
    assert!(auto.csv.lines().count() > 100, "{}", auto.csv);
    assert_eq!(auto.csv, dopri5.csv);
}
