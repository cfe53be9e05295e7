//! Simulation of a single FMU: Co-Simulation FMUs step themselves, Model Exchange FMUs are
//! integrated by the master's solver with time, state and step events, and the model
//! partitions of Scheduled Execution FMUs are activated at the ticks of their clocks.

mod co_simulation;
mod inputs;
mod model_exchange;
mod recorder;
mod scheduled_execution;
pub mod selection;
mod trace;

pub use inputs::{InputSignals, InputTable};
/// The communication grid and the CSV time tables, under the paths commands use.
pub use tandem_cosim::time_grid::{grid_intervals, grid_point};
pub use tandem_cosim::time_table;
pub use trace::{value_type, Trace};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::progress::{NoProgress, Progress};
use fmi_host::import::Fmu;
use fmi_host::instance::{CountingInstance, FmuInstance, LogSettings};
use fmi_host::model_description::{InterfaceType, ModelDescription, Shapes, Variable};
use recorder::Recorder;
use tandem_cosim::column::Column;
use tandem_cosim::scheduled_execution::Clocks;
use tandem_cosim::start_values::{self, StartValue};
use tandem_cosim::time_grid::{check_interval, check_output_size, check_step};
use tandem_cosim::{Error, Result};
use tandem_ode::solver::{describe_solver, EsdirkStatistics, Method, Span};

/// Everything `tandem simulate` can be told.
#[derive(Clone, Default)]
pub struct SimulationOptions {
    /// Interface to use; default Co-Simulation when the FMU has it, else Model Exchange, else
    /// Scheduled Execution.
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
    /// Input signals, from a CSV file or a table in memory.
    pub inputs: Option<InputSignals>,
    /// Result file; none writes no file, for a caller that takes the rows from
    /// [`Simulated::trace`].
    pub output_file: Option<PathBuf>,
    /// Variables to record (default: all outputs).
    pub output_variables: Option<Vec<String>>,
    /// Whether Model Exchange runs also record rows just before and after each event.
    pub record_events: bool,
    /// Logging of the FMU's messages.
    pub log: LogSettings,
    /// Model Exchange solver.
    pub solver: Method,
    /// Variables whose rows to keep in memory ([`Simulated::trace`]), also when the run fails.
    pub trace: Option<TraceRequest>,
    /// Whether to write a result file larger than
    /// [`tandem_cosim::time_grid::MAX_UNFORCED_OUTPUT`].
    pub force: bool,
}

/// Which variables to keep in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceRequest {
    /// Their names (default: the numeric recorded variables).
    pub variables: Option<Vec<String>>,
}

/// A simulation's outcome, with the rows kept in memory: those are kept also when the run
/// fails, up to the failure.
#[derive(Debug)]
pub struct Simulated {
    /// The summary of the run, or why it failed.
    pub outcome: Result<SimulationSummary>,
    /// The rows of the variables [`SimulationOptions::trace`] asked for.
    pub trace: Option<Trace>,
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
    /// Relative tolerance of the master's integrator.
    pub tolerance: f64,
    /// Whether the FMU is told the tolerance (a tolerance of 0 means none is defined).
    pub tolerance_defined: bool,
}

/// The master's relative tolerance when neither the user nor the FMU gives one.
const DEFAULT_TOLERANCE: f64 = 1e-6;

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
    /// The Model Exchange solver.
    pub solver: Option<Method>,
    /// Which method ran since when, for a solver that changes methods (auto).
    pub solver_spans: Vec<Span>,
    /// The implicit method's Jacobians, their products and factorizations, for a solver that
    /// has one (esdirk, auto).
    pub implicit: Option<EsdirkStatistics>,
    /// Calls made to the FMU.
    pub fmu_calls: u64,
    /// Wall-clock time of the run, from loading the binary to terminating the instance.
    pub wall_time: Duration,
    /// Why the recorded variables are not the outputs, when they were chosen by default.
    pub recorded_remark: Option<String>,
    /// What a relative tolerance of 0 meant, when it was given.
    pub tolerance_remark: Option<String>,
}

impl SimulationSummary {
    /// A summary of a run in `interface`, at its start.
    fn new(interface: InterfaceType, start: f64) -> Self {
        SimulationSummary {
            interface,
            final_time: start,
            steps: 0,
            rejected_steps: 0,
            events: 0,
            rows: 0,
            terminated_by_fmu: false,
            solver: None,
            solver_spans: Vec::new(),
            implicit: None,
            fmu_calls: 0,
            wall_time: Duration::ZERO,
            recorded_remark: None,
            tolerance_remark: None,
        }
    }

    /// The solver in words; for auto, which method ran over which interval.
    pub fn solver_description(&self) -> String {
        let solver = self.solver.unwrap_or_default();
        describe_solver(solver, &self.solver_spans, self.final_time)
    }
}

/// Runs one simulation as `options` say, writing the result file as it goes.
pub fn simulate(fmu: &Fmu, options: &SimulationOptions) -> Result<SimulationSummary> {
    simulate_watched(fmu, options, &mut NoProgress).outcome
}

/// [`simulate`], telling `progress` how far the run got, and keeping the rows of the variables
/// [`SimulationOptions::trace`] asks for in memory.
pub fn simulate_watched(
    fmu: &Fmu,
    options: &SimulationOptions,
    progress: &mut dyn Progress,
) -> Simulated {
    let mut trace = None;
    let outcome = run_recorded(fmu, options, progress, &mut trace);
    Simulated { outcome, trace }
}

/// The simulation, with the traced rows left in `trace` however it ends.
fn run_recorded(
    fmu: &Fmu,
    options: &SimulationOptions,
    progress: &mut dyn Progress,
    trace: &mut Option<Trace>,
) -> Result<SimulationSummary> {
    let began = Instant::now();
    let md = fmu.model_description();
    let interface = match options.interface {
        Some(interface) => interface,
        None if md.co_simulation.is_some() => InterfaceType::CoSimulation,
        None if md.model_exchange.is_none() && md.scheduled_execution.is_some() => {
            InterfaceType::ScheduledExecution
        }
        None => InterfaceType::ModelExchange,
    };
    check_interface_options(interface, options)?;
    let experiment = experiment(fmu, interface, options)?;
    let start_values = start_values::parse(fmu, &options.start_values)?;
    let shapes = start_values::shapes(md, &start_values);
    let inputs = options
        .inputs
        .as_ref()
        .map(|source| InputTable::of(fmu, source))
        .transpose()?;
    let traced = options
        .trace
        .as_ref()
        .map(|request| traced_variables(&shapes, request, options.output_variables.as_deref()));
    fmu.load(interface)?;
    let clocks = match interface {
        InterfaceType::ScheduledExecution => Some(Clocks::of(md, fmu.path())?),
        _ => None,
    };
    if let (None, Some(inputs)) = (&clocks, &inputs) {
        if let Some((name, _)) = inputs.clock_ticks().next() {
            return Err(Error::input_file(
                inputs.path().to_path_buf(),
                format!(
                    "column \"{name}\" is a clock, which ticks only in Scheduled Execution \
                     (--interface-type se)"
                ),
            ));
        }
    }
    let rows = (experiment.stop - experiment.start) / experiment.output_interval + 1.0;
    let mut recorder = Recorder::create(
        fmu,
        &shapes,
        options.output_variables.as_deref(),
        options.output_file.as_deref(),
        traced.as_deref(),
        clocks
            .as_ref()
            .map_or(&[], |clocks| clocks.columns.as_slice()),
        |columns| match &options.output_file {
            Some(file) => check_output_size(rows, columns, options.force, "--output-interval")
                .map_err(|message| Error::invalid_value(file.display().to_string(), message)),
            None => Ok(()),
        },
    )?;
    progress.begin(experiment.start, experiment.stop);
    let mut calls = 0;
    let outcome = match clocks {
        Some(clocks) => scheduled_execution::run(
            scheduled_execution::Scheduled {
                fmu,
                clocks,
                log: options.log.clone(),
                start_values: &start_values,
                inputs: inputs.as_ref(),
                recorder: &mut recorder,
                progress,
                experiment,
            },
            &mut calls,
        ),
        None => {
            let mut instance = CountingInstance::new(fmu.instantiate(
                interface,
                &md.model_name,
                options.log.clone(),
            )?);
            let counter = instance.counter();
            let outcome = initialize_and_run(
                Run {
                    instance: &mut instance,
                    inputs: inputs.as_ref(),
                    recorder: &mut recorder,
                    model_description: md,
                    progress,
                    experiment,
                },
                interface,
                &start_values,
                options,
            );
            calls = counter.total();
            outcome
        }
    };
    progress.finish();
    // Every way out, errors included, leaves the rows recorded so far on disk.
    let flushed = recorder.flush();
    *trace = recorder.take_trace();
    let mut summary = outcome?;
    flushed?;
    summary.recorded_remark = recorder.remark().map(String::from);
    if !experiment.tolerance_defined {
        summary.tolerance_remark = Some(match interface {
            InterfaceType::CoSimulation | InterfaceType::ScheduledExecution => {
                "relative tolerance 0: the FMU was told none is defined and used its own".into()
            }
            InterfaceType::ModelExchange => format!(
                "relative tolerance 0: none was passed to the FMU; the master's integrator used {}",
                fmi_host::float_text::format_float(experiment.tolerance)
            ),
        });
    }
    summary.rows = recorder.rows();
    summary.fmu_calls = calls;
    summary.wall_time = began.elapsed();
    Ok(summary)
}

/// Initializes the instance, runs the interface's loop and terminates.
fn initialize_and_run(
    run: Run<'_>,
    interface: InterfaceType,
    start_values: &[StartValue],
    options: &SimulationOptions,
) -> Result<SimulationSummary> {
    let Run {
        instance,
        inputs,
        recorder,
        model_description,
        progress,
        experiment,
    } = run;
    start_values::apply(instance, start_values)?;
    instance.enter_initialization_mode(
        experiment.tolerance_defined.then_some(experiment.tolerance),
        experiment.start,
        Some(experiment.stop),
    )?;
    if let Some(inputs) = inputs {
        inputs.apply(instance, experiment.start)?;
    }
    instance.exit_initialization_mode()?;
    let run = Run {
        instance: &mut *instance,
        inputs,
        recorder,
        model_description,
        progress,
        experiment,
    };
    let summary = match interface {
        InterfaceType::CoSimulation => co_simulation::run(run)?,
        InterfaceType::ModelExchange => {
            model_exchange::run(run, options.record_events, options.solver)?
        }
        // Scheduled Execution instances are made and run by `scheduled_execution::run`.
        InterfaceType::ScheduledExecution => {
            return Err(fmi_host::Error::Unsupported {
                instance: instance.name().to_string(),
                function: "Scheduled Execution through the FmuInstance interface",
            }
            .into())
        }
    };
    instance.terminate()?;
    Ok(summary)
}

/// Refuses the options that do not apply to `interface`: a Scheduled Execution run has no
/// steps and writes a row at each time partitions ran, not on a grid.
fn check_interface_options(interface: InterfaceType, options: &SimulationOptions) -> Result<()> {
    if interface != InterfaceType::ScheduledExecution {
        return Ok(());
    }
    let refused = [
        ("--step-size", options.step_size.is_some()),
        ("--output-interval", options.output_interval.is_some()),
    ];
    match refused.into_iter().find(|(_, given)| *given) {
        Some((option, _)) => Err(Error::invalid_value(
            option,
            "does not apply to Scheduled Execution, which writes a row at every time \
                      model partitions ran",
        )),
        None => Ok(()),
    }
}

/// The variables a trace request names, else the numeric ones among those recorded (the
/// `--output-variable` requests expanded, else the default choice): a plot shows what the
/// user asked to record.
fn traced_variables(
    shapes: &Shapes<'_>,
    request: &TraceRequest,
    recorded: Option<&[String]>,
) -> Vec<String> {
    if let Some(names) = &request.variables {
        return names.clone();
    }
    let chosen: Vec<(&Variable, Column)> = match recorded {
        // A request that names nothing is left for the recorder to report.
        Some(names) => selection::expand(shapes, names).unwrap_or_default(),
        None => selection::default_variables(shapes).0,
    };
    chosen
        .into_iter()
        .filter(|(variable, _)| recorder::is_numeric(variable))
        .map(|(_, column)| column.name)
        .collect()
}

/// What the interface-specific loops need.
struct Run<'a> {
    instance: &'a mut (dyn FmuInstance + 'static),
    inputs: Option<&'a InputTable>,
    recorder: &'a mut Recorder,
    model_description: &'a ModelDescription,
    progress: &'a mut dyn Progress,
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
    let invalid = |item: &str, message: String| Error::invalid_value(item.to_string(), message);
    check_interval(start, stop).map_err(|message| {
        let item = if start.is_finite() {
            "--stop-time"
        } else {
            "--start-time"
        };
        invalid(item, message)
    })?;
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
        check_step("step size", start, stop, step)
            .map_err(|message| invalid("--step-size", message))?;
    }
    // An output interval left out is the step size's.
    let (what, option) = match options.output_interval {
        Some(_) => ("output interval", "--output-interval"),
        None => ("step size (the output interval)", "--step-size"),
    };
    check_step(what, start, stop, output_interval).map_err(|message| invalid(option, message))?;
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
    // A tolerance of 0 (as the FMI cross-check archive's option files give for Co-Simulation
    // FMUs) means none: the FMU is told none is defined and keeps its own.
    let given = options.relative_tolerance.or(default.tolerance);
    let defined = given != Some(0.0);
    let tolerance = given
        .filter(|_| defined)
        .or(default.tolerance.filter(|&t| t > 0.0))
        .unwrap_or(DEFAULT_TOLERANCE);
    if !(tolerance > 0.0) {
        return Err(invalid(
            "--relative-tolerance",
            format!("tolerance {tolerance} must be positive, or 0 for none"),
        ));
    }
    Ok(Experiment {
        start,
        stop,
        step,
        output_interval,
        tolerance,
        tolerance_defined: defined,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ball() -> ModelDescription {
        ModelDescription::parse(include_str!(
            "../../../../tests/fixtures/fmi2_bouncing_ball.xml"
        ))
        .expect("the fixture parses")
    }

    fn request(variables: Option<&[&str]>) -> TraceRequest {
        TraceRequest {
            variables: variables.map(|names| names.iter().map(|n| n.to_string()).collect()),
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_plot_shows_the_recorded_variables_unless_told_otherwise() {
        let md = ball();
        let recorded = names(&["der(h)", "label", "der(v)"]);
        assert_eq!(
            traced_variables(&Shapes::new(&md), &request(None), Some(&recorded)),
            names(&["der(h)", "der(v)"]),
            "the recorded numeric variables, without the String"
        );
        assert_eq!(
            traced_variables(&Shapes::new(&md), &request(None), None),
            names(&["h", "v", "bounces"]),
            "the outputs when the outputs are recorded"
        );
        assert_eq!(
            traced_variables(&Shapes::new(&md), &request(Some(&["v"])), Some(&recorded)),
            names(&["v"]),
            "--plot-variables wins"
        );
    }
}
