//! `cargo xtask bench`: the cost of the FMI 3.0 C ABI. Builds the `abi` bench program of every
//! model crate that has one (optimized), runs each against its crate's shared library, and
//! prints a Markdown table of the median times per communication step.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::cargo::{self, Package};

/// The bench target every benchmarked model crate declares.
const BENCH: &str = "abi";

/// What a bench program prints (one JSON line).
#[derive(Debug, Deserialize)]
struct Measurement {
    model: String,
    steps: usize,
    step_size: f64,
    repetitions: usize,
    /// Median seconds of a run through the C ABI.
    c_abi: f64,
    /// Median seconds of a run calling the integrator directly, doing what the FMU does.
    direct: f64,
    /// Median seconds of a run of the integrator's steps alone (no sensitivities).
    integrator: f64,
}

/// Builds and runs the bench programs with `steps` communication steps per run and
/// `repetitions` runs of each side, and prints the table.
pub fn run(steps: usize, repetitions: usize) -> Result<()> {
    let metadata = cargo::metadata()?;
    let models_dir = metadata.workspace_root.join("models");
    let packages: Vec<&Package> = metadata
        .packages
        .iter()
        .filter(|p| p.dir().starts_with(&models_dir))
        .filter(|p| {
            p.targets
                .iter()
                .any(|t| t.name == BENCH && t.kind.iter().any(|k| k == "bench"))
        })
        .collect();
    if packages.is_empty() {
        bail!(
            "no model crate under {} has a bench target `{BENCH}`",
            models_dir.display()
        );
    }
    let outputs = cargo::build_benches(&packages, BENCH)?;
    let mut rows = Vec::new();
    for package in &packages {
        let built = outputs.get(&package.id);
        let library = built
            .and_then(|o| o.library.as_deref())
            .with_context(|| format!("{}: the build produced no shared library", package.name))?;
        let program = built
            .and_then(|o| o.executables.get(BENCH))
            .with_context(|| format!("{}: the build produced no `{BENCH}` bench", package.name))?;
        eprintln!("measuring {} ...", package.name);
        rows.push(measure(program, library, steps, repetitions)?);
    }
    println!("| model | steps | step (s) | runs | C ABI (us/step) | direct (us/step) | ratio | integrator alone (us/step) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for m in &rows {
        let per_step = |seconds: f64| seconds / m.steps as f64 * 1e6;
        println!(
            "| {} | {} | {:e} | {} | {:.3} | {:.3} | {:.2} | {:.3} |",
            m.model,
            m.steps,
            m.step_size,
            m.repetitions,
            per_step(m.c_abi),
            per_step(m.direct),
            m.c_abi / m.direct,
            per_step(m.integrator)
        );
    }
    Ok(())
}

/// Runs one bench program and reads its measurement.
fn measure(
    program: &Path,
    library: &Path,
    steps: usize,
    repetitions: usize,
) -> Result<Measurement> {
    let output = Command::new(program)
        .arg("--library")
        .arg(library)
        .args([
            "--steps",
            &steps.to_string(),
            "--repetitions",
            &repetitions.to_string(),
        ])
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}):\n{}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line)
        .with_context(|| format!("{} printed no measurement: {stdout}", program.display()))
}
