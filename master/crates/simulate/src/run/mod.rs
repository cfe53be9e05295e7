//! A run of a system: co-simulated from its start to its stop time through the co-simulation
//! crate's macro-step loop, the recorded variables (and the energy monitor's columns) written
//! to CSV row by row (flushed, so a failed run leaves the rows up to the failure), with a
//! summary of the work done.

mod output_grid;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::csv::CsvWriter;
use crate::progress::{NoProgress, Progress};
use crate::simulate::{value_type, Trace};
use fmi_host::instance::LogSettings;
use fmi_host::model_description::VariableType;
use output_grid::OutputGrid;
use tandem_cosim::coupling::{
    AdaptiveMethod, Extrapolation, InterfaceJacobian, ScheduleKind, Threads,
};
use tandem_cosim::energy::{self, EnergyColumn, EnergyManager, EnergyReport, EnergyStage};
use tandem_cosim::macro_loop::{self, PointStage};
use tandem_cosim::schedule::{
    self, Activations, CoSimulation, ImplicitReport, Integration, LoopReport,
};
use tandem_cosim::step_control::{self, StepReport};
use tandem_cosim::system::{LoadOptions, System};
use tandem_cosim::time_grid::{check_output_size, check_step};
use tandem_cosim::{Error, Result};

/// What the command line adds to a system file.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Result file (default: `[output] file`, else `<system file stem>_out.csv`).
    pub output_file: Option<PathBuf>,
    /// Writes no result file at all, for a caller that takes the rows from
    /// [`RunSummary::trace`] (with [`RunOptions::keep_trace`]).
    pub without_result_file: bool,
    /// Replaces the system's stop time.
    pub stop_time: Option<f64>,
    /// Replaces the system's macro step.
    pub step_size: Option<f64>,
    /// Takes every FMU from this folder, by file name.
    pub fmu_dir: Option<PathBuf>,
    /// Replaces `[schedule] threads`.
    pub threads: Option<Threads>,
    /// Chooses the macro steps with this tolerance (see [`LoadOptions::adaptive`]).
    pub adaptive: Option<f64>,
    /// Couples implicitly with this Jacobian (see [`LoadOptions::implicit`]).
    pub implicit: Option<InterfaceJacobian>,
    /// Logging of the FMUs' messages.
    pub log: LogSettings,
    /// Replaces `[energy] correction`.
    pub correction: Option<bool>,
    /// Replaces `[output] interval`: the result rows on this grid, interpolated between the
    /// macro points.
    pub output_interval: Option<f64>,
    /// Whether to return the result rows in [`RunSummary::trace`] (for plots, or `tandem
    /// sweep`'s metrics).
    pub keep_trace: bool,
    /// Whether to write a result file larger than [`tandem_cosim::time_grid::MAX_UNFORCED_OUTPUT`].
    pub force: bool,
    /// The top-level tables of other commands the system file may hold (see
    /// [`LoadOptions::sections`]).
    pub sections: &'static [&'static str],
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
    /// The result file, unless [`RunOptions::without_result_file`].
    pub output_file: Option<PathBuf>,
    /// The component whose FMU asked to end the run early, and the time it reached.
    pub terminated_by: Option<(String, f64)>,
    /// Wall-clock time of the whole run, loading included.
    pub wall_time: Duration,
    /// What the energy monitor found, when the system monitors energy.
    pub energy: Option<EnergyReport>,
    /// What the master's integrator did for each Model Exchange component.
    pub integrations: Vec<Integration>,
    /// The partitions the master activated for each Scheduled Execution component.
    pub activations: Vec<Activations>,
    /// Under Gauss-Seidel with algebraic loops, what their solver did.
    pub loops: Option<LoopReport>,
    /// Under implicit coupling, what its iteration did.
    pub implicit: Option<ImplicitReport>,
    /// With adaptive macro steps, the steps accepted and rejected.
    pub steps: Option<StepReport>,
    /// The result rows, when [`RunOptions::keep_trace`] asked for them.
    pub trace: Option<Trace>,
}

/// Loads `system_file`, co-simulates it and writes the result file.
pub fn run(system_file: &Path, options: &RunOptions) -> Result<RunSummary> {
    let started = Instant::now();
    let mut system = System::load(system_file, options.load_options())?;
    run_loaded(&mut system, options, started)
}

impl RunOptions {
    /// What these options change in the system file.
    pub fn load_options(&self) -> LoadOptions<'_> {
        LoadOptions {
            stop_time: self.stop_time,
            step_size: self.step_size,
            fmu_dir: self.fmu_dir.as_deref(),
            threads: self.threads,
            implicit: self.implicit,
            adaptive: self.adaptive,
            sections: self.sections,
        }
    }
}

/// Co-simulates `system`, loaded with `options`' load options at `started` (its wall time counts
/// from there), and writes the result file: the one path of every run, `tandem run`'s and each
/// of `tandem sweep`'s.
pub fn run_loaded(
    system: &mut System,
    options: &RunOptions,
    started: Instant,
) -> Result<RunSummary> {
    run_loaded_watched(system, options, started, &mut NoProgress)
}

/// [`run_loaded`], telling `progress` how far the run got.
pub fn run_loaded_watched(
    system: &mut System,
    options: &RunOptions,
    started: Instant,
    progress: &mut dyn Progress,
) -> Result<RunSummary> {
    let mut rows = None;
    let summary = run_loaded_into(system, options, started, progress, &mut rows)?;
    Ok(RunSummary {
        trace: rows,
        ..summary
    })
}

/// Loads `system_file` and co-simulates it as [`run`] does, telling `progress` how far the
/// run got and keeping the rows in `rows` (with [`RunOptions::keep_trace`]) rather than in
/// the summary: the caller has them also when the run fails, up to the failure.
pub fn run_keeping_rows(
    system_file: &Path,
    options: &RunOptions,
    progress: &mut dyn Progress,
    rows: &mut Option<Trace>,
) -> Result<RunSummary> {
    let started = Instant::now();
    let mut system = System::load(system_file, options.load_options())?;
    run_loaded_into(&mut system, options, started, progress, rows)
}

/// [`run_loaded_watched`] with the rows kept in `trace`, the summary's left empty.
fn run_loaded_into(
    system: &mut System,
    options: &RunOptions,
    started: Instant,
    progress: &mut dyn Progress,
    trace: &mut Option<Trace>,
) -> Result<RunSummary> {
    let output_file = (!options.without_result_file).then(|| {
        options
            .output_file
            .clone()
            .or_else(|| system.output_file.clone())
            .unwrap_or_else(|| PathBuf::from(format!("{}_out.csv", system.name())))
    });
    let correct = system.set_energy_correction(options.correction)?;
    if let Some(adaptive) = &system.schedule.adaptive {
        step_control::check(system)?;
        if correct && adaptive.method == AdaptiveMethod::Ecco {
            return Err(Error::invalid_value(
                system.path.display().to_string(),
                "the energy correction with ECCO's steps makes the energy error larger, not \
                 smaller (the residual energy stops measuring it when the steps change by large \
                 factors: on the double oscillator +17 % becomes +38 %); correct with \
                 adaptive.method = \"error\" or fixed steps",
            ));
        }
    }
    let setup = system.energy.as_ref();
    let (header, _) = result_columns(system, correct)?;
    let intervals = system.intervals();
    let grid = output_grid(system, options.output_interval)?;
    let (rows, rows_set_by) = match &grid {
        Some(grid) => (grid.rows(), "output interval"),
        None => (intervals + 1, "macro step (--step-size)"),
    };
    let mut writer = match &output_file {
        Some(file) => {
            check_output_size(rows as f64, header.len() + 1, options.force, rows_set_by)
                .map_err(|message| Error::invalid_value(file.display().to_string(), message))?;
            Some(CsvWriter::create(file, &header)?)
        }
        None => None,
    };
    *trace = options
        .keep_trace
        .then(|| Trace::new(header.clone(), column_types(system, header.len())));
    let mut cosimulation = CoSimulation::initialize(system, &options.log)?;
    progress.begin(system.start, system.stop);
    let mut points = RunPoints {
        energy: setup.map(|s| EnergyStage::new(s.clone(), correct)),
        row: Row {
            writer: writer.as_mut(),
            rows: 0,
            trace: trace.as_mut(),
            recorded: Vec::with_capacity(system.recorded.len()),
            energy: Vec::new(),
            grid,
        },
        progress,
    };
    let (progress, steps) = match &system.schedule.adaptive {
        Some(settings) => {
            let (progress, steps) =
                step_control::drive(&mut cosimulation, system, settings, &mut points)?;
            (progress, Some(steps))
        }
        None => (
            macro_loop::drive(&mut cosimulation, system, 0..=intervals, &mut points)?,
            None,
        ),
    };
    let terminated_by = match progress {
        schedule::Progress::Reached => None,
        schedule::Progress::Terminated { component, time } => Some((component, time)),
    };
    let RunPoints {
        energy,
        progress,
        row: Row { rows, .. },
    } = points;
    progress.finish();
    if let Some(writer) = &mut writer {
        writer.flush()?;
    }
    let integrations = cosimulation.integrations();
    let activations = cosimulation.activations();
    let loops = cosimulation.loop_report();
    let implicit = cosimulation.implicit_report();
    cosimulation.terminate()?;
    Ok(RunSummary {
        system: system.name(),
        schedule: system.schedule.kind,
        extrapolation: system.schedule.extrapolation,
        final_time: cosimulation.time(),
        macro_steps: cosimulation.macro_steps(),
        fmu_calls: cosimulation.fmu_calls(),
        rows,
        output_file,
        terminated_by,
        wall_time: started.elapsed(),
        energy: energy
            .and_then(EnergyStage::into_manager)
            .map(|e| e.finish(system)),
        integrations,
        activations,
        loops,
        implicit,
        steps,
        trace: None,
    })
}

/// What a run does at every macro point: the energy stage, then the row, then the progress.
struct RunPoints<'a> {
    energy: Option<EnergyStage>,
    row: Row<'a>,
    progress: &'a mut dyn Progress,
}

impl PointStage for RunPoints<'_> {
    fn at_point(
        &mut self,
        point: usize,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> tandem_cosim::Result<()> {
        if let Some(energy) = &mut self.energy {
            energy.at_point(point, system, cosimulation)?;
        }
        let manager = self.energy.as_ref().and_then(EnergyStage::manager);
        self.row.write(system, cosimulation, manager)?;
        if point > 0 {
            self.progress.update(cosimulation.time());
        }
        Ok(())
    }
}

/// The grid of the result rows when they are asked at a fixed interval: `--output-interval`,
/// else the file's `[output] interval` (none: a row per macro point).
fn output_grid(system: &System, interval: Option<f64>) -> Result<Option<OutputGrid>> {
    if let Some(interval) = interval {
        check_step("output interval", system.start, system.stop, interval)
            .map_err(|message| Error::invalid_value("--output-interval", message))?;
    }
    let interval = interval.or(system.output_interval);
    Ok(interval.map(|interval| OutputGrid::new(system.start, system.stop, interval)))
}

/// Where a row goes: the result file, if any, and the in-memory trace when the caller keeps
/// the rows; at every macro point, or on the grid of a fixed output interval.
struct Row<'a> {
    writer: Option<&'a mut CsvWriter>,
    /// Rows recorded so far.
    rows: usize,
    trace: Option<&'a mut Trace>,
    /// The recorded values and the energy columns of the row being written, kept to spare
    /// allocations per row.
    recorded: Vec<f64>,
    energy: Vec<f64>,
    grid: Option<OutputGrid>,
}

impl Row<'_> {
    /// Writes the recorded values and the energy columns at the current time.
    fn write(
        &mut self,
        system: &System,
        cosimulation: &CoSimulation,
        energy: Option<&EnergyManager>,
    ) -> Result<()> {
        self.recorded.clear();
        self.recorded.extend(
            system
                .recorded
                .iter()
                .zip(&system.recorded_columns)
                .map(|(&port, column)| column.show(cosimulation.value(port))),
        );
        match energy {
            Some(manager) => manager.write_values(&mut self.energy),
            None => self.energy.clear(),
        }
        let time = cosimulation.time();
        let Some(grid) = &mut self.grid else {
            return emit(
                &mut self.writer,
                &mut self.trace,
                time,
                &[&self.recorded, &self.energy],
            )
            .map(|()| self.rows += 1);
        };
        // The grid interpolates the row as a whole: the energy columns after the recorded ones.
        let values = self.recorded.len();
        self.recorded.extend_from_slice(&self.energy);
        let (writer, trace, rows) = (&mut self.writer, &mut self.trace, &mut self.rows);
        let written = grid.point(time, &self.recorded, |at, row| {
            emit(writer, trace, at, &[row]).map(|()| *rows += 1)
        });
        self.recorded.truncate(values);
        written
    }
}

/// Writes the row `parts` (its columns, part after part) at `time` to the result file and the
/// trace, where there are.
fn emit(
    writer: &mut Option<&mut CsvWriter>,
    trace: &mut Option<&mut Trace>,
    time: f64,
    parts: &[&[f64]],
) -> Result<()> {
    if let Some(trace) = trace.as_deref_mut() {
        trace.time.push(time);
        let values = parts.iter().flat_map(|part| part.iter());
        for (column, &value) in trace.columns.iter_mut().zip(values) {
            column.push(value);
        }
    }
    match writer.as_deref_mut() {
        Some(writer) => writer.write_floats(time, parts),
        None => Ok(()),
    }
}

/// The type of the values of each of the `columns` result columns of `system`: its recorded
/// variables', then Float64 for the energy columns.
fn column_types(system: &System, columns: usize) -> Vec<VariableType> {
    let recorded = system.recorded.iter().map(|port| {
        let version = system.components[port.component]
            .fmu
            .model_description()
            .fmi_version;
        value_type(port.variable(&system.components).ty, version)
    });
    let energy = std::iter::repeat(VariableType::Float64);
    recorded.chain(energy).take(columns).collect()
}

/// The result file's columns of a run of `system` with the energy correction on or off
/// (`correct`): the recorded variables, then the energy stage's columns (returned apart too);
/// refused when a name comes twice.
pub fn result_columns(system: &System, correct: bool) -> Result<(Vec<String>, Vec<EnergyColumn>)> {
    let energy_columns = system
        .energy
        .as_ref()
        .map_or_else(Vec::new, |s| energy::setup_columns(s, correct));
    let header: Vec<String> = system
        .recorded_columns
        .iter()
        .map(|column| column.name.clone())
        .chain(energy_columns.iter().map(|c| c.name.clone()))
        .collect();
    if let Some(twice) = header
        .iter()
        .enumerate()
        .find(|(i, name)| header[..*i].contains(name))
    {
        return Err(Error::invalid_value(
            system.path.display().to_string(),
            format!(
                "the result column {} is both a recorded variable and an energy column: rename \
                 the component",
                twice.1
            ),
        ));
    }
    Ok((header, energy_columns))
}
