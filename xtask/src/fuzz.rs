//! `cargo xtask fuzz`: builds the `tandem-fuzz` program in release mode (fuzzing unoptimized
//! parsers would waste most of the time) and runs it with the task's arguments; the target
//! `fmi-calls` runs the random FMI call sequences of `tests/tests/call_sequences.rs` instead,
//! in release mode, `runs` sequences per model and FMI version (the interfaces taking turns).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cargo;

/// Runs `runs` cases of `target` from `seed` (or only `case`, or only the saved `input`),
/// saving failing inputs under `crashes`.
pub fn run(
    target: &str,
    runs: u64,
    seed: u64,
    case: Option<u64>,
    input: Option<PathBuf>,
    crashes: Option<PathBuf>,
) -> Result<()> {
    if target == "fmi-calls" {
        return call_sequences(runs);
    }
    let metadata = cargo::metadata()?;
    let program = cargo::build_release_binary(&metadata, "tandem-fuzz", "tandem-fuzz")?;
    let crashes = crashes.unwrap_or_else(|| metadata.target_directory.join("fuzz-crashes"));
    let mut command = Command::new(&program);
    command
        .arg(target)
        .args(["--runs", &runs.to_string(), "--seed", &seed.to_string()])
        .arg("--crashes")
        .arg(&crashes);
    if let Some(case) = case {
        command.args(["--case", &case.to_string()]);
    }
    if let Some(input) = input {
        command.arg("--input").arg(input);
    }
    let status = command
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        bail!("fuzzing {target} found failures ({status})");
    }
    Ok(())
}

/// `runs` random call sequences per model and FMI version on the exported FMUs.
fn call_sequences(runs: u64) -> Result<()> {
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "test",
            "--release",
            "-p",
            "tandem-tests",
            "--test",
            "call_sequences",
        ])
        .env("TANDEM_CALL_SEQUENCES", runs.to_string())
        .status()
        .context("cannot run cargo test")?;
    if !status.success() {
        bail!("the FMI call sequences found failures ({status})");
    }
    Ok(())
}
