//! `tandem sweep`: a system run once per parameter set (a grid, Monte Carlo samples or a CSV of
//! sets), each run exactly a `tandem run` of that set (the same [`run_loaded`]), on a pool of
//! threads with each run single-threaded. The result is a table with a row per run, in run
//! order whatever the number of threads; a failing run is recorded with its message and the
//! others go on.

pub mod cost;
pub mod grid;
pub mod metrics;
pub mod parquet_table;
pub mod progress;
pub mod sampling;
pub mod sets_file;
pub mod table;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::coupling::Threads;
use crate::energy;
use crate::error::{Error, Result};
use crate::gradient::parameters::{resolve_all, write_all};
use crate::interrupt;
use crate::run::{run_loaded, RunOptions};
use crate::system::{LoadOptions, System};
use cost::CostColumns;
use metrics::Metric;
use progress::SweepProgress;
use table::{RunRow, SweepTable};

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

/// Runs `system_file` once per set of `sets`. Errors before any run (the system, a parameter
/// or a metric is wrong) end the sweep; a run's failure is its row's.
pub fn sweep(system_file: &Path, sets: &Sets, options: &SweepOptions) -> Result<SweepTable> {
    let run_options = RunOptions {
        // Parallel over runs, so each run steps its components on its own thread.
        threads: Some(Threads::Count(NonZeroUsize::MIN)),
        progress: false,
        keep_trace: !options.metrics.is_empty(),
        plots: Vec::new(),
        ..options.run.clone()
    };
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
        None => Some(tempfile::tempdir().map_err(|e| Error::io(Path::new("temporary folder"), e))?),
    };
    let folder = options
        .keep_results
        .as_deref()
        .or(scratch.as_ref().map(tempfile::TempDir::path))
        .expect("one of the two")
        .to_path_buf();
    let digits = sets.values.len().saturating_sub(1).to_string().len();
    let idle = Idle {
        systems: Mutex::new(vec![first]),
        file: system_file,
        options: load,
    };
    let idle_for_cost = Idle {
        systems: Mutex::new(cost_systems),
        file: system_file,
        options: load,
    };
    let bar = SweepProgress::new(sets.values.len(), options.progress);
    let one_run = |index: usize, values: &Vec<f64>| -> RunRow {
        let started = Instant::now();
        let output_file = folder.join(format!("run_{index:0digits$}.csv"));
        let outcome = (|| {
            interrupt::check(0.0).map_err(|e| format!("not run: {e}"))?;
            let mut system = idle.take()?;
            write_all(&mut system, &parameters, values);
            let this_run = RunOptions {
                output_file: Some(output_file.clone()),
                ..run_options.clone()
            };
            let summary = run_loaded(&mut system, &this_run, started).map_err(|e| e.to_string())?;
            idle.give(system);
            let trace = summary.trace.unwrap_or_default();
            let mut row: Vec<f64> = options.metrics.iter().map(|m| m.of(&trace)).collect();
            if let Some(cost) = &cost {
                let mut system = idle_for_cost.take()?;
                system
                    .set_energy_correction(run_options.correction)
                    .map_err(|e| e.to_string())?;
                write_all(&mut system, &parameters, values);
                let (result, system) = cost.evaluate(system, &run_options.log);
                row.extend(result.map_err(|e| format!("[gradient] cost: {e}"))?);
                idle_for_cost.give(system.expect("a successful evaluation gives it back"));
            }
            Ok(row)
        })();
        if options.keep_results.is_none() {
            let _ = std::fs::remove_file(&output_file);
        }
        bar.finished(outcome.is_ok());
        RunRow {
            parameters: values.clone(),
            outcome,
            wall_time: started.elapsed(),
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.map_or(0, NonZeroUsize::get))
        .build()
        .map_err(|e| Error::InvalidValue {
            item: "--threads".into(),
            message: format!("cannot start the threads: {e}"),
        })?;
    let rows = pool.install(|| {
        sets.values
            .par_iter()
            .enumerate()
            .map(|(index, values)| one_run(index, values))
            .collect()
    });
    bar.finish();
    Ok(SweepTable {
        parameters: sets.names.clone(),
        metrics: options
            .metrics
            .iter()
            .map(Metric::name)
            .chain(cost.iter().flat_map(CostColumns::names))
            .collect(),
        rows,
    })
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
