//! `tandem identify system.toml --data measured.csv --parameters comp.p=lo:hi,...`: fits
//! bounded parameters to measurements by L-BFGS and writes the fitted values and a plot.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::gradient::{load_problem, Fit, ProblemArgs};
use super::name_list;
use super::print_table;
use super::stdout::out;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::experiments;
use crate::float_text::format_float;
use crate::gradient::section;
use crate::gradient::SectionDefaults;
use crate::gradient::{Method, Outputs};
use crate::identify::bounds::Bounded;
use crate::identify::{identify, IdentifySection, Iteration, Settings};
use crate::interrupt;
use crate::output::fit::{plot, write_parameters};

/// Arguments of `tandem identify`.
#[derive(Args, Debug)]
pub struct IdentifyArgs {
    /// The system and the measurements.
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// The parameters with bounds, component.parameter=lower:upper (either bound may be left
    /// out), separated by commas (default: [identify] parameters).
    #[arg(long)]
    pub parameters: Vec<String>,
    /// Most L-BFGS iterations (default 200).
    #[arg(long)]
    pub max_iterations: Option<u64>,
    /// Stop when the gradient's norm falls below this fraction of its start value (default 1e-10).
    #[arg(long)]
    pub gradient_tolerance: Option<f64>,
    /// Fitted parameters, .toml or .csv (default: <system>_fitted.toml).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Plot of measured and fitted outputs, .png or .svg (default: <system>_fit.png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// What identification needs besides the problem: the bounds, the optimizer's settings and the
/// files to write.
pub struct Plan {
    /// The parameters with their bounds, in the problem's order.
    pub bounds: Vec<Bounded>,
    /// When L-BFGS stops.
    pub settings: Settings,
    /// The file of the fitted parameters.
    pub output: PathBuf,
    /// The plot of measured and fitted outputs.
    pub plot_file: PathBuf,
}

/// Fits the parameters, printing every iteration, and writes the results; under MPI the ranks
/// share the experiments, each runs the same optimizer on the same sums, and rank 0 prints and
/// writes. On Ctrl-C or SIGTERM the runs stop at the next macro step and the best point so far
/// is written as the result, without a plot.
pub fn run(args: &IdentifyArgs, cluster: &Cluster) -> Result<ExitCode> {
    interrupt::install();
    let (mut problem, plan) = cluster.agree(setup(args, cluster))?;
    let Plan {
        bounds,
        settings,
        output,
        plot_file,
    } = plan;
    let root = cluster.is_root();
    if root {
        out!("{:>9}  {:<24}  |grad|", "iteration", "J");
    }
    let report = Box::new(move |iteration: &Iteration| {
        if root {
            out!(
                "{:>9}  {:<24}  {}",
                iteration.number,
                format_float(iteration.cost),
                format_float(iteration.gradient_norm)
            );
        }
    });
    let fit = fit(&mut problem, &bounds, &settings, report)?;
    if root {
        print_fit(&fit, &bounds);
    }
    let written = if root {
        write_parameters(&output, &fit)
    } else {
        Ok(())
    };
    // Collective under MPI: every rank goes on to the outputs, or none.
    cluster.agree(written)?;
    if let Some(signal) = fit.interrupted {
        return Err(Error::stopped(
            signal,
            format!(
                "the best point so far (J = {}, the lowest of {} evaluations) is written to \
                 {}, without a plot",
                format_float(fit.cost),
                fit.evaluations,
                output.display()
            ),
        ));
    }
    let no_plot = || {
        format!(
            "the fitted parameters are written to {}, without a plot",
            output.display()
        )
    };
    let (fitted, start) = responses(&mut problem, &fit).map_err(|e| e.with_outcome(no_plot))?;
    if !root {
        return Ok(ExitCode::SUCCESS);
    }
    let plots = draw(&plot_file, &fitted, &start)?;
    let plots: Vec<String> = plots.iter().map(|p| p.display().to_string()).collect();
    let ranks = match cluster.size() {
        1 => String::new(),
        size => format!(" (the experiments shared by {size} MPI ranks)"),
    };
    eprintln!(
        "fitted parameters written to {}, plot to {}{ranks}",
        output.display(),
        plots.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// Fits the parameters of `problem` within `bounds`, telling `report` of every iteration; an
/// error before the first evaluation ended says there is no point to write.
pub fn fit(
    problem: &mut Fit<'_>,
    bounds: &[Bounded],
    settings: &Settings,
    report: Box<dyn FnMut(&Iteration) + Send>,
) -> Result<crate::identify::Fit> {
    identify(problem.fittable(), bounds, settings, report).map_err(|e| {
        Error::from(e).with_outcome(|| "the first evaluation did not end: no point to write".into())
    })
}

/// The cost's outputs at the fitted and at the start values, one per experiment: what the
/// plot compares with the measurements.
pub fn responses(
    problem: &mut Fit<'_>,
    fit: &crate::identify::Fit,
) -> Result<(Vec<Outputs>, Vec<Outputs>)> {
    Ok((problem.outputs(&fit.fitted)?, problem.outputs(&fit.start)?))
}

/// Draws the measurements against the `fitted` and `start` responses into `plot_file` (a file
/// per experiment when there are several, see [`plot_files`]); returns the files drawn.
pub fn draw(plot_file: &Path, fitted: &[Outputs], start: &[Outputs]) -> Result<Vec<PathBuf>> {
    let plots = plot_files(plot_file, fitted.len());
    for ((path, fitted), start) in plots.iter().zip(fitted).zip(start) {
        plot(path, fitted, start)?;
    }
    Ok(plots)
}

/// Prints how far the cost came down and the fitted values.
fn print_fit(fit: &crate::identify::Fit, bounds: &[Bounded]) {
    out!(
        "J from {} to {} ({} cost and gradient evaluations); {}",
        format_float(fit.start_cost),
        format_float(fit.cost),
        fit.evaluations,
        fit.stopped
    );
    let bound = |b: Option<f64>| b.map_or("-".to_string(), format_float);
    let rows: Vec<Vec<String>> = (0..bounds.len())
        .map(|i| {
            vec![
                bounds[i].name.clone(),
                format_float(fit.start[i]),
                format_float(fit.fitted[i]),
                bound(bounds[i].lower),
                bound(bounds[i].upper),
                fit.methods[i].label().into(),
            ]
        })
        .collect();
    print_table(
        &["parameter", "start", "fitted", "lower", "upper", "gradient"],
        &rows,
    );
    if let Some(Method::FiniteDifferences { reason }) = fit.methods.first() {
        out!("finite differences because {reason}");
    }
}

/// The problem and the plan of `args`, with the `[identify]` section's defaults (not
/// collective): what `tandem identify` and the Python package's `tandem.identify` fit.
pub fn setup<'a>(args: &IdentifyArgs, cluster: &'a Cluster) -> Result<(Fit<'a>, Plan)> {
    let system_file = &args.problem.system;
    let section: IdentifySection =
        section::read(system_file, crate::identify::section::SECTION)?.unwrap_or_default();
    let (written, option) = if args.parameters.is_empty() {
        (section.parameters.clone(), "[identify] parameters")
    } else {
        (name_list::split(&args.parameters), "--parameters")
    };
    let bounds = written
        .iter()
        .map(|text| Bounded::parse(text, option))
        .collect::<tandem_cosim::Result<Vec<_>>>()?;
    if args.problem.data.is_none()
        && section.data.is_none()
        && experiments::read(system_file)?.is_empty()
    {
        return Err(Error::invalid_value(
            "--data",
            "identification needs measurements: give --data measured.csv, data = \
                      \"...\" in the [identify] section, or [[experiments]] entries",
        ));
    }
    let names: Vec<String> = bounds.iter().map(|b| b.name.clone()).collect();
    let defaults = SectionDefaults {
        cost: None,
        data: section.data.clone(),
        weights: section.weights.clone(),
        checkpoint_interval: section.checkpoint_interval,
    };
    let problem = load_problem(
        &args.problem,
        defaults,
        &names,
        Some("least-squares"),
        option,
        cluster,
    )?;
    let defaults = Settings::default();
    let settings = Settings {
        max_iterations: args
            .max_iterations
            .or(section.max_iterations)
            .unwrap_or(defaults.max_iterations),
        gradient_tolerance: args
            .gradient_tolerance
            .or(section.gradient_tolerance)
            .unwrap_or(defaults.gradient_tolerance),
    };
    let stem = system_file
        .file_stem()
        .map_or_else(|| "system".into(), |s| s.to_string_lossy().into_owned());
    let in_system_folder =
        |written: &Option<PathBuf>| written.as_ref().map(|w| section::resolve(system_file, w));
    let output = args
        .output
        .clone()
        .or_else(|| in_system_folder(&section.output))
        .unwrap_or_else(|| PathBuf::from(format!("{stem}_fitted.toml")));
    let plot_file = args
        .plot
        .clone()
        .or_else(|| in_system_folder(&section.plot))
        .unwrap_or_else(|| PathBuf::from(format!("{stem}_fit.png")));
    Ok((
        problem,
        Plan {
            bounds,
            settings,
            output,
            plot_file,
        },
    ))
}

/// The plot files of `experiments` experiments: `plot` itself for one, else `plot` with the
/// experiment's number (from 1) after its stem.
fn plot_files(plot: &Path, experiments: usize) -> Vec<PathBuf> {
    if experiments == 1 {
        return vec![plot.to_path_buf()];
    }
    let stem = plot.file_stem().unwrap_or_default().to_string_lossy();
    let extension = plot.extension().unwrap_or_default().to_string_lossy();
    (1..=experiments)
        .map(|k| plot.with_file_name(format!("{stem}_{k}.{extension}")))
        .collect()
}
