//! `tandem run`: a system co-simulated from its start to its stop time, the recorded
//! variables written to CSV row by row (flushed, so a failed run leaves the rows up to the
//! failure), with a summary of the work done.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::instance::LogSettings;
use crate::model_description::Values;
use crate::output::csv::CsvWriter;
use crate::schedule::{CoSimulation, Extrapolation, Progress, ScheduleKind};
use crate::simulate::{grid_intervals, grid_point};
use crate::system::{LoadOptions, System};

/// What the command line adds to a system file.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Result file (default: `[output] file`, else `<system file stem>_out.csv`).
    pub output_file: Option<PathBuf>,
    /// Replaces the system's stop time.
    pub stop_time: Option<f64>,
    /// Replaces the system's macro step.
    pub step_size: Option<f64>,
    /// Takes every FMU from this folder, by file name.
    pub fmu_dir: Option<PathBuf>,
    /// Logging of the FMUs' messages.
    pub log: LogSettings,
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The system's name (its file stem).
    pub system: String,
    /// Jacobi or Gauss-Seidel.
    pub schedule: ScheduleKind,
    /// The input extrapolation.
    pub extrapolation: Extrapolation,
    /// The time reached.
    pub final_time: f64,
    /// Macro steps taken.
    pub macro_steps: usize,
    /// FMI calls made.
    pub fmu_calls: usize,
    /// Result rows written.
    pub rows: usize,
    /// The result file.
    pub output_file: PathBuf,
    /// The component whose FMU asked to end the run early, and the time it reached.
    pub terminated_by: Option<(String, f64)>,
    /// Wall-clock time of the whole run, loading included.
    pub wall_time: Duration,
}

/// Loads `system_file`, co-simulates it and writes the result file.
pub fn run(system_file: &Path, options: &RunOptions) -> Result<RunSummary> {
    let started = Instant::now();
    let system = System::load(
        system_file,
        LoadOptions {
            stop_time: options.stop_time,
            step_size: options.step_size,
            fmu_dir: options.fmu_dir.as_deref(),
        },
    )?;
    let output_file = options
        .output_file
        .clone()
        .or_else(|| system.output_file.clone())
        .unwrap_or_else(|| PathBuf::from(format!("{}_out.csv", system.name())));
    let header: Vec<String> = system
        .recorded
        .iter()
        .map(|port| port.display(&system.components).to_string())
        .collect();
    let mut writer = CsvWriter::create(&output_file, &header)?;
    let mut cosimulation = CoSimulation::initialize(&system, &options.log)?;
    write_row(&mut writer, &cosimulation, &system)?;
    let intervals = grid_intervals(system.start, system.macro_step, system.stop);
    let mut terminated_by = None;
    for k in 1..=intervals {
        let to = grid_point(system.start, system.macro_step, k, system.stop);
        match cosimulation.step(to)? {
            Progress::Reached => write_row(&mut writer, &cosimulation, &system)?,
            Progress::Terminated { component, time } => {
                terminated_by = Some((component, time));
                break;
            }
        }
    }
    cosimulation.terminate()?;
    Ok(RunSummary {
        system: system.name(),
        schedule: system.schedule.kind,
        extrapolation: system.schedule.extrapolation,
        final_time: cosimulation.time(),
        macro_steps: cosimulation.macro_steps(),
        fmu_calls: cosimulation.fmu_calls(),
        rows: writer.rows(),
        output_file,
        terminated_by,
        wall_time: started.elapsed(),
    })
}

/// Writes the recorded values at the current time.
fn write_row(writer: &mut CsvWriter, cosimulation: &CoSimulation, system: &System) -> Result<()> {
    let values: Vec<f64> = system
        .recorded
        .iter()
        .map(|&port| cosimulation.value(port))
        .collect();
    writer.write_row(cosimulation.time(), &[Values::Float(values)])
}
