//! Simulation of a single FMU: Co-Simulation FMUs step themselves, Model Exchange FMUs are
//! integrated by the master's solver with time, state and step events.

mod co_simulation;
mod inputs;
mod model_exchange;
mod recorder;
pub mod start_values;

pub use inputs::InputTable;
pub use start_values::StartValue;

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::instance::{FmuInstance, LogSettings};
use crate::model_description::InterfaceType;
use crate::Fmu;
use recorder::Recorder;

/// Everything `tandem simulate` can be told.
#[derive(Clone, Default)]
pub struct SimulationOptions {
    /// Interface to use; default Co-Simulation when the FMU has it, else Model Exchange.
    pub interface: Option<InterfaceType>,
    /// Start time (default: DefaultExperiment, else 0).
    pub start_time: Option<f64>,
    /// Stop time (default: DefaultExperiment, else start + 1).
    pub stop_time: Option<f64>,
    /// Communication step of Co-Simulation (default: DefaultExperiment stepSize, else 1/500 of the run).
    pub step_size: Option<f64>,
    /// Distance of output rows (default: the step size).
    pub output_interval: Option<f64>,
    /// Relative tolerance (default: DefaultExperiment, else 1e-6).
    pub relative_tolerance: Option<f64>,
    /// `name=value` start values.
    pub start_values: Vec<String>,
    /// CSV file with input signals.
    pub input_file: Option<PathBuf>,
    /// Result file.
    pub output_file: PathBuf,
    /// Variables to record (default: all outputs).
    pub output_variables: Option<Vec<String>>,
    /// Whether Model Exchange runs also record rows just before and after each event.
    pub record_events: bool,
    /// Logging of the FMU's messages.
    pub log: LogSettings,
}

/// The experiment after defaults are applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Experiment {
    /// Start time.
    pub start: f64,
    /// Stop time.
    pub stop: f64,
    /// Co-Simulation communication step.
    pub step: f64,
    /// Distance of output rows.
    pub output_interval: f64,
    /// Relative tolerance.
    pub tolerance: f64,
}

/// What a finished run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationSummary {
    /// Interface used.
    pub interface: InterfaceType,
    /// The time reached.
    pub final_time: f64,
    /// Co-Simulation steps, or accepted integrator steps.
    pub steps: usize,
    /// Rejected integrator steps (Model Exchange).
    pub rejected_steps: usize,
    /// Events handled (Model Exchange).
    pub events: usize,
    /// Rows written.
    pub rows: usize,
    /// Whether the FMU ended the run early.
    pub terminated_by_fmu: bool,
}

/// Runs one simulation as `options` say, writing the result file as it goes.
pub fn simulate(fmu: &Fmu, options: &SimulationOptions) -> Result<SimulationSummary> {
    let md = fmu.model_description();
    let interface = match options.interface {
        Some(interface) => interface,
        None if md.co_simulation.is_some() => InterfaceType::CoSimulation,
        None => InterfaceType::ModelExchange,
    };
    let experiment = experiment(fmu, interface, options)?;
    let start_values = start_values::parse(fmu, &options.start_values)?;
    let inputs = options
        .input_file
        .as_ref()
        .map(|path| InputTable::read(fmu, path))
        .transpose()?;
    fmu.load(interface)?;
    let mut recorder = Recorder::create(
        fmu,
        options.output_variables.as_deref(),
        &options.output_file,
    )?;
    let mut instance = fmu.instantiate(interface, &md.model_name, options.log.clone())?;
    start_values::apply(instance.as_mut(), &start_values)?;
    instance.enter_initialization_mode(
        Some(experiment.tolerance),
        experiment.start,
        Some(experiment.stop),
    )?;
    if let Some(inputs) = &inputs {
        inputs.apply(instance.as_mut(), experiment.start)?;
    }
    instance.exit_initialization_mode()?;
    let run = Run {
        instance: instance.as_mut(),
        inputs: inputs.as_ref(),
        recorder: &mut recorder,
        experiment,
    };
    let mut summary = match interface {
        InterfaceType::CoSimulation => co_simulation::run(run)?,
        InterfaceType::ModelExchange => model_exchange::run(run, options.record_events)?,
    };
    instance.terminate()?;
    summary.rows = recorder.rows();
    Ok(summary)
}

/// What the interface-specific loops need.
struct Run<'a> {
    instance: &'a mut dyn FmuInstance,
    inputs: Option<&'a InputTable>,
    recorder: &'a mut Recorder,
    experiment: Experiment,
}

// The negated comparisons also reject NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn experiment(
    fmu: &Fmu,
    interface: InterfaceType,
    options: &SimulationOptions,
) -> Result<Experiment> {
    let default = fmu
        .model_description()
        .default_experiment
        .clone()
        .unwrap_or_default();
    let start = options.start_time.or(default.start_time).unwrap_or(0.0);
    let stop = options
        .stop_time
        .or(default.stop_time)
        .unwrap_or(start + 1.0);
    let invalid = |item: &str, message: String| Error::InvalidValue {
        item: item.to_string(),
        message,
    };
    if !(stop > start) {
        return Err(invalid(
            "--stop-time",
            format!("stop time {stop} must be after start time {start}"),
        ));
    }
    let step = options
        .step_size
        .or(default.step_size)
        .unwrap_or((stop - start) / 500.0);
    if !(step > 0.0) {
        return Err(invalid(
            "--step-size",
            format!("step size {step} must be positive"),
        ));
    }
    let output_interval = options.output_interval.unwrap_or(step);
    if !(output_interval > 0.0) {
        return Err(invalid(
            "--output-interval",
            format!("output interval {output_interval} must be positive"),
        ));
    }
    if interface == InterfaceType::CoSimulation {
        let ratio = output_interval / step;
        if (ratio - ratio.round()).abs() > 1e-9 * ratio.max(1.0) || ratio.round() < 1.0 {
            return Err(invalid(
                "--output-interval",
                format!(
                    "output interval {output_interval} must be a multiple of the step size {step}"
                ),
            ));
        }
    }
    let tolerance = options
        .relative_tolerance
        .or(default.tolerance)
        .unwrap_or(1e-6);
    if !(tolerance > 0.0) {
        return Err(invalid(
            "--relative-tolerance",
            format!("tolerance {tolerance} must be positive"),
        ));
    }
    Ok(Experiment {
        start,
        stop,
        step,
        output_interval,
        tolerance,
    })
}

/// The `k`-th point of a grid from `start` with spacing `step`, computed without accumulating
/// rounding error and clipped to `stop`.
pub(crate) fn grid_point(start: f64, step: f64, k: usize, stop: f64) -> f64 {
    (start + k as f64 * step).min(stop)
}

/// Number of grid intervals of `step` needed to reach `stop` from `start` (the last may be shorter).
pub(crate) fn grid_intervals(start: f64, step: f64, stop: f64) -> usize {
    let exact = (stop - start) / step;
    let rounded = exact.round();
    if (exact - rounded).abs() <= 1e-9 * rounded.max(1.0) {
        rounded as usize
    } else {
        exact.ceil() as usize
    }
}
