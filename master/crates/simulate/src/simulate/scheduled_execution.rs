//! The Scheduled Execution loop of `tandem simulate`: the master is the scheduler
//! ([`tandem_cosim::scheduled_execution`]). It activates the model partition of each input
//! clock at its ticks, in time order and, at one time, by priority.
//!
//! Input clocks tick as the model description declares them: periodic clocks every interval
//! from the start plus their shift, countdown clocks when the FMU announces them through the
//! clock-update callback, triggered clocks at the rows of the input file that hold a value
//! other than 0 in their column. Ticks at the stop time or later, or before the start, are
//! not activated: the run covers `[start, stop)`.
//!
//! The result file has one row per time at which partitions ran, written after the last
//! partition of that time: the time, the recorded variables (as read then), and one column
//! per clock of the FMU (input and output, in model description order), 1 where the clock
//! ticked at that time, else 0.

use super::recorder::Recorder;
use super::{Experiment, InputTable, SimulationSummary};
use crate::progress::Progress;
use fmi_host::import::Fmu;
use fmi_host::instance::{Common, LogSettings};
use fmi_host::model_description::InterfaceType;
use tandem_cosim::scheduled_execution::{Clocks, Scheduler};
use tandem_cosim::start_values::{self, StartValue};
use tandem_cosim::stop;
use tandem_cosim::{Error, Result};

/// What the Scheduled Execution loop needs.
pub(super) struct Scheduled<'a> {
    pub fmu: &'a Fmu,
    pub clocks: Clocks,
    pub log: LogSettings,
    pub start_values: &'a [StartValue],
    pub inputs: Option<&'a InputTable>,
    pub recorder: &'a mut Recorder,
    pub progress: &'a mut dyn Progress,
    pub experiment: Experiment,
}

/// The ticks the input file gives each triggered input clock from `start` on, by index among
/// the input clocks; a column of another clock is refused, naming the file and the column.
fn triggered_ticks(
    clocks: &Clocks,
    inputs: Option<&InputTable>,
    start: f64,
) -> Result<Vec<(usize, Vec<f64>)>> {
    let Some(inputs) = inputs else {
        return Ok(Vec::new());
    };
    inputs
        .clock_ticks()
        .map(|(name, times)| {
            let index = clocks
                .triggered(name)
                .map_err(|message| Error::input_file(inputs.path().to_path_buf(), message))?;
            Ok((index, times.into_iter().filter(|&t| t >= start).collect()))
        })
        .collect()
}

/// Instantiates, initializes, runs the partitions from start to stop and terminates; the
/// summary counts activations as steps, and `calls` the FMU calls made.
pub(super) fn run(scheduled: Scheduled<'_>, calls: &mut u64) -> Result<SimulationSummary> {
    let Scheduled {
        fmu,
        clocks,
        log,
        start_values,
        inputs,
        recorder,
        progress,
        experiment,
    } = scheduled;
    let md = fmu.model_description();
    let triggered = triggered_ticks(&clocks, inputs, experiment.start)?;
    let columns = clocks.columns.len();
    let mut scheduler = Scheduler::new(clocks);
    let mut instance =
        fmu.instantiate_fmi3(InterfaceType::ScheduledExecution, &md.model_name, log)?;
    *calls += 1;
    start_values::apply(&mut instance, start_values)?;
    *calls += start_values.len() as u64 + 1;
    instance.enter_initialization_mode(
        Some(experiment.tolerance),
        experiment.start,
        Some(experiment.stop),
    )?;
    if let Some(inputs) = inputs {
        inputs.apply(&mut instance, experiment.start)?;
        *calls += inputs.names().count() as u64;
    }
    scheduler.schedule_first(&mut instance, experiment.start, &triggered, calls)?;
    *calls += 1;
    instance.exit_initialization_mode()?;
    let mut summary = SimulationSummary::new(InterfaceType::ScheduledExecution, experiment.start);
    let mut ticked = vec![false; columns];
    while let Some(time) = scheduler.next_time().filter(|&time| time < experiment.stop) {
        if let Some(inputs) = inputs {
            inputs.apply(&mut instance, time)?;
            *calls += inputs.names().count() as u64;
        }
        ticked.fill(false);
        summary.steps += scheduler.run_instant(&mut instance, time, &mut ticked, calls)?;
        recorder.record_with_flags(&mut instance, time, &ticked)?;
        *calls += recorder.calls_per_row() as u64;
        progress.update(time);
        stop::check(time)?;
    }
    // The run covers [start, stop) whether or not a clock ticks near the stop.
    summary.final_time = experiment.stop;
    *calls += 1;
    instance.terminate()?;
    Ok(summary)
}
