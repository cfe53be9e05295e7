//! `tandem sweep`: a system run once per parameter set (a grid, Monte Carlo samples or a CSV of
//! sets), each run exactly a `tandem run` of that set (the same [`run_loaded`]), on a pool of
//! threads with each run single-threaded. The result is a table with a row per run, in run
//! order whatever the number of threads (or MPI ranks, [`distributed`]); a failing run is
//! recorded with its message and the others go on.

pub mod cost;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod grid;
pub mod metrics;
pub mod parquet_table;
pub mod plot;
pub mod progress;
pub mod sampling;
pub mod sets_file;
pub mod table;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::cluster::Cluster;
use crate::coupling::Threads;
use crate::energy;
use crate::error::{Error, Result};
use crate::gradient::parameters::{resolve_all, write_all, Parameter};
use crate::interrupt;
use crate::run::RunOptions;
use crate::system::{LoadOptions, System};
use crate::temporary::{self, Kind};
use cost::CostColumns;
use metrics::Metric;
use progress::{RunsListener, SweepProgress};
use table::{RunRow, SweepTable};
use tandem_simulate::run::run_loaded;

/// Most runs of one sweep: its sets and its table are held in memory (a run's row takes about
/// 200 bytes with a few parameters and metrics, so the largest sweep takes a few GB).
pub const MAX_RUNS: usize = 10_000_000;

/// Parameter sets: the parameters' names and one row of values per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Sets {
    /// `component.parameter`, one per column.
    pub names: Vec<String>,
    /// One set per run, a value per name.
    pub values: Vec<Vec<f64>>,
    /// Where the sets came from (`--grid`, `--sample`, `--sets file.csv`), for messages.
    pub source: String,
}

/// What a sweep does besides the sets.
#[derive(Clone, Default)]
pub struct SweepOptions {
    /// The options of every run (their output file and progress are the sweep's to set).
    pub run: RunOptions,
    /// The metrics of each run.
    pub metrics: Vec<Metric>,
    /// Also the `[gradient]` cost of each run (`Some(true)`: and its gradient).
    pub cost: Option<bool>,
    /// Keep each run's result file in this folder, as `run_<index>.csv`.
    pub keep_results: Option<PathBuf>,
    /// Runs at the same time (default: one per core).
    pub threads: Option<NonZeroUsize>,
    /// Whether to show a progress bar (on standard error, when it is a terminal).
    pub progress: bool,
    /// Told of every finished run (on rank 0 under MPI).
    pub listener: Option<RunsListener>,
}

/// Loaded systems not in use: a run takes one (or loads one) and gives it back when it
/// succeeded, so at most one per thread is ever loaded and a failed run leaves nothing behind.
struct Idle<'a> {
    systems: Mutex<Vec<System>>,
    file: &'a Path,
    options: LoadOptions<'a>,
}

impl Idle<'_> {
    fn take(&self) -> std::result::Result<System, String> {
        let taken = self
            .systems
            .lock()
            .expect("no run panics holding the lock")
            .pop();
        match taken {
            Some(system) => Ok(system),
            None => System::read(self.file, self.options).map_err(|e| e.to_string()),
        }
    }

    fn give(&self, system: System) {
        self.systems
            .lock()
            .expect("no run panics holding the lock")
            .push(system);
    }
}

/// Runs `system_file` once per set of `sets` on this process's threads. Errors before any run
/// (the system, a parameter or a metric is wrong) end the sweep; a run's failure is its row's.
pub fn sweep(system_file: &Path, sets: &Sets, options: &SweepOptions) -> Result<SweepTable> {
    sweep_on(&Cluster::Alone, system_file, sets, options)
        .map(|table| table.expect("a process alone is rank 0, which gets the table"))
}

/// [`sweep`] on `cluster`: on the threads of this process alone, or with the runs handed out
/// to the ranks of an MPI job (collective), when only rank 0 gets the table.
pub fn sweep_on(
    cluster: &Cluster,
    system_file: &Path,
    sets: &Sets,
    options: &SweepOptions,
) -> Result<Option<SweepTable>> {
    if let (Some(threads), 2..) = (options.threads, cluster.size()) {
        return Err(Error::invalid_value(
            format!("--threads {threads}"),
            "under MPI each rank runs one set at a time: start one rank per core \
                      instead",
        ));
    }
    let run_options = per_run(&options.run, !options.metrics.is_empty());
    let runner = cluster.agree(Runner::new(system_file, sets, options, &run_options))?;
    let bar = SweepProgress::new(
        sets.values.len(),
        options.progress && cluster.is_root(),
        options.listener.clone().filter(|_| cluster.is_root()),
    );
    #[cfg(feature = "mpi")]
    if let Cluster::Mpi(mpi) = cluster {
        if mpi.size() > 1 {
            let rows = distributed::runs(mpi, &runner, &bar);
            bar.finish();
            return Ok(rows.map(|rows| runner.table(rows)));
        }
    }
    let rows = on_threads(&runner, options.threads, &bar)?;
    bar.finish();
    Ok(Some(runner.table(rows)))
}

/// The options of every run: each run single-threaded, without a progress bar or plots, its
/// trace kept when metrics need it.
fn per_run(run: &RunOptions, keep_trace: bool) -> RunOptions {
    RunOptions {
        // Parallel over runs, so each run steps its components on its own thread.
        threads: Some(Threads::Count(NonZeroUsize::MIN)),
        keep_trace,
        ..run.clone()
    }
}

/// Every run of `runner` on a pool of `threads` threads (default: one per core), in run order.
fn on_threads(
    runner: &Runner<'_>,
    threads: Option<NonZeroUsize>,
    bar: &SweepProgress,
) -> Result<Vec<RunRow>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, NonZeroUsize::get))
        .build()
        .map_err(|e| Error::invalid_value("--threads", format!("cannot start the threads: {e}")))?;
    Ok(pool.install(|| {
        (0..runner.count())
            .into_par_iter()
            .map(|index| {
                let row = runner.run(index);
                bar.finished(row.outcome.is_ok());
                row
            })
            .collect()
    }))
}

/// What every run of a sweep needs, set up once per process: the parameters resolved, the
/// metrics checked, loaded systems to reuse and the folder of the result files.
pub struct Runner<'a> {
    sets: &'a Sets,
    options: &'a SweepOptions,
    run_options: &'a RunOptions,
    parameters: Vec<Parameter>,
    cost: Option<CostColumns>,
    idle: Idle<'a>,
    idle_for_cost: Idle<'a>,
    folder: PathBuf,
    digits: usize,
    // Removed when the runner is dropped.
    _scratch: Option<tempfile::TempDir>,
}

impl<'a> Runner<'a> {
    /// Loads `system_file` once and checks the sets' parameters, the metrics and the cost
    /// against it.
    fn new(
        system_file: &'a Path,
        sets: &'a Sets,
        options: &'a SweepOptions,
        run_options: &'a RunOptions,
    ) -> Result<Runner<'a>> {
        let load = run_options.load_options();
        let mut first = System::load(system_file, load)?;
        let parameters = resolve_all(&sets.names, &first, &sets.source)?;
        let header = result_columns(&mut first, run_options.correction)?;
        let system_name = first.path.display().to_string();
        for metric in &options.metrics {
            metric.check(&header, &system_name)?;
        }
        let cost = options
            .cost
            .map(|gradient| CostColumns::read(system_file, gradient))
            .transpose()?;
        let cost_systems = match &cost {
            Some(cost) => {
                let mut system = System::read(system_file, load)?;
                system.set_energy_correction(run_options.correction)?;
                vec![cost.check(system)?]
            }
            None => Vec::new(),
        };
        let scratch = match &options.keep_results {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                None
            }
            None => Some(temporary::folder(Kind::Sweep)?),
        };
        let folder = options
            .keep_results
            .as_deref()
            .or(scratch.as_ref().map(tempfile::TempDir::path))
            .expect("one of the two")
            .to_path_buf();
        Ok(Runner {
            sets,
            options,
            run_options,
            parameters,
            cost,
            idle: Idle {
                systems: Mutex::new(vec![first]),
                file: system_file,
                options: load,
            },
            idle_for_cost: Idle {
                systems: Mutex::new(cost_systems),
                file: system_file,
                options: load,
            },
            folder,
            digits: sets.values.len().saturating_sub(1).to_string().len(),
            _scratch: scratch,
        })
    }

    /// How many runs there are.
    pub fn count(&self) -> usize {
        self.sets.values.len()
    }

    /// Run `index`: its set written into a loaded system, the run, its metrics and cost.
    pub fn run(&self, index: usize) -> RunRow {
        let started = Instant::now();
        let values = &self.sets.values[index];
        let digits = self.digits;
        let output_file = self.folder.join(format!("run_{index:0digits$}.csv"));
        let outcome = self.outcome(values, &output_file, started);
        if self.options.keep_results.is_none() {
            let _ = std::fs::remove_file(&output_file);
        }
        RunRow {
            parameters: values.clone(),
            outcome,
            wall_time: started.elapsed(),
        }
    }

    /// The metrics (and cost) of a run of `values` writing `output_file`, or why it failed.
    fn outcome(
        &self,
        values: &[f64],
        output_file: &Path,
        started: Instant,
    ) -> std::result::Result<Vec<f64>, String> {
        interrupt::check(0.0).map_err(|e| format!("not run: {e}"))?;
        let mut system = self.idle.take()?;
        write_all(&mut system, &self.parameters, values);
        let this_run = RunOptions {
            output_file: Some(output_file.to_path_buf()),
            ..self.run_options.clone()
        };
        let summary = run_loaded(&mut system, &this_run, started).map_err(|e| e.to_string())?;
        self.idle.give(system);
        let trace = summary.trace.unwrap_or_default();
        let mut row: Vec<f64> = self.options.metrics.iter().map(|m| m.of(&trace)).collect();
        if let Some(cost) = &self.cost {
            let mut system = self.idle_for_cost.take()?;
            system
                .set_energy_correction(self.run_options.correction)
                .map_err(|e| e.to_string())?;
            write_all(&mut system, &self.parameters, values);
            let (result, system) = cost.evaluate(system, &self.run_options.log);
            row.extend(result.map_err(|e| format!("[gradient] cost: {e}"))?);
            self.idle_for_cost
                .give(system.expect("a successful evaluation gives it back"));
        }
        Ok(row)
    }

    /// The table of `rows`, one per run in run order.
    pub fn table(&self, rows: Vec<RunRow>) -> SweepTable {
        SweepTable {
            parameters: self.sets.names.clone(),
            metrics: self
                .options
                .metrics
                .iter()
                .map(Metric::name)
                .chain(self.cost.iter().flat_map(CostColumns::names))
                .collect(),
            rows,
        }
    }
}

/// The result columns of `system` (without time), as [`run_loaded`] writes them.
fn result_columns(system: &mut System, correction: Option<bool>) -> Result<Vec<String>> {
    let correct = system.set_energy_correction(correction)?;
    let energy = system
        .energy
        .as_ref()
        .map_or_else(Vec::new, |setup| energy::setup_columns(setup, correct));
    Ok(system
        .recorded_columns
        .iter()
        .map(|column| column.name.clone())
        .chain(energy.into_iter().map(|column| column.name))
        .collect())
}
