//! `tandem simulate X.fmu`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::error::{Error, Result};
use crate::instance::install_crash_report;
use crate::instance::logging::{stderr_logger, LogLevel, LogSettings};
use crate::interrupt;
use crate::model_description::{split_names, InterfaceType};
use crate::output::csv::write_pending_after_crash;
use crate::output::plot::Layout;
use crate::simulate::{self, simulate_with_plot, InputSignals, PlotRequest, SimulationOptions};
use crate::solver::Method;
use crate::Fmu;

/// `--interface-type` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum InterfaceArg {
    /// Co-Simulation.
    Cs,
    /// Model Exchange.
    Me,
    /// Scheduled Execution (FMI 3.0).
    Se,
}

/// `--solver` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum SolverArg {
    /// Dormand–Prince while the model is not stiff, ESDIRK while it is, switching when a
    /// stiffness detector says so: the default.
    Auto,
    /// Explicit Dormand–Prince 5(4): for non-stiff models.
    Dopri5,
    /// Implicit, L-stable ESDIRK3(2)4L[2]SA with the FMU's directional derivatives (or finite
    /// differences) as Jacobian: for stiff models.
    Esdirk,
}

/// `--plot-layout` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum LayoutArg {
    /// One panel per variable over a shared time axis.
    Stacked,
    /// All variables in one panel with a legend.
    Overlay,
}

/// Arguments of `tandem simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The FMU.
    pub fmu: PathBuf,
    /// Interface to simulate (default: cs when available, else me, else se).
    #[arg(long, value_enum)]
    pub interface_type: Option<InterfaceArg>,
    /// Start time (default: the FMU's default experiment, else 0).
    #[arg(long)]
    pub start_time: Option<f64>,
    /// Stop time (default: the FMU's default experiment, else start + 1).
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Co-Simulation communication step (default: the default experiment's, else 1/500 of the run).
    #[arg(long)]
    pub step_size: Option<f64>,
    /// Distance between output rows (default: the step size).
    #[arg(long)]
    pub output_interval: Option<f64>,
    /// Relative tolerance of the Model Exchange integrator.
    #[arg(long)]
    pub relative_tolerance: Option<f64>,
    /// Start value as name=value (repeatable).
    #[arg(long = "start-value", value_name = "NAME=VALUE")]
    pub start_values: Vec<String>,
    /// CSV file with input signals (first column "time").
    #[arg(long)]
    pub input_file: Option<PathBuf>,
    /// Result CSV file (default: <FMU file name without .fmu>_out.csv).
    #[arg(long)]
    pub output_file: Option<PathBuf>,
    /// Variable or alias to record (repeatable): a name, a glob pattern such as 'mass.*', or
    /// `all`; default: the outputs, else the first 5 continuous states, else the first 5 local
    /// variables (as FMPy).
    #[arg(long = "output-variable", value_name = "NAME")]
    pub output_variables: Vec<String>,
    /// Record the values just before and after each Model Exchange event, as FMPy and
    /// fmusim do (the default).
    #[arg(long, overrides_with = "no_record_events")]
    pub record_events: bool,
    /// Record only the rows of the output grid, not the values before and after events.
    #[arg(long, overrides_with = "record_events")]
    pub no_record_events: bool,
    /// Which FMU log messages to show: off, error, warning, info.
    #[arg(long, default_value = "warning")]
    pub log_level: LogLevel,
    /// Model Exchange solver: auto (the default: dopri5, switching to esdirk while the model is
    /// stiff and back), dopri5 (explicit) or esdirk (implicit, for stiff models).
    #[arg(long, value_enum, default_value = "auto")]
    pub solver: SolverArg,
    /// Also draw the results into this plot file (.png or .svg).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Variables to plot, comma-separated (default: the recorded ones); the comma of an
    /// element name such as `A[2,3]` does not separate.
    #[arg(long, value_name = "A,B,...")]
    pub plot_variables: Vec<String>,
    /// Arrangement of the plot.
    #[arg(long, value_enum, default_value = "stacked")]
    pub plot_layout: LayoutArg,
    /// Write the result file even if it is expected to exceed 10 GB.
    #[arg(long)]
    pub force: bool,
}

/// Runs the simulation and prints the summary line; on failure the rows written so far stay
/// in the result file.
pub fn run(args: &SimulateArgs) -> Result<ExitCode> {
    let fmu = Fmu::open(&args.fmu)?;
    fmu.check_valid()?;
    let model = &fmu.model_description().model_name;
    let output_file = args
        .output_file
        .clone()
        .unwrap_or_else(|| default_output_file(&args.fmu));
    if args.plot.is_none() && !args.plot_variables.is_empty() {
        return Err(Error::invalid_value(
            "--plot-variables",
            "needs --plot FILE to say where the plot goes",
        ));
    }
    let options = SimulationOptions {
        interface: args.interface_type.map(|i| match i {
            InterfaceArg::Cs => InterfaceType::CoSimulation,
            InterfaceArg::Me => InterfaceType::ModelExchange,
            InterfaceArg::Se => InterfaceType::ScheduledExecution,
        }),
        start_time: args.start_time,
        stop_time: args.stop_time,
        step_size: args.step_size,
        output_interval: args.output_interval,
        relative_tolerance: args.relative_tolerance,
        start_values: args.start_values.clone(),
        inputs: args.input_file.clone().map(InputSignals::File),
        output_file: Some(output_file.clone()),
        output_variables: (!args.output_variables.is_empty())
            .then(|| args.output_variables.clone()),
        record_events: !args.no_record_events,
        log: LogSettings {
            level: args.log_level,
            logger: stderr_logger(),
        },
        solver: match args.solver {
            SolverArg::Auto => Method::Auto,
            SolverArg::Dopri5 => Method::Dopri5,
            SolverArg::Esdirk => Method::Esdirk,
        },
        trace: None,
        force: args.force,
    };
    let plot = args.plot.as_ref().map(|path| PlotRequest {
        path: path.clone(),
        variables: (!args.plot_variables.is_empty()).then(|| {
            args.plot_variables
                .iter()
                .flat_map(|list| split_names(list))
                .map(str::to_string)
                .collect()
        }),
        layout: match args.plot_layout {
            LayoutArg::Stacked => Layout::Stacked,
            LayoutArg::Overlay => Layout::Overlay,
        },
    });
    interrupt::install();
    install_crash_report(write_pending_after_crash);
    let summary = simulate_with_plot(&fmu, &options, plot.as_ref(), true)?;
    // One write: stderr is unbuffered, and the line has a dozen pieces.
    let line = simulate::summary(&summary, model, &output_file).to_string();
    eprintln!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// `<stem>_out.csv` in the working folder, after the FMU file (as FMPy and fmi-sim name it),
/// so that the name has no spaces a model name may have.
fn default_output_file(fmu: &Path) -> PathBuf {
    let stem = fmu.file_stem().unwrap_or(fmu.as_os_str());
    let mut name = stem.to_os_string();
    name.push("_out.csv");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_result_file_is_named_after_the_fmu_file() {
        assert_eq!(
            default_output_file(Path::new("some dir/VanDerPol.fmu")),
            Path::new("VanDerPol_out.csv")
        );
    }
}
