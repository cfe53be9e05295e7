//! The faulty test FMU (`tests/fixtures/faulty_fmu`, C, compiled here with `cc`): its output y
//! follows time, and its parameters make doStep fail, crash or sleep from a given time on; with
//! `FAULTY_FMU_LEDGER` set to a file, it appends a line there at each instantiation and free.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::write_zip;

/// Compiles the faulty FMU and packs it as `dir/faulty.fmu`, with its binary cut to `keep`
/// bytes if given.
pub fn faulty_fmu(dir: &Path, keep: Option<usize>) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/faulty_fmu");
    let library = dir.join("faulty.so");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&library)
        .arg(source.join("faulty.c"))
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed");
    let mut binary = std::fs::read(&library).unwrap();
    if let Some(keep) = keep {
        binary.truncate(keep);
    }
    let description = std::fs::read(source.join("modelDescription.xml")).unwrap();
    write_zip(
        &dir.join("faulty.fmu"),
        &[
            ("modelDescription.xml", &description),
            ("binaries/x86_64-linux/faulty.so", &binary),
        ],
    )
}
