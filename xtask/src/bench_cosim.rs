//! `cargo xtask bench-cosim`: co-simulation benchmarks. Packages every model's FMUs into
//! `<target dir>/fmus`, builds the master's `cosim` bench program (optimized) and runs it on
//! them; the program prints the Markdown tables (master vs native loop, master vs FMPy, Jacobi
//! in parallel vs in turn, and the Jacobi layouts vs Gauss-Seidel on a chain of Reference-FMUs).

use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{cargo, fmus};

/// The master package and its bench target.
const PACKAGE: &str = "tandem";
const BENCH: &str = "cosim";

/// Builds the FMUs and the bench program, then runs it with `repetitions` runs per timed side
/// of the double-oscillator comparison (at most three of the longer ones).
pub fn run(repetitions: usize) -> Result<()> {
    fmus::run(None)?;
    let metadata = cargo::metadata()?;
    let package = metadata
        .packages
        .iter()
        .find(|p| p.name == PACKAGE)
        .with_context(|| format!("the workspace has no package `{PACKAGE}`"))?;
    let outputs = cargo::build_benches(&[package], BENCH)?;
    let program = outputs
        .get(&package.id)
        .and_then(|o| o.executables.get(BENCH))
        .with_context(|| format!("{PACKAGE}: the build produced no `{BENCH}` bench"))?;
    eprintln!("measuring ...");
    let status = Command::new(program)
        .arg("--fmus")
        .arg(metadata.target_directory.join("fmus"))
        .args(["--repetitions", &repetitions.to_string()])
        .current_dir(&metadata.workspace_root)
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", program.display());
    }
    Ok(())
}
