//! `tandem run system.toml` (or `system.ssp`, `system.ssd`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::name_list;
use crate::coupling::{InterfaceJacobian, Threads};
use crate::error::{Error, Result};
use crate::instance::install_crash_report;
use crate::instance::logging::{stderr_logger, LogLevel, LogSettings};
use crate::interrupt;
use crate::output::csv::write_pending_after_crash;
use crate::run::{run_with_plots, PlotKind, Plots, RunOptions};

/// `--energy-correction` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Switch {
    /// Turned on.
    On,
    /// Turned off.
    Off,
}

impl Switch {
    /// Whether it says on.
    pub fn is_on(self) -> bool {
        matches!(self, Switch::On)
    }
}

/// `--plot` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum PlotArg {
    /// Total energy, residual power and energy of every bond, correction forces:
    /// <result>_energy.png.
    Energy,
    /// The recorded variables: <result>_variables.png.
    Variables,
}

/// What `tandem run` and `tandem sweep` may change of the system as its file gives it.
#[derive(Args, Debug)]
pub struct SystemOverrides {
    /// Stop time (default: the system's [experiment] stop, or the SSD's DefaultExperiment stopTime).
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Macro step (default: the system's [experiment] step; for SSP the Tandem annotation, else
    /// the smallest step the FMUs suggest).
    #[arg(long)]
    pub step_size: Option<f64>,
    /// Take every FMU from this folder, by the file name given in the system file.
    #[arg(long)]
    pub fmu_dir: Option<PathBuf>,
    /// Which FMU log messages to show: off, error, warning, info.
    #[arg(long, default_value = "warning")]
    pub log_level: LogLevel,
    /// Turn the energy correction on or off (default: the system's [energy] correction).
    #[arg(long, value_enum)]
    pub energy_correction: Option<Switch>,
    /// Couple implicitly, every macro step repeated until the values exchanged converge, with
    /// Newton's Jacobian from: auto, directional-derivatives, differences, broyden (default: the
    /// system's [schedule] implicit).
    #[arg(long, value_name = "JACOBIAN")]
    pub implicit: Option<InterfaceJacobian>,
    /// Choose the macro steps by the coupling's error with this tolerance, starting from the
    /// macro step (default: the system's [schedule] adaptive).
    #[arg(long, value_name = "TOLERANCE")]
    pub adaptive: Option<f64>,
}

impl SystemOverrides {
    /// Run options with these overrides, logging to standard error, the rest default.
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            stop_time: self.stop_time,
            step_size: self.step_size,
            fmu_dir: self.fmu_dir.clone(),
            log: LogSettings {
                level: self.log_level,
                logger: stderr_logger(),
            },
            correction: self.energy_correction.map(Switch::is_on),
            implicit: self.implicit,
            adaptive: self.adaptive,
            sections: super::SYSTEM_FILE_SECTIONS,
            ..RunOptions::default()
        }
    }
}

/// Arguments of `tandem run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The system: a TOML system file, an SSP package (.ssp) or a system structure description (.ssd).
    pub system: PathBuf,
    /// Result CSV file (default: the system's [output] file, else <system>_out.csv).
    #[arg(long)]
    pub output_file: Option<PathBuf>,
    /// Result rows every this many seconds, interpolated linearly between the macro points
    /// (default: the system's [output] interval, else a row per macro point).
    #[arg(long, value_name = "SECONDS")]
    pub output_interval: Option<f64>,
    /// What the run may change of the system.
    #[command(flatten)]
    pub overrides: SystemOverrides,
    /// Threads of a Jacobi macro step: auto or a number (default: the system's [schedule]
    /// threads).
    #[arg(long)]
    pub threads: Option<Threads>,
    /// Draw a plot beside the result file (repeatable).
    #[arg(long, value_enum)]
    pub plot: Vec<PlotArg>,
    /// Result columns the variables plot shows, comma-separated (default: every recorded
    /// variable).
    #[arg(long)]
    pub plot_variables: Vec<String>,
    /// Write the result file even if it is expected to exceed 10 GB.
    #[arg(long)]
    pub force: bool,
}

/// Runs the co-simulation; on failure the rows written so far stay in the result file.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let variables_plot = args.plot.iter().any(|p| matches!(p, PlotArg::Variables));
    if !args.plot_variables.is_empty() && !variables_plot {
        return Err(Error::invalid_value(
            "--plot-variables",
            "needs --plot variables to draw them",
        ));
    }
    let options = RunOptions {
        output_file: args.output_file.clone(),
        output_interval: args.output_interval,
        threads: args.threads,
        keep_trace: false,
        force: args.force,
        ..args.overrides.run_options()
    };
    let plots = Plots {
        kinds: args
            .plot
            .iter()
            .map(|p| match p {
                PlotArg::Energy => PlotKind::Energy,
                PlotArg::Variables => PlotKind::Variables,
            })
            .collect(),
        variables: name_list::split(&args.plot_variables),
    };
    interrupt::install();
    install_crash_report(write_pending_after_crash);
    let (summary, drawn) = run_with_plots(&args.system, &options, &plots, true)?;
    // The command always writes a result file.
    let output_file = summary.output_file.as_deref().unwrap_or(Path::new(""));
    let mut line = format!(
        "{}: {} with {} to t = {} in {} macro steps, {} FMU calls, {} rows written to {}, wall time {:.3} s",
        summary.system,
        summary.schedule,
        summary.extrapolation,
        summary.final_time,
        summary.macro_steps,
        summary.fmu_calls,
        summary.rows,
        output_file.display(),
        summary.wall_time.as_secs_f64()
    );
    if let Some((component, time)) = &summary.terminated_by {
        line.push_str(&format!(
            "; component {component} asked to end the run at t = {time}"
        ));
    }
    eprintln!("{line}");
    for integration in &summary.integrations {
        eprintln!("{integration}");
    }
    for activations in &summary.activations {
        eprintln!("{activations}");
    }
    if let Some(loops) = &summary.loops {
        eprintln!("{loops}");
    }
    if let Some(implicit) = &summary.implicit {
        eprintln!("{implicit}");
    }
    if let Some(steps) = &summary.steps {
        eprintln!("{steps}");
    }
    if let Some(energy) = &summary.energy {
        eprintln!("{energy}");
    }
    for plot in &drawn {
        eprintln!("plot written to {}", plot.display());
    }
    Ok(ExitCode::SUCCESS)
}
