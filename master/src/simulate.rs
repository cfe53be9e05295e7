//! `tandem simulate`: the simulation crate's simulation of one FMU
//! ([`tandem_simulate::simulate`]) with what the command shows of it: the progress bar, the
//! plot (drawn also when the run fails, from the rows up to the failure) and the summary line.

pub use tandem_simulate::simulate::{
    grid_intervals, grid_point, selection, simulate_watched, time_table, Experiment, InputSignals,
    InputTable, Simulated, SimulationOptions, SimulationSummary, Trace, TraceRequest,
};

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::import::Fmu;
use crate::model_description::InterfaceType;
use crate::output::plot::{self, Layout, PlotOptions, TimeSeries};
use crate::output::progress::TerminalProgress;
use crate::output::summary::{Steps, Summary};

/// What to plot and where.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotRequest {
    /// The plot file (`.png` or `.svg`).
    pub path: PathBuf,
    /// Variables to plot (default: the numeric recorded variables).
    pub variables: Option<Vec<String>>,
    /// Arrangement of the panels.
    pub layout: Layout,
}

/// Runs one simulation as `options` say, writing the result file as it goes
/// ([`tandem_simulate::simulate::simulate`], with the master's error).
pub fn simulate(fmu: &Fmu, options: &SimulationOptions) -> Result<SimulationSummary> {
    Ok(tandem_simulate::simulate::simulate(fmu, options)?)
}

/// Runs one simulation as `options` say, with a progress bar on standard error (when
/// `progress` and it is a terminal), and draws `plot` from the rows recorded, also when the
/// run fails.
pub fn simulate_with_plot(
    fmu: &Fmu,
    options: &SimulationOptions,
    plot: Option<&PlotRequest>,
    progress: bool,
) -> Result<SimulationSummary> {
    let traced = SimulationOptions {
        trace: plot.map(|request| TraceRequest {
            variables: request.variables.clone(),
        }),
        ..options.clone()
    };
    let Simulated { outcome, trace } =
        simulate_watched(fmu, &traced, &mut TerminalProgress::new(progress));
    let plotted = match (plot, &trace) {
        (Some(request), Some(trace)) => draw(request, &fmu.model_description().model_name, trace),
        _ => Ok(()),
    };
    let summary = outcome?;
    plotted?;
    Ok(summary)
}

/// Draws the traced variables as the request says, titled with the model name.
fn draw(request: &PlotRequest, model: &str, trace: &Trace) -> Result<()> {
    let series = TimeSeries {
        time: &trace.time,
        columns: trace
            .names
            .iter()
            .map(String::as_str)
            .zip(trace.columns.iter().map(Vec::as_slice))
            .collect(),
    };
    let options = PlotOptions {
        title: Some(model.to_string()),
        layout: request.layout,
        ..PlotOptions::default()
    };
    plot::time_series(&request.path, &series, &options)
}

/// The summary line of the run `run` of `model`, whose results went to `output`.
pub fn summary(run: &SimulationSummary, model: &str, output: &Path) -> Summary {
    let (mode, steps, events) = match run.interface {
        InterfaceType::CoSimulation => (
            run.interface.to_string(),
            Steps::Communication(run.steps),
            None,
        ),
        InterfaceType::ModelExchange => (
            format!("{} ({})", run.interface, run.solver_description()),
            Steps::Integrator {
                accepted: run.steps,
                rejected: run.rejected_steps,
            },
            Some(run.events),
        ),
        InterfaceType::ScheduledExecution => (
            run.interface.to_string(),
            Steps::Activations(run.steps),
            None,
        ),
    };
    Summary {
        subject: model.to_string(),
        mode,
        final_time: run.final_time,
        steps,
        events,
        fmu_calls: run.fmu_calls,
        wall_time: run.wall_time,
        rows: run.rows,
        output: output.to_path_buf(),
        remarks: run
            .recorded_remark
            .iter()
            .chain(&run.tolerance_remark)
            .cloned()
            .chain(run.implicit.filter(|i| i.jacobians > 0).map(|i| {
                format!(
                    "implicit solver: {} Jacobians by {} products, {} LU factorizations",
                    i.jacobians, i.jacobian_products, i.factorizations
                )
            }))
            .chain(
                run.terminated_by_fmu
                    .then(|| "the FMU ended the run early".to_string()),
            )
            .collect(),
    }
}
