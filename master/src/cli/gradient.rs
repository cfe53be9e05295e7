//! `tandem gradient system.toml`: the gradient of a cost with respect to component parameters,
//! by the adjoint of the co-simulation or, where that is not available, finite differences;
//! `--check` compares with central finite differences of whole runs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::name_list;
use super::print_table;
use super::run::Switch;
use super::stdout::out;
use crate::cluster::Cluster;
use crate::coupling::Threads;
use crate::error::{Error, Result};
use crate::experiments::{self, Experiments};
use crate::float_text::format_float;
use crate::gradient::GradientSection;
use crate::gradient::{
    Differences, Evaluation, Method, Outputs, Overrides, Problem, SectionDefaults, Setup,
};
use crate::identify::Fittable;
use crate::instance::logging::{stderr_logger, LogLevel, LogSettings};
use crate::interrupt;
use crate::system::LoadOptions;

/// What `tandem gradient` and `tandem identify` share: the system and the cost's data.
#[derive(Args, Debug)]
pub struct ProblemArgs {
    /// The system file (TOML).
    pub system: PathBuf,
    /// Measurements (CSV: time, then columns named component.output) for a least-squares cost.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Weights of measured columns, component.output=weight (default 1).
    #[arg(long)]
    pub weights: Vec<String>,
    /// Keep FMU states at every k-th macro point for the adjoint and recompute the steps between
    /// (0: keep all; default: about the square root of the number of macro steps).
    #[arg(long)]
    pub checkpoint_interval: Option<usize>,
    /// Stop time (default: the system's [experiment] stop).
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Take every FMU from this folder, by the file name given in the system file.
    #[arg(long)]
    pub fmu_dir: Option<PathBuf>,
    /// Which FMU log messages to show: off, error, warning, info.
    #[arg(long, default_value = "warning")]
    pub log_level: LogLevel,
    /// Turn the energy correction on or off in every run (default: the system's [energy]
    /// correction); the gradient then includes the correction's derivative.
    #[arg(long, value_enum)]
    pub energy_correction: Option<Switch>,
    /// Threads of a Jacobi macro step: auto or a number (default: the system's [schedule]
    /// threads).
    #[arg(long)]
    pub threads: Option<Threads>,
}

/// Arguments of `tandem gradient`.
#[derive(Args, Debug)]
pub struct GradientArgs {
    /// The system and the cost's data.
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// The parameters, component.parameter, separated by commas (default: [gradient] parameters).
    #[arg(long)]
    pub parameters: Vec<String>,
    /// The cost: least-squares (against --data), integral:component.output,
    /// final:component.output, or a weighted sum such as 'final:a.y + 0.5*integral:b.z'.
    #[arg(long)]
    pub cost: Option<String>,
    /// Also compute central finite differences of whole runs and print the relative error.
    #[arg(long)]
    pub check: bool,
}

/// The problem of one experiment, or the sum over the system file's `[[experiments]]`.
pub enum Fit<'a> {
    /// The system as the file gives it, with `--data` or the section's data (boxed: a problem
    /// is large beside the experiments' list).
    One(Box<Problem>),
    /// One problem per `[[experiments]]` entry (those of this rank under MPI).
    Several(Experiments<'a>),
}

impl Fit<'_> {
    /// The (first) problem, for the parameters and how their derivatives are taken.
    pub fn first(&self) -> &Problem {
        match self {
            Fit::One(problem) => problem,
            Fit::Several(experiments) => experiments.first(),
        }
    }

    /// What the optimizer and the gradient evaluate.
    pub fn fittable(&mut self) -> &mut dyn Fittable {
        match self {
            Fit::One(problem) => problem.as_mut(),
            Fit::Several(experiments) => experiments,
        }
    }

    /// Central finite differences of whole runs (summed over the experiments).
    pub fn finite_differences(&mut self, values: &[f64], which: &[usize]) -> Result<Vec<f64>> {
        match self {
            Fit::One(problem) => {
                Ok(problem.finite_differences(values, which, Differences::CHECK)?)
            }
            Fit::Several(experiments) => {
                experiments.finite_differences(values, which, Differences::CHECK)
            }
        }
    }

    /// The cost's outputs at `values`, one per experiment.
    pub fn outputs(&mut self, values: &[f64]) -> Result<Vec<Outputs>> {
        match self {
            Fit::One(problem) => Ok(vec![problem.outputs(values)?]),
            Fit::Several(experiments) => experiments.outputs(values),
        }
    }
}

/// Loads the system of `args` and sets up the problem, the command line overriding `defaults`;
/// `parameters` are the names to differentiate by, `option` where they came from. With
/// `[[experiments]]` in the system file, one problem per experiment, shared by the ranks of
/// `cluster` (not collective).
pub fn load_problem<'a>(
    args: &ProblemArgs,
    defaults: SectionDefaults,
    parameters: &[String],
    cost: Option<&str>,
    option: &str,
    cluster: &'a Cluster,
) -> Result<Fit<'a>> {
    let overrides = Overrides {
        system: &args.system,
        data: args.data.clone(),
        weights: name_list::split(&args.weights)
            .iter()
            .map(|text| parse_weight(text))
            .collect::<Result<Vec<_>>>()?,
        checkpoint_interval: args.checkpoint_interval,
        load: LoadOptions {
            stop_time: args.stop_time,
            step_size: None,
            fmu_dir: args.fmu_dir.as_deref(),
            threads: args.threads,
            implicit: None,
            adaptive: None,
            sections: super::SYSTEM_FILE_SECTIONS,
        },
        correction: args.energy_correction.map(Switch::is_on),
        log: LogSettings {
            level: args.log_level,
            logger: stderr_logger(),
        },
    };
    let setup = Setup::new(&overrides, &defaults, parameters, cost, option);
    let entries = experiments::read(&args.system)?;
    if !entries.is_empty() {
        if let Some(data) = &args.data {
            return Err(Error::invalid_value(
                format!("--data {}", data.display()),
                format!(
                    "{} has [[experiments]], each with its own data",
                    args.system.display()
                ),
            ));
        }
        return Ok(Fit::Several(Experiments::new(&entries, &setup, cluster)?));
    }
    Ok(Fit::One(Box::new(setup.problem()?)))
}

/// `component.output=weight`.
fn parse_weight(text: &str) -> Result<(String, f64)> {
    let invalid = |message: &str| Error::invalid_value(format!("--weights {text}"), message);
    let (name, weight) = text
        .split_once('=')
        .ok_or_else(|| invalid("expected component.output=weight"))?;
    let weight = weight
        .trim()
        .parse::<f64>()
        .map_err(|_| invalid("the weight is not a number"))?;
    Ok((name.trim().to_string(), weight))
}

/// Computes and prints the gradient (and, with `--check`, the finite differences); under MPI
/// the ranks share the experiments and rank 0 prints.
/// On Ctrl-C or SIGTERM the runs stop at the next macro step, the FMUs' folders are removed
/// and the message says what was printed.
pub fn run(args: &GradientArgs, cluster: &Cluster) -> Result<ExitCode> {
    interrupt::install();
    let mut problem = cluster.agree(setup(args, cluster))?;
    let values = problem.fittable().start_values();
    let evaluation = problem
        .fittable()
        .gradient(&values)
        .map_err(|e| Error::from(e).with_outcome(|| "no gradient was computed".into()))?;
    let (check, interrupted) = if args.check {
        let all: Vec<usize> = (0..values.len()).collect();
        match problem.finite_differences(&values, &all) {
            Ok(check) => (Some(check), None),
            Err(error) if error.interrupting_signal().is_some() => (None, Some(error)),
            Err(error) => return Err(error),
        }
    } else {
        (None, None)
    };
    if cluster.is_root() {
        print(&values, &evaluation, check.as_deref(), &problem);
    }
    match interrupted {
        Some(error) => Err(error
            .with_outcome(|| "the gradient is printed without the finite-difference check".into())),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The problem of `args`, with the `[gradient]` section's defaults (not collective).
fn setup<'a>(args: &GradientArgs, cluster: &'a Cluster) -> Result<Fit<'a>> {
    let (parameters, option, defaults) =
        GradientSection::of(&args.problem.system)?.choose(name_list::split(&args.parameters));
    load_problem(
        &args.problem,
        defaults,
        &parameters,
        args.cost.as_deref(),
        option,
        cluster,
    )
}

/// Prints the gradient of `evaluation` at `values` (and the finite differences `check`).
fn print(values: &[f64], evaluation: &Evaluation, check: Option<&[f64]>, problem: &Fit<'_>) {
    out!("J = {}", format_float(evaluation.cost));
    if let Fit::Several(experiments) = problem {
        out!(
            "J and dJ/dp are the weighted sums over the {} [[experiments]] of the system file",
            experiments.count()
        );
    }
    let problem = problem.first();
    if problem.corrects_energy() {
        out!(
            "energy correction on: every run corrects the power bonds, and dJ/dp includes the \
             correction's derivative"
        );
    }
    let integrated = problem.integrated_components();
    if !integrated.is_empty() && evaluation.methods.contains(&Method::Adjoint) {
        out!(
            "Model Exchange components {}: their steps are differentiated through the master's \
             integrator (every solver stage, with the FMUs' partial derivatives)",
            integrated.join(", ")
        );
    }
    let mut header = vec!["parameter", "value", "dJ/dp", "method"];
    if check.is_some() {
        header.extend(["finite differences", "relative error"]);
    }
    let mut reasons: Vec<&str> = Vec::new();
    let rows: Vec<Vec<String>> = problem
        .parameters()
        .iter()
        .enumerate()
        .map(|(i, parameter)| {
            let method = &evaluation.methods[i];
            if let Method::FiniteDifferences { reason } = method {
                if !reasons.contains(&reason.as_str()) {
                    reasons.push(reason);
                }
            }
            let derivative = evaluation.gradient[i];
            let mut row = vec![
                parameter.name.clone(),
                format_float(values[i]),
                format_float(derivative),
                method.label().to_string(),
            ];
            if let Some(check) = check {
                row.push(format_float(check[i]));
                row.push(format!("{:.2e}", relative_error(derivative, check[i])));
            }
            row
        })
        .collect();
    print_table(&header, &rows);
    for reason in reasons {
        out!("finite differences because {reason}");
    }
}

/// `|a - b|` relative to the larger magnitude (0 when both are 0).
pub fn relative_error(a: f64, b: f64) -> f64 {
    let scale = a.abs().max(b.abs());
    if scale == 0.0 {
        0.0
    } else {
        (a - b).abs() / scale
    }
}
