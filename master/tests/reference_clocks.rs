//! The Reference-FMUs' `Clocks` (FMI 3.0, Scheduled Execution only) under `tandem simulate`:
//! refused with the interfaces it implements when another one is asked for.

mod common;

use std::path::PathBuf;

use common::tandem;

/// The Clocks FMU of the Reference-FMUs v0.0.41.
fn clocks_fmu() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-fmus/fmi3/Clocks.fmu")
}

#[test]
fn another_interface_is_refused_naming_scheduled_execution() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    for interface in ["cs", "me"] {
        tandem(&[
            "simulate",
            clocks_fmu().to_str().unwrap(),
            "--interface-type",
            interface,
            "--output-file",
            output.to_str().unwrap(),
        ])
        .assert_fails_with("(it implements: Scheduled Execution)");
    }
}
