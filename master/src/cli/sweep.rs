//! `tandem sweep system.toml`: the system run once per parameter set, one table row per run.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::run::SystemOverrides;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::files::{create_output, OutputFile};
use crate::interrupt;
use crate::sweep::grid::{factorial, Grid};
use crate::sweep::metrics::Metric;
use crate::sweep::plot::{plot, Figure};
use crate::sweep::sampling::{sample, Design, Sampled};
use crate::sweep::table::SweepTable;
use crate::sweep::{parquet_table, sets_file, sweep_on, Sets, SweepOptions, MAX_RUNS};

/// Arguments of `tandem sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The system: a TOML system file, an SSP package (.ssp) or a system structure description (.ssd).
    pub system: PathBuf,
    /// A grid of one parameter, component.parameter=low:high:count or =log:low:high:count
    /// (repeatable: several grids make a full factorial, the first varying slowest).
    #[arg(long)]
    pub grid: Vec<String>,
    /// A sampled parameter, component.parameter=uniform(low,high), normal(mu,sigma) or
    /// lognormal(mu,sigma) (repeatable; with --samples).
    #[arg(long)]
    pub sample: Vec<String>,
    /// How many Monte Carlo sets to draw from the --sample distributions.
    #[arg(long)]
    pub samples: Option<usize>,
    /// Draw the samples by Latin hypercube instead of independently.
    #[arg(long)]
    pub latin_hypercube: bool,
    /// Seed of the samples (the same seed gives the same sets on every platform).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A CSV file of sets: a header of component.parameter names, a row of values per run.
    #[arg(long)]
    pub sets: Option<PathBuf>,
    /// A metric of each run, kind:column with kind final, min, max, mean or rms of a result
    /// column (repeatable).
    #[arg(long)]
    pub metric: Vec<String>,
    /// Also the system file's [gradient] cost of each run, in column cost.
    #[arg(long)]
    pub cost: bool,
    /// Also the [gradient] cost's gradient with respect to the [gradient] parameters, in columns
    /// dJ/d<parameter> (implies --cost).
    #[arg(long)]
    pub gradient: bool,
    /// The table, .csv or .parquet by extension (default: <system>_sweep.csv); repeatable, to
    /// write both.
    #[arg(long)]
    pub output: Vec<PathBuf>,
    /// Plot the metrics, .png or .svg: against each parameter (a file per parameter), or for
    /// --samples as a histogram (a file per metric).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Keep each run's result file in this folder, as run_<index>.csv.
    #[arg(long)]
    pub keep_results: Option<PathBuf>,
    /// Runs at the same time, each on one thread (default: one per core).
    #[arg(long)]
    pub threads: Option<NonZeroUsize>,
    /// What every run may change of the system.
    #[command(flatten)]
    pub overrides: SystemOverrides,
}

/// The formats of the table.
enum Format {
    Csv,
    Parquet,
}

/// A table to write: its path, its format and, on the rank that writes, the file, created and
/// locked before the runs.
pub struct TableFile {
    path: PathBuf,
    format: Format,
    file: Option<OutputFile>,
}

/// What the arguments give before any run: the sets, the tables to write and the options.
struct Prepared {
    sets: Sets,
    outputs: Vec<TableFile>,
    options: SweepOptions,
}

/// Runs the sweep and writes its table; failed runs are rows of the table, not an error. Under
/// MPI the ranks share the runs and rank 0 writes the table.
pub fn run(args: &SweepArgs, cluster: &Cluster) -> Result<ExitCode> {
    let started = Instant::now();
    // Every rank reads the arguments and files; all go on only if all could.
    let Prepared {
        sets,
        outputs,
        options,
    } = cluster.agree(prepare(args, cluster.is_root()))?;
    interrupt::install();
    let Some(table) = sweep_on(cluster, &args.system, &sets, &options)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let written = write(args, &table, &outputs)?;
    let ranks = match cluster.size() {
        1 => String::new(),
        size => format!(" on {size} MPI ranks"),
    };
    eprintln!(
        "{}: {} runs{ranks}, {} failed, written to {}, wall time {:.3} s",
        args.system.display(),
        table.rows.len(),
        table.failed(),
        written.join(", "),
        started.elapsed().as_secs_f64()
    );
    if interrupt::check(table.rows.len() as f64).is_err() {
        // The table is written, but the runs after the signal are rows that say "not run".
        return Err(Error::invalid_value(
            written.join(", "),
            "the sweep was interrupted; the runs not started are marked \"not run\"",
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The sets, the tables with their formats and the options of `args`; `root` (the rank that
/// writes) also checks that the tables can be written, now rather than after the runs.
fn prepare(args: &SweepArgs, root: bool) -> Result<Prepared> {
    let (sets, options) = plan(args)?;
    let paths = if args.output.is_empty() {
        let stem = args
            .system
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy();
        vec![PathBuf::from(format!("{stem}_sweep.csv"))]
    } else {
        args.output.clone()
    };
    Ok(Prepared {
        sets,
        outputs: table_files(paths, root)?,
        options: SweepOptions {
            progress: true,
            ..options
        },
    })
}

/// The sets and the options of `args` (without a progress bar), and its `--plot` checked,
/// before any file is written: what `tandem sweep` and the Python package's `tandem.sweep`
/// run.
pub fn plan(args: &SweepArgs) -> Result<(Sets, SweepOptions)> {
    let sets = sets(args)?;
    if let Some(path) = &args.plot {
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("png" | "svg")
        ) {
            return Err(Error::invalid_value(
                format!("--plot {}", path.display()),
                "the plot is drawn as .png or .svg, by extension",
            ));
        }
    }
    let options = SweepOptions {
        run: args.overrides.run_options(),
        metrics: args
            .metric
            .iter()
            .map(|m| Metric::parse(m))
            .collect::<Result<_>>()?,
        cost: (args.cost || args.gradient).then_some(args.gradient),
        keep_results: args.keep_results.clone(),
        threads: args.threads,
        progress: false,
        listener: None,
    };
    Ok((sets, options))
}

/// The tables `paths` (`.csv` or `.parquet`, by extension), created and locked now when `root`
/// (the rank that writes) rather than found unwritable after the runs.
pub fn table_files(paths: Vec<PathBuf>, root: bool) -> Result<Vec<TableFile>> {
    paths
        .into_iter()
        .map(|path| {
            let format = match path.extension().and_then(|e| e.to_str()) {
                Some("csv") => Format::Csv,
                Some("parquet") => Format::Parquet,
                _ => {
                    return Err(Error::invalid_value(
                        format!("--output {}", path.display()),
                        "the table is written as .csv or .parquet, by extension",
                    ))
                }
            };
            let file = root.then(|| create_output(&path)).transpose()?;
            Ok(TableFile { path, format, file })
        })
        .collect()
}

/// Writes `table` into `outputs` and draws the plot of `args`; returns the files written.
pub fn write(args: &SweepArgs, table: &SweepTable, outputs: &[TableFile]) -> Result<Vec<String>> {
    for TableFile { path, format, file } in outputs {
        let Some(file) = file else { continue };
        match format {
            Format::Csv => table.write_csv(path, &**file)?,
            Format::Parquet => {
                let file = file.try_clone().map_err(|e| Error::io(path, e))?;
                parquet_table::write(table, path, file)?
            }
        }
    }
    let mut written: Vec<String> = outputs
        .iter()
        .map(|output| output.path.display().to_string())
        .collect();
    if let Some(path) = &args.plot {
        let figure = if args.samples.is_some() {
            Figure::Histogram
        } else {
            Figure::Scatter
        };
        let plots = plot(table, figure, path)?;
        written.extend(plots.iter().map(|p| p.display().to_string()));
    }
    Ok(written)
}

/// Refuses a sweep of more than [`MAX_RUNS`] runs (`None`: more than a `usize` counts), before
/// its plan is made: the plan and the table of results are held in memory.
fn check_runs(option: &str, runs: Option<usize>) -> Result<()> {
    match runs {
        Some(runs) if runs <= MAX_RUNS => Ok(()),
        _ => Err(Error::invalid_value(
            option,
            format!(
                "{} runs: a sweep runs at most {MAX_RUNS} (its plan and table of results are \
                 held in memory, about 200 bytes a run); split it into several sweeps",
                runs.map_or("more than 2^64".to_string(), |r| r.to_string())
            ),
        )),
    }
}

/// The sets of the one source the arguments give: grids, samples or a file.
fn sets(args: &SweepArgs) -> Result<Sets> {
    let sources = [
        !args.grid.is_empty(),
        args.samples.is_some() || !args.sample.is_empty(),
        args.sets.is_some(),
    ];
    if sources.iter().filter(|&&given| given).count() != 1 {
        return Err(Error::invalid_value(
            "tandem sweep",
            "give the parameter sets one way: --grid, --samples with --sample, or --sets",
        ));
    }
    if !args.grid.is_empty() {
        let grids = args
            .grid
            .iter()
            .map(|g| Grid::parse(g))
            .collect::<Result<Vec<_>>>()?;
        let runs = grids
            .iter()
            .try_fold(1usize, |runs, grid| runs.checked_mul(grid.count));
        check_runs("--grid", runs)?;
        return Ok(Sets {
            names: grids.iter().map(|g| g.name.clone()).collect(),
            values: factorial(&grids),
            source: "--grid".into(),
        });
    }
    if let Some(path) = &args.sets {
        return sets_file::read(path);
    }
    let count = args.samples.filter(|&n| n >= 1).ok_or_else(|| {
        Error::invalid_value(
            "--samples",
            "Monte Carlo needs the number of sets, a whole number from 1",
        )
    })?;
    check_runs("--samples", Some(count))?;
    if args.sample.is_empty() {
        return Err(Error::invalid_value(
            "--samples",
            "no sampled parameter: give --sample component.parameter=normal(mu,sigma) \
                      (or uniform, lognormal)",
        ));
    }
    let sampled = args
        .sample
        .iter()
        .map(|s| Sampled::parse(s))
        .collect::<Result<Vec<_>>>()?;
    let design = if args.latin_hypercube {
        Design::LatinHypercube
    } else {
        Design::Plain
    };
    Ok(Sets {
        names: sampled.iter().map(|s| s.name.clone()).collect(),
        values: sample(&sampled, count, design, args.seed),
        source: "--sample".into(),
    })
}
