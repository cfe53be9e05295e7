//! `cargo xtask demo`: builds the FMUs and the `tandem` binary, then shows what the master does
//! on the double linear oscillator split into two FMUs (the energy-correction study's
//! force-displacement split, `master/systems/energy-double-oscillator.toml`): the run
//! uncorrected and corrected, and the gradient of a cost through the corrected co-simulation
//! (`master/systems/energy-double-oscillator-gradient.toml`), with result files and plots in
//! `<target dir>/demo/` and a short summary on standard output.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use tandem::gradient::{section, Differences, Method};
use tandem::system::LoadOptions;

use crate::{cargo, fmus};

/// The system the energy section runs.
const SYSTEM: &str = "master/systems/energy-double-oscillator.toml";

/// The same system with the correction on and a `[gradient]` section, for the gradient section.
const GRADIENT_SYSTEM: &str = "master/systems/energy-double-oscillator-gradient.toml";

/// What the sections share: the built `tandem`, the FMUs and the output folder.
struct Demo {
    tandem: PathBuf,
    fmu_dir: PathBuf,
    system: PathBuf,
    gradient_system: PathBuf,
    out: PathBuf,
}

/// Prepares the FMUs, the binary and `<target dir>/demo/`, runs every section and prints their
/// summaries.
pub fn run() -> Result<()> {
    let metadata = cargo::metadata()?;
    let fmus = fmus::package_all(None)?;
    let tandem = cargo::build_tandem(&metadata)?;
    let out = metadata.target_directory.join("demo");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let demo = Demo {
        tandem,
        fmu_dir: fmus.join("fmi3"),
        system: metadata.workspace_root.join(SYSTEM),
        gradient_system: metadata.workspace_root.join(GRADIENT_SYSTEM),
        out,
    };
    // Each section writes its files into `demo.out` and returns its summary lines.
    let mut summary = energy_correction(&demo)?;
    summary.extend(gradient(&demo)?);
    summary.push(format!("files: {}", demo.out.display()));
    println!("{}", summary.join("\n"));
    Ok(())
}

/// Runs the system uncorrected and corrected; the summary lines.
fn energy_correction(demo: &Demo) -> Result<Vec<String>> {
    let mut energies = Vec::new();
    for (label, switch) in [("uncorrected", "off"), ("corrected", "on")] {
        let result = demo.out.join(format!("double-oscillator-{label}.csv"));
        demo.tandem_run(
            &result,
            &[
                "--energy-correction",
                switch,
                "--plot",
                "energy",
                "--plot",
                "variables",
            ],
        )?;
        energies.push(first_and_last(&result, "total_energy")?);
    }
    let [(e0, uncorrected), (_, corrected)] = [energies[0], energies[1]];
    let change = |e: f64| 100.0 * (e - e0) / e0;
    Ok(vec![
        "Double linear oscillator as two FMUs (coupled_mass + mass), Jacobi, ZOH, H = 1 ms, 10 s:"
            .into(),
        format!("  E0 = {e0:.1} J"),
        format!(
            "  E(10 s) uncorrected = {uncorrected:.1} J ({:+.1} %)",
            change(uncorrected)
        ),
        format!(
            "  E(10 s) corrected   = {corrected:.1} J ({:+.1} %)  (mu = 0.5, nu = 0, cap 100 %)",
            change(corrected)
        ),
        "  plots: double-oscillator-<uncorrected|corrected>_energy.png and _variables.png".into(),
    ])
}

/// The gradient of `J = integral of m2.position` over the corrected co-simulation with respect
/// to the springs and masses, by the adjoint (the correction's derivative included), checked by
/// central differences of whole runs, and as the adjoint would be without the correction's
/// derivative; the table goes to `gradient.csv`. The summary lines.
fn gradient(demo: &Demo) -> Result<Vec<String>> {
    let load = || LoadOptions {
        fmu_dir: Some(&demo.fmu_dir),
        ..LoadOptions::default()
    };
    let mut problem = section::problem(&demo.gradient_system, load())?;
    let values = problem.start_values();
    let evaluation = problem.gradient(&values)?;
    let all: Vec<usize> = (0..values.len()).collect();
    let differences = problem.finite_differences(&values, &all, Differences::CHECK)?;
    let without = section::problem(&demo.gradient_system, load())?
        .with_correction_derivative(false)
        .gradient(&values)?;
    let relative = |a: f64, b: f64| (a - b).abs() / b.abs();
    let mut csv = String::from(
        "parameter,value,dJ/dp,method,central differences,relative error,\
         dJ/dp without the correction's derivative\n",
    );
    let mut lines = vec![
        format!("Gradient through the corrected co-simulation ({GRADIENT_SYSTEM}, 0.5 s):"),
        format!("  J = integral of m2.position = {:.6e}", evaluation.cost),
        format!(
            "  {:<6} {:>13} {:>13} {:>8}   {}",
            "p", "dJ/dp adjoint", "differences", "error", "without the correction's derivative"
        ),
    ];
    for (i, parameter) in problem.parameters().iter().enumerate() {
        let (g, d, w) = (evaluation.gradient[i], differences[i], without.gradient[i]);
        let method = match &evaluation.methods[i] {
            Method::Adjoint => "adjoint",
            Method::ForwardSensitivities => "forward sensitivities",
            Method::FiniteDifferences { .. } => "finite differences",
        };
        csv.push_str(&format!(
            "{},{},{g:e},{method},{d:e},{:e},{w:e}\n",
            parameter.name,
            values[i],
            relative(g, d)
        ));
        lines.push(format!(
            "  {:<6} {g:>13.6e} {d:>13.6e} {:>8.1e}   {w:.6e} (error {:.1e})",
            parameter.name,
            relative(g, d),
            relative(w, d)
        ));
    }
    let path = demo.out.join("gradient.csv");
    std::fs::write(&path, csv).with_context(|| format!("cannot write {}", path.display()))?;
    lines.push("  table: gradient.csv".into());
    Ok(lines)
}

impl Demo {
    /// `tandem run` of the demo system into `result` with `extra` arguments; its messages are
    /// shown only if it fails.
    fn tandem_run(&self, result: &Path, extra: &[&str]) -> Result<()> {
        let output = Command::new(&self.tandem)
            .arg("run")
            .arg(&self.system)
            .arg("--output-file")
            .arg(result)
            .arg("--fmu-dir")
            .arg(&self.fmu_dir)
            .args(extra)
            .output()
            .with_context(|| format!("cannot run {}", self.tandem.display()))?;
        if !output.status.success() {
            bail!(
                "`tandem run {}` failed ({}):\n{}",
                self.system.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }
}

/// The first and last values of column `name` of a result file.
fn first_and_last(path: &Path, name: &str) -> Result<(f64, f64)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let index = header
        .split(',')
        .position(|h| h.trim_matches('"') == name)
        .with_context(|| format!("{}: no column {name}", path.display()))?;
    let value = |line: &str| -> Result<f64> {
        let field = line.split(',').nth(index).unwrap_or_default();
        field
            .parse()
            .with_context(|| format!("{}: {field:?} is not a number", path.display()))
    };
    let first = lines.next().context("no rows")?;
    let last = lines.last().unwrap_or(first);
    Ok((value(first)?, value(last)?))
}
