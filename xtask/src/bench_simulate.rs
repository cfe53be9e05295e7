//! `cargo xtask bench-simulate`: the whole-process time of one FMU run in three hosts,
//! `tandem simulate`, fmi-sim (rust-fmi's command line) and FMPy, on the van der Pol
//! oscillator of the Reference-FMUs v0.0.41 (`master/benches/fmus`, BSD-2-Clause):
//! Co-Simulation, 10^5 communication steps of 1 ms, every step written to a CSV file. The
//! hosts take turns, run after run; the table gives each host's median, its ratio to
//! fmi-sim's, and the final values of each result file, to compare.
//!
//! fmi-sim is installed under `<target dir>/fmi-sim` on first use (it needs libclang to
//! build); FMPy is taken from the tests' Python environment (`<target dir>/python-venv`). A
//! host that is missing is skipped with a note saying how to get it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::cargo;

// The benches' shared pieces: the machine line and the median.
#[path = "../../master/benches/machine.rs"]
mod machine;
#[path = "../../master/benches/cosim/statistics.rs"]
#[allow(dead_code)]
mod statistics;

use machine::print_machine;
use statistics::median;

/// The FMU, relative to the workspace root.
const FMU: &str = "master/benches/fmus/fmi3/VanDerPol.fmu";
const STOP_TIME: &str = "100";
const STEP: &str = "0.001";
const FMI_SIM_VERSION: &str = "0.7.0";

/// One host: how to run it on the FMU, writing to a given CSV file.
struct Host {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    output: PathBuf,
}

impl Host {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    /// Runs the host once and returns its wall time.
    fn time(&self) -> Result<Duration> {
        let began = Instant::now();
        let status = self
            .command()
            .status()
            .with_context(|| format!("cannot run {}", self.program.display()))?;
        let elapsed = began.elapsed();
        if !status.success() {
            let output = self.command().stderr(Stdio::piped()).output()?;
            bail!(
                "{} failed ({status}): {}",
                self.name,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(elapsed)
    }
}

/// Builds `tandem`, finds or installs the other hosts, and times `repetitions` runs of each.
pub fn run(repetitions: usize) -> Result<()> {
    let metadata = cargo::metadata()?;
    let tandem = cargo::build_tandem(&metadata)?;
    let fmu = metadata.workspace_root.join(FMU);
    let out = metadata.target_directory.join("bench-simulate");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let fmu_text = fmu.display().to_string();
    let mut hosts = vec![Host {
        name: "tandem simulate",
        program: tandem,
        args: [
            "simulate",
            &fmu_text,
            "--interface-type",
            "cs",
            "--stop-time",
            STOP_TIME,
            "--step-size",
            STEP,
            "--output-file",
        ]
        .map(String::from)
        .into_iter()
        .chain([out.join("tandem.csv").display().to_string()])
        .collect(),
        output: out.join("tandem.csv"),
    }];
    match fmi_sim(&metadata.target_directory) {
        Ok(program) => hosts.push(Host {
            name: "fmi-sim",
            program,
            args: [
                "--model",
                &fmu_text,
                "--output-file",
                &out.join("fmi-sim.csv").display().to_string(),
                "co-simulation",
                "-f",
                STOP_TIME,
                // fmi-sim's communication step is its output interval.
                "--output-interval",
                STEP,
            ]
            .map(String::from)
            .into(),
            output: out.join("fmi-sim.csv"),
        }),
        Err(note) => println!("fmi-sim skipped: {note:#}\n"),
    }
    let fmpy = metadata.target_directory.join("python-venv/bin/fmpy");
    if fmpy.exists() {
        hosts.push(Host {
            name: "FMPy",
            program: fmpy,
            args: [
                "simulate",
                &fmu_text,
                "--interface-type",
                "CoSimulation",
                "--stop-time",
                STOP_TIME,
                "--output-interval",
                STEP,
                "--output-file",
                &out.join("fmpy.csv").display().to_string(),
            ]
            .map(String::from)
            .into(),
            output: out.join("fmpy.csv"),
        });
    } else {
        println!(
            "FMPy skipped: {} is missing; `cargo test -p tandem --test simulate_vs_fmpy` creates \
             the environment\n",
            fmpy.display()
        );
    }
    print_machine();
    println!(
        "Command: each host runs {} (CS, stop {STOP_TIME} s, step {STEP} s, every step recorded), \
         {repetitions} runs each, taking turns\n",
        Path::new(FMU)
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
    );
    let mut times = vec![Vec::new(); hosts.len()];
    for _ in 0..repetitions {
        for (host, times) in hosts.iter().zip(&mut times) {
            times.push(host.time()?);
        }
    }
    let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    let reference = hosts
        .iter()
        .position(|h| h.name == "fmi-sim")
        .map(|i| medians[i]);
    println!("| host | runs | median wall time (s) | ratio to fmi-sim | final x0, x1 |");
    println!("|---|---:|---:|---:|---|");
    for (host, median) in hosts.iter().zip(&medians) {
        let ratio = reference.map_or("-".into(), |r| {
            format!("{:.2}", median.as_secs_f64() / r.as_secs_f64())
        });
        println!(
            "| {} | {repetitions} | {:.4} | {ratio} | {} |",
            host.name,
            median.as_secs_f64(),
            last_row(&host.output)?
        );
    }
    Ok(())
}

/// fmi-sim under `target/fmi-sim`, installed there first if missing, or why it cannot be.
fn fmi_sim(target: &Path) -> Result<PathBuf> {
    let root = target.join("fmi-sim");
    let program = root.join("bin").join("fmi-sim");
    if program.exists() {
        return Ok(program);
    }
    if !has_libclang() {
        bail!(
            "building fmi-sim needs libclang (Debian: `apt-get install libclang-dev`); then run \
             this again"
        );
    }
    eprintln!(
        "installing fmi-sim {FMI_SIM_VERSION} into {} ...",
        root.display()
    );
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "install",
            "fmi-sim",
            "--version",
            FMI_SIM_VERSION,
            "--locked",
            "--root",
        ])
        .arg(&root)
        .status()
        .context("cannot run cargo install")?;
    if !status.success() {
        bail!("`cargo install fmi-sim --version {FMI_SIM_VERSION}` failed ({status})");
    }
    Ok(program)
}

/// Whether the dynamic loader knows a libclang (what bindgen, used by fmi-sim's build, loads).
fn has_libclang() -> bool {
    std::env::var_os("LIBCLANG_PATH").is_some()
        || Command::new("ldconfig")
            .arg("-p")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libclang"))
}

/// The values of a result file's last row after the time column, as written.
fn last_row(path: &Path) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let last = text.lines().last().unwrap_or_default();
    Ok(last.split(',').skip(1).collect::<Vec<_>>().join(", "))
}
