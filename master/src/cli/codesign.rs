//! `tandem codesign problem.toml`: control co-design of one plant FMU. Prints the cost f of
//! the baseline design under its LQR, the gain, the closed-loop eigenvalues and df/dd by the
//! coupled adjoint; `--check` compares df/dd with central differences; `--optimize` runs
//! SLSQP and writes the optimum, the history and plots.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::print_table;
use super::stdout::out;
use crate::codesign::fmu_plant::FmuPlant;
use crate::codesign::optimize::{optimize, Optimum};
use crate::codesign::problem_file::{self, CodesignFile};
use crate::codesign::{analyze, central_differences, gradient, Analysis, CodesignError, Gradient};
use crate::error::{Error, Result};
use crate::float_text::format_float;

/// The KKT residual (relative to the baseline's gradient) below which the optimum is reported
/// as one: the adjoint gradient is accurate to about 1e-8 relative.
const FIRST_ORDER_TOLERANCE: f64 = 1e-4;
use crate::output::plot::{grouped_time_series, time_series, PlotOptions, TimeSeries};
use crate::Fmu;

/// Arguments of `tandem codesign`.
#[derive(Args, Debug)]
pub struct CodesignArgs {
    /// The co-design problem file (master/docs/codesign-file.md).
    pub problem: PathBuf,
    /// Also compute df/dd by central differences and print the relative differences.
    #[arg(long)]
    pub check: bool,
    /// Folder the plant FMU is taken from (its file name as the problem file gives it).
    #[arg(long)]
    pub fmu_dir: Option<PathBuf>,
    /// Optimize the design (SLSQP within the bounds and constraints) and write the optimum,
    /// the history and the plots next to the problem file.
    #[arg(long)]
    pub optimize: bool,
    /// Relative step of the central differences of --check.
    #[arg(long, default_value_t = 1e-4)]
    pub step: f64,
}

/// Runs the analysis and the adjoint at the baseline design and prints them.
pub fn run(args: &CodesignArgs) -> Result<ExitCode> {
    let (file, fmu) = open(&args.problem, args.fmu_dir.as_deref())?;
    let in_file = |source: CodesignError| in_problem(&args.problem, source);
    let mut plant = FmuPlant::new(&fmu, &file.plant).map_err(in_file)?;
    let d = file.start();
    let analysis = analyze(&mut plant, &file.problem, &d).map_err(in_file)?;
    print_analysis(&file, &analysis);
    let gradient = gradient(&mut plant, &file.problem, &analysis).map_err(in_file)?;
    print_gradient(&file, &gradient);
    if args.check {
        let differences =
            central_differences(&mut plant, &file.problem, &d, args.step).map_err(in_file)?;
        out!(
            "\nCheck against central differences (relative step {}):",
            args.step
        );
        let rows = file
            .design
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (a, f) = (gradient.df_dd[i], differences[i]);
                vec![
                    p.name.clone(),
                    format_float(a),
                    format_float(f),
                    format!("{:.2e}", (a - f).abs() / f.abs().max(f64::MIN_POSITIVE)),
                ]
            })
            .collect::<Vec<_>>();
        print_table(
            &["parameter", "adjoint", "differences", "relative difference"],
            &rows,
        );
    }
    if args.optimize {
        let optimum = optimize(
            &mut plant,
            &file.problem,
            &file.design,
            &file.constraints,
            &file.optimize,
        )
        .map_err(in_file)?;
        let best = analyze(&mut plant, &file.problem, &optimum.d).map_err(in_file)?;
        report_optimum(&args.problem, &file, &optimum, &analysis, &best)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The problem file `problem` and its plant FMU, opened and checked (from `fmu_dir` by its
/// file name, when given).
pub fn open(problem: &Path, fmu_dir: Option<&Path>) -> Result<(CodesignFile, Fmu)> {
    let file = problem_file::read(problem)?;
    let fmu_path = match (fmu_dir, file.fmu.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => file.fmu.clone(),
    };
    let fmu = Fmu::open(&fmu_path)?;
    fmu.check_valid()?;
    Ok((file, fmu))
}

/// Prints the optimum and writes `<problem>_optimum.toml`, `<problem>_history.csv`,
/// `<problem>_cost.png` and `<problem>_trajectories.png`.
fn report_optimum(
    problem: &Path,
    file: &CodesignFile,
    optimum: &Optimum,
    baseline: &Analysis,
    best: &Analysis,
) -> Result<()> {
    let reduction = 100.0 * (1.0 - optimum.f / baseline.f);
    out!(
        "\nOptimum ({}, {} evaluations): f = {} ({reduction:.2} % below the baseline)",
        optimum.status,
        optimum.history.len(),
        format_float(optimum.f)
    );
    let rows: Vec<Vec<String>> = file
        .design
        .iter()
        .zip(&optimum.d)
        .map(|(e, d)| {
            vec![
                e.name.clone(),
                format_float(e.start),
                format_float(*d),
                format!("[{}, {}]", e.min, e.max),
            ]
        })
        .collect();
    print_table(&["parameter", "baseline", "optimum", "bounds"], &rows);
    let check = &optimum.first_order;
    let active = if check.active.is_empty() {
        "no bound or constraint active".to_string()
    } else {
        format!("active: {}", check.active.join(", "))
    };
    out!(
        "first-order check ({active}): KKT residual {:.1e} of the baseline's |df/dd|: {}",
        check.residual,
        if check.holds(FIRST_ORDER_TOLERANCE) {
            "an optimum"
        } else {
            "not an optimum to this tolerance (more iterations, a tighter tolerance or another \
             start may help)"
        }
    );
    let stem = problem.with_extension("");
    let named = |suffix: &str| PathBuf::from(format!("{}_{suffix}", stem.display()));
    let mut text = format!(
        "# Optimum of {}: f = {} ({reduction:.2} % below the baseline f = {})\n",
        problem.display(),
        optimum.f,
        baseline.f
    );
    for (e, d) in file.design.iter().zip(&optimum.d) {
        text += &format!("{} = {d}\n", e.name);
    }
    let write = |path: PathBuf, text: String| crate::files::write_output(&path, text);
    write(named("optimum.toml"), text)?;
    let mut csv = format!("evaluation,f,{},{}\n", names(file, ""), names(file, "df/d"));
    for (i, e) in optimum.history.iter().enumerate() {
        let values: Vec<String> =
            e.d.iter()
                .chain(&e.gradient)
                .map(|v| format!("{v}"))
                .collect();
        csv += &format!("{i},{},{}\n", e.f, values.join(","));
    }
    write(named("history.csv"), csv)?;
    let index: Vec<f64> = (0..optimum.history.len()).map(|i| i as f64).collect();
    let costs: Vec<f64> = optimum.history.iter().map(|e| e.f).collect();
    let options = |title: String| PlotOptions {
        title: Some(title),
        ..PlotOptions::default()
    };
    time_series(
        &named("cost.png"),
        &TimeSeries {
            time: &index,
            columns: vec![("f (horizontal axis: evaluation)", &costs)],
        },
        &options(format!("Co-design cost history: {}", problem.display())),
    )?;
    let time: Vec<f64> = (0..baseline.trajectory.len())
        .map(|k| k as f64 * file.problem.dt)
        .collect();
    let column = |a: &Analysis, i: usize| a.trajectory.iter().map(|dx| dx[i]).collect::<Vec<f64>>();
    let signals: Vec<[(String, Vec<f64>); 2]> = file
        .plant
        .states
        .iter()
        .enumerate()
        .map(|(i, name)| {
            [
                (format!("δ{name} baseline"), column(baseline, i)),
                (format!("δ{name} optimum"), column(best, i)),
            ]
        })
        .collect();
    let pairs: Vec<Vec<(&str, &[f64])>> = signals
        .iter()
        .map(|g| g.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect())
        .collect();
    let groups: Vec<&[(&str, &[f64])]> = pairs.iter().map(Vec::as_slice).collect();
    grouped_time_series(
        &named("trajectories.png"),
        &time,
        &groups,
        &options("Closed-loop deviations from the target".into()),
    )?;
    out!(
        "wrote {}, {}, {}, {}",
        named("optimum.toml").display(),
        named("history.csv").display(),
        named("cost.png").display(),
        named("trajectories.png").display()
    );
    Ok(())
}

/// The design parameter names with `prefix`, comma-separated.
fn names(file: &CodesignFile, prefix: &str) -> String {
    file.design
        .iter()
        .map(|e| format!("{prefix}{}", e.name))
        .collect::<Vec<_>>()
        .join(",")
}

/// A co-design error, attributed to the problem file.
pub fn in_problem(path: &Path, source: CodesignError) -> Error {
    Error::Codesign {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

/// f, the target, W and the closed-loop eigenvalues.
fn print_analysis(file: &CodesignFile, a: &Analysis) {
    let join =
        |v: &mut dyn Iterator<Item = f64>| v.map(format_float).collect::<Vec<_>>().join(", ");
    out!("f = {}", format_float(a.f));
    out!("target x = [{}]", join(&mut a.x_target.iter().copied()));
    out!("target u = [{}]", join(&mut a.u_target.iter().copied()));
    if a.newton_iterations > 0 {
        out!("steady state: {} Newton iterations", a.newton_iterations);
    }
    out!("Riccati relative residual {:.2e}", a.care.relative_residual);
    out!(
        "W (rows: inputs {}; columns: states {}):",
        file.plant.inputs.join(", "),
        file.plant.states.join(", ")
    );
    for row in a.care.w.row_iter() {
        out!("  [{}]", join(&mut row.iter().copied()));
    }
    let eigenvalues: Vec<String> = a
        .care
        .closed_loop_eigenvalues
        .iter()
        .map(|l| format!("{:.6} {:+.6}i", l.re, l.im))
        .collect();
    out!(
        "closed-loop eigenvalues of J + G W: {}",
        eigenvalues.join(", ")
    );
}

/// df/dd with its terms and how each was computed.
fn print_gradient(file: &CodesignFile, g: &Gradient) {
    out!("\ndf/dd by the coupled adjoint:");
    let rows = file
        .design
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                p.name.clone(),
                format_float(p.start),
                format_float(g.df_dd[i]),
                format_float(g.closed_loop[i]),
                format_float(g.seeds[i]),
                format_float(g.steady_state[i]),
            ]
        })
        .collect::<Vec<_>>();
    print_table(
        &[
            "parameter",
            "value",
            "df/dd",
            "closed loop",
            "ARE seeds",
            "steady state",
        ],
        &rows,
    );
    out!(
        "closed loop and steady state: the FMU's adjoint/directional derivatives; ARE seeds: {}",
        g.seed_method
    );
}
