//! The Co-Simulation loop: set inputs, doStep, record on the output grid, stop on Ctrl-C.

use super::{grid_intervals, grid_point, Run, SimulationSummary};
use fmi_host::model_description::InterfaceType;
use tandem_cosim::stop;
use tandem_cosim::{Error, Result};

/// Steps the instance from start to stop with the fixed communication step.
pub(super) fn run(run: Run<'_>) -> Result<SimulationSummary> {
    let Run {
        instance,
        inputs,
        recorder,
        progress,
        experiment,
        ..
    } = run;
    let steps_per_output = (experiment.output_interval / experiment.step).round() as usize;
    let intervals = grid_intervals(experiment.start, experiment.step, experiment.stop);
    recorder.record(instance, experiment.start)?;
    let mut time = experiment.start;
    let mut summary = SimulationSummary::new(InterfaceType::CoSimulation, time);
    for k in 1..=intervals {
        let next = grid_point(experiment.start, experiment.step, k, experiment.stop);
        if let Some(inputs) = inputs {
            inputs.apply(instance, time)?;
        }
        let outcome = instance.do_step(time, next - time)?;
        summary.steps += 1;
        if outcome.terminate || outcome.partial {
            time = outcome.last_time;
            recorder.record(instance, time)?;
            if !outcome.terminate {
                return Err(Error::simulation(
                    time,
                    format!(
                        "{} stopped the step from {} early and does not ask to terminate",
                        instance.name(),
                        next - experiment.step.min(next - experiment.start)
                    ),
                ));
            }
            summary.terminated_by_fmu = true;
            break;
        }
        time = next;
        progress.update(time);
        if k % steps_per_output == 0 || k == intervals {
            recorder.record(instance, time)?;
        }
        stop::check(time)?;
    }
    summary.final_time = time;
    Ok(summary)
}
