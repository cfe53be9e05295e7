//! `tandem run`: the simulation crate's run of a system ([`tandem_simulate::run`]) with the
//! progress bar and the plots the command draws: what to plot is checked before the run (a
//! misspelled column costs no run), the plots are drawn from the rows after it.

mod energy_plot;

pub use tandem_simulate::run::{result_columns, RunOptions, RunSummary};

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{Error, Result};
use crate::output::plot::{self, PlotOptions, TimeSeries};
use crate::output::progress::TerminalProgress;
use crate::simulate::Trace;
use crate::suggest::did_you_mean;
use crate::system::System;

/// A plot `tandem run` draws at the end of a run, into `<result file stem>_<kind>.png`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotKind {
    /// Total energy, residual power and energy of every bond, correction forces.
    Energy,
    /// The recorded variables, one panel each.
    Variables,
}

impl PlotKind {
    /// The plot file beside `output_file`.
    pub fn path(self, output_file: &Path) -> PathBuf {
        let stem = output_file
            .file_stem()
            .map_or_else(|| "result".into(), |s| s.to_string_lossy().into_owned());
        let kind = match self {
            PlotKind::Energy => "energy",
            PlotKind::Variables => "variables",
        };
        output_file.with_file_name(format!("{stem}_{kind}.png"))
    }
}

/// The plots to draw at the end of a run.
#[derive(Debug, Clone, Default)]
pub struct Plots {
    /// Which plots.
    pub kinds: Vec<PlotKind>,
    /// The result columns the variables plot shows (default: every recorded variable).
    pub variables: Vec<String>,
}

/// Loads `system_file`, co-simulates it and writes the result file
/// ([`tandem_simulate::run::run`], with the master's error).
pub fn run(system_file: &Path, options: &RunOptions) -> Result<RunSummary> {
    Ok(tandem_simulate::run::run(system_file, options)?)
}

/// Loads `system_file`, co-simulates it as `options` say with a progress bar on standard error
/// (when `progress` and it is a terminal), and draws `plots`; returns the summary and the plot
/// files drawn.
pub fn run_with_plots(
    system_file: &Path,
    options: &RunOptions,
    plots: &Plots,
    progress: bool,
) -> Result<(RunSummary, Vec<PathBuf>)> {
    let started = Instant::now();
    let mut system = System::load(system_file, options.load_options())?;
    let correct = system.set_energy_correction(options.correction)?;
    if system.energy.is_none() && plots.kinds.contains(&PlotKind::Energy) {
        return Err(Error::invalid_value(
            system.path.display().to_string(),
            "the energy plot needs energy monitoring: declare [[bond]] tables or an [energy] \
             table (with monitor = true)",
        ));
    }
    let (header, energy_columns) = result_columns(&system, correct)?;
    let plotted = plotted_variables(&system, &header, &plots.variables)?;
    let traced = RunOptions {
        keep_trace: options.keep_trace || !plots.kinds.is_empty(),
        ..options.clone()
    };
    let mut bar = TerminalProgress::new(progress);
    let mut summary =
        tandem_simulate::run::run_loaded_watched(&mut system, &traced, started, &mut bar)?;
    let mut drawn = Vec::new();
    // The plots go beside the result file: a run without one draws none.
    if let (Some(trace), Some(output_file)) = (&summary.trace, &summary.output_file) {
        let title = system.name();
        for &kind in &plots.kinds {
            let path = kind.path(output_file);
            match kind {
                PlotKind::Energy => energy_plot::draw(&path, &title, trace, &energy_columns)?,
                PlotKind::Variables => draw_variables(&path, &title, trace, &plotted)?,
            }
            drawn.push(path);
        }
    }
    if !options.keep_trace {
        summary.trace = None;
    }
    Ok((summary, drawn))
}

/// The indices of the result columns the variables plot shows: those named by `names` (result
/// column names, recorded variables or energy columns), else every recorded variable.
fn plotted_variables(system: &System, header: &[String], names: &[String]) -> Result<Vec<usize>> {
    if names.is_empty() {
        return Ok((0..system.recorded.len()).collect());
    }
    names
        .iter()
        .map(|name| {
            header
                .iter()
                .position(|column| column == name)
                .ok_or_else(|| {
                    Error::invalid_value(
                        "--plot-variables",
                        format!(
                            "{name} is no result column of {} (they are: {}){}",
                            system.path.display(),
                            header.join(", "),
                            did_you_mean(name, header.iter().map(String::as_str))
                        ),
                    )
                })
        })
        .collect()
}

/// Draws the columns `columns` of `trace`, one panel each.
fn draw_variables(path: &Path, title: &str, trace: &Trace, columns: &[usize]) -> Result<()> {
    let series = TimeSeries {
        time: &trace.time,
        columns: columns
            .iter()
            .map(|&i| (trace.names[i].as_str(), trace.columns[i].as_slice()))
            .collect(),
    };
    let options = PlotOptions {
        title: Some(title.to_string()),
        ..PlotOptions::default()
    };
    plot::time_series(path, &series, &options)
}
