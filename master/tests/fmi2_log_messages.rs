//! FMI 2.0 log messages reach the user formatted with their printf arguments: a small C FMU,
//! compiled here with the system's C compiler, logs `%s`, `%d`, `%g` and `%%` at every step.
#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{tandem, write_zip};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/log_formats")
        .join(name)
}

/// Compiles `log_formats.c` and packs it with its model description into `dir/LogFormats.fmu`.
fn log_formats_fmu(dir: &Path) -> PathBuf {
    let library = dir.join("LogFormats.so");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let output = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-fvisibility=hidden", "-O1", "-o"])
        .arg(&library)
        .arg(fixture_path("log_formats.c"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {compiler}: {e}"));
    assert!(
        output.status.success(),
        "compiling log_formats.c failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let description = std::fs::read(fixture_path("modelDescription.xml")).unwrap();
    let binary = std::fs::read(&library).unwrap();
    write_zip(
        &dir.join("LogFormats.fmu"),
        &[
            ("modelDescription.xml", &description),
            ("binaries/linux64/LogFormats.so", &binary),
        ],
    )
}

#[test]
fn fmi2_log_messages_are_formatted() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = log_formats_fmu(dir.path());
    let output = dir.path().join("out.csv");
    let run = tandem(&[
        "simulate",
        fmu.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ]);
    run.assert_success();
    for step in 1..=3 {
        let line = format!(
            "[Warning] LogFormats (logStatusWarning): step {step} of LogFormats ended at t = {}, 100% done",
            [0.1, 0.2, 0.3][step - 1]
        );
        assert!(run.stderr.contains(&line), "{line:?} in {}", run.stderr);
    }
    for directive in ["%s", "%d", "%g", "%%"] {
        assert!(
            !run.stderr.contains(directive),
            "{directive} left in {}",
            run.stderr
        );
    }
}
