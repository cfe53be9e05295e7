//! Every way a `tandem simulate` run can end early leaves a well-formed result file whose rows
//! end at the last completed step: an FMU call returning Error, an FMU that crashes inside a
//! call (also for `tandem run`), SIGTERM (also for `tandem run`). A damaged FMU binary is refused before it is loaded,
//! and the default result file is named after the FMU file.
//!
//! The FMU is `tests/fixtures/faulty_fmu` (C, compiled here with `cc`): its output y follows
//! time, and its parameters make doStep fail, crash or sleep from a given time on.

// The FMU is compiled for, and packed as, x86_64 Linux.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::faulty::faulty_fmu;
use common::{read_csv, tandem};

/// `tandem simulate fmu --output-file out --start-value ...` with `extra` arguments.
fn simulate_args(fmu: &Path, output: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["simulate", fmu.to_str().unwrap(), "--output-file"]
        .map(String::from)
        .into();
    args.push(output.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Asserts that `output` holds the header and whole rows at 0, step, 2 step, ... up to
/// `last` (y = time on every row).
fn assert_rows_up_to(output: &Path, step: f64, last: f64) {
    assert_rows_of_up_to(output, "y", step, last);
}

/// [`assert_rows_up_to`] with the output's column named `y` (`f.y` in a system's result).
fn assert_rows_of_up_to(output: &Path, y: &str, step: f64, last: f64) {
    let text = std::fs::read_to_string(output).unwrap();
    assert!(text.ends_with('\n'), "the last row is whole: {text:?}");
    let (header, rows) = read_csv(output);
    assert_eq!(header, ["time", y]);
    let expected = (last / step).round() as usize + 1;
    assert_eq!(rows.len(), expected, "rows 0, {step}, ..., {last}");
    for (k, row) in rows.iter().enumerate() {
        assert!((row[0] - k as f64 * step).abs() < 1e-9, "row {k}: {row:?}");
        assert!((row[1] - row[0]).abs() < 1e-9, "row {k}: {row:?}");
    }
}

/// A system file `dir/system.toml` of one faulty component `f` with `parameters` (TOML inline
/// table entries), to `stop` in macro steps `step`.
fn faulty_system(dir: &Path, stop: f64, step: f64, parameters: &str) -> PathBuf {
    let fmu = faulty_fmu(dir, None);
    let system = dir.join("system.toml");
    std::fs::write(
        &system,
        format!(
            "[experiment]\nstop = {stop:?}\nstep = {step:?}\n\n[[component]]\nname = \"f\"\n\
             fmu = '{}'\nparameters = {{ {parameters} }}\n",
            fmu.display()
        ),
    )
    .unwrap();
    system
}

#[test]
fn an_fmu_error_keeps_the_rows_before_the_failing_step() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), None);
    let output = dir.path().join("out.csv");
    let args = simulate_args(&fmu, &output, &["--start-value", "fail_at=0.45"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The step from 0.5 fails: the rows up to its start stay.
    tandem(&args).assert_fails_with("fmi3DoStep returned Error");
    assert_rows_up_to(&output, 0.1, 0.5);
}

#[test]
fn a_crash_inside_a_call_is_named_and_keeps_the_rows_before() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), None);
    let output = dir.path().join("out.csv");
    let args = simulate_args(&fmu, &output, &["--start-value", "crash_at=0.45"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = tandem(&args);
    // The step from 0.5 crashes: the rows up to its start stay.
    assert_eq!(run.code, None, "killed by the signal: {}", run.stderr);
    assert!(
        run.stderr.contains(
            "error: instance faulty test model crashed with SIGSEGV in DoStep at t = 0.5"
        ),
        "{}",
        run.stderr
    );
    assert_rows_up_to(&output, 0.1, 0.5);
}

#[test]
fn a_crash_inside_a_system_run_names_the_component_and_keeps_the_rows_before() {
    let dir = tempfile::tempdir().unwrap();
    let system = faulty_system(dir.path(), 1.0, 0.1, "crash_at = 0.45");
    let output = dir.path().join("out.csv");
    let run = tandem(&[
        "run",
        system.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ]);
    // The macro step from 0.5 crashes: the rows up to its start stay.
    assert_eq!(run.code, None, "killed by the signal: {}", run.stderr);
    assert!(
        run.stderr
            .contains("error: instance f crashed with SIGSEGV in DoStep at t = 0.5"),
        "{}",
        run.stderr
    );
    assert_rows_of_up_to(&output, "f.y", 0.1, 0.5);
}

#[test]
fn sigterm_ends_the_run_after_a_whole_row() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), None);
    let output = dir.path().join("out.csv");
    // 10^4 steps of 1 ms sleep: about 10 s unless interrupted.
    let args = simulate_args(
        &fmu,
        &output,
        &[
            "--stop-time",
            "100",
            "--step-size",
            "0.01",
            "--start-value",
            "delay=0.001",
        ],
    );
    let time = terminate_after_some_rows(&args, &output);
    assert_rows_up_to(&output, 0.01, time);
}

#[test]
fn sigterm_ends_a_system_run_after_a_whole_row() {
    let dir = tempfile::tempdir().unwrap();
    let system = faulty_system(dir.path(), 100.0, 0.01, "delay = 0.001");
    let output = dir.path().join("out.csv");
    let args = [
        "run".to_string(),
        system.display().to_string(),
        "--output-file".into(),
        output.display().to_string(),
    ];
    let time = terminate_after_some_rows(&args, &output);
    assert_rows_of_up_to(&output, "f.y", 0.01, time);
}

/// Starts `tandem args`, sends SIGTERM once `output` has a few rows, and returns the time
/// the run says it stopped at, after checking its exit code.
fn terminate_after_some_rows(args: &[String], output: &Path) -> f64 {
    let child = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Rows reach the file at least every half second: wait for some, then interrupt.
    let began = Instant::now();
    while read_csv_lines(output) < 5 {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "no rows appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let finished = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&finished.stderr);
    assert_eq!(finished.status.code(), Some(1), "{stderr}");
    let time: f64 = stderr
        .split("interrupted by SIGTERM at t = ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c == ';' || c.is_whitespace()).next())
        .unwrap_or_else(|| panic!("no interruption message: {stderr}"))
        .parse()
        .unwrap();
    assert!(time > 0.0 && time < 100.0, "{stderr}");
    time
}

/// Lines in `path` so far (0 if it does not exist yet).
fn read_csv_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

#[test]
fn a_truncated_binary_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), Some(1000));
    let output = dir.path().join("out.csv");
    let args = simulate_args(&fmu, &output, &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = tandem(&args);
    run.assert_fails_with("binaries/x86_64-linux/faulty.so");
    run.assert_fails_with("damaged ELF file");
}

#[test]
fn the_default_result_file_is_named_after_the_fmu_file() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), None);
    let status = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["simulate", fmu.to_str().unwrap()])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_rows_up_to(&dir.path().join("faulty_out.csv"), 0.1, 1.0);
    assert!(!dir.path().join("faulty test model_out.csv").exists());
}
