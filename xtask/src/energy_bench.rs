//! `cargo xtask bench energy`: the energy-correction benchmark, the master's example program
//! `energy_benchmark`, built optimized and run; it prints Markdown tables (energy and state
//! errors against the monolithic references at several macro steps, uncorrected and
//! corrected; the largest accurate macro step; the cost of monitoring and correction).

use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cargo;

/// The master's package and its benchmark program.
const PACKAGE: &str = "tandem";
const EXAMPLE: &str = "energy_benchmark";

/// Builds and runs the benchmark program; its tables go to standard output.
pub fn run() -> Result<()> {
    let metadata = cargo::metadata()?;
    let package = metadata
        .packages
        .iter()
        .find(|p| p.name == PACKAGE)
        .with_context(|| format!("no package `{PACKAGE}` in the workspace"))?;
    let outputs = cargo::build_release_targets(&[package], &["--example", EXAMPLE])?;
    let program = outputs
        .get(&package.id)
        .and_then(|o| o.executables.get(EXAMPLE))
        .with_context(|| format!("the build produced no `{EXAMPLE}` program"))?;
    let status = Command::new(program)
        .current_dir(&metadata.workspace_root)
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", program.display());
    }
    Ok(())
}
