//! `cargo xtask fuzz`: builds the `tandem-fuzz` program in release mode (fuzzing unoptimized
//! parsers would waste most of the time) and runs it with the task's arguments.

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
    let status = command.status().with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        bail!("fuzzing {target} found failures ({status})");
    }
    Ok(())
}
