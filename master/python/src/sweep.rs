//! `tandem.sweep`: a system run once per parameter set as `tandem sweep` runs it (the same
//! arguments, built from the keywords, and the same library call), its table returned as a
//! dict of columns, with a callback told of the runs done.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::columns::Columns;
use crate::error::{failed, with_result};
use crate::options;
use crate::watch::watched;
use fmi_host::instance::logging::LogLevel;
use tandem::cli::run::SystemOverrides;
use tandem::cli::sweep::{plan, table_files, write, SweepArgs};
use tandem::sweep::progress::{RunsDone, RunsListener};
use tandem::sweep::sweep;
use tandem::sweep::table::{RunRow, SweepTable};

/// Runs the system `system_file` once per parameter set, given one way: `grid` (a full
/// factorial), `sample` with `samples` (Monte Carlo), or `sets` (a CSV file); returns the
/// table, a dict of columns as `tandem sweep`'s table has them.
#[pyfunction]
#[pyo3(name = "sweep", signature = (
    system_file,
    grid=None,
    sample=None,
    samples=None,
    latin_hypercube=false,
    seed=0,
    sets=None,
    metric=None,
    cost=false,
    gradient=false,
    output=None,
    plot=None,
    keep_results=None,
    threads=None,
    stop_time=None,
    step_size=None,
    fmu_dir=None,
    energy_correction=None,
    implicit=None,
    adaptive=None,
    progress=None,
))]
#[allow(clippy::too_many_arguments)] // `tandem sweep`'s options, each optional.
pub fn sweep_system<'py>(
    py: Python<'py>,
    system_file: PathBuf,
    grid: Option<&Bound<'py, PyAny>>,
    sample: Option<&Bound<'py, PyAny>>,
    samples: Option<usize>,
    latin_hypercube: bool,
    seed: u64,
    sets: Option<PathBuf>,
    metric: Option<&Bound<'py, PyAny>>,
    cost: bool,
    gradient: bool,
    output: Option<&Bound<'py, PyAny>>,
    plot: Option<PathBuf>,
    keep_results: Option<PathBuf>,
    threads: Option<NonZeroUsize>,
    stop_time: Option<f64>,
    step_size: Option<f64>,
    fmu_dir: Option<PathBuf>,
    energy_correction: Option<bool>,
    implicit: Option<&str>,
    adaptive: Option<f64>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let args = SweepArgs {
        system: system_file,
        grid: options::texts(grid, "grid")?,
        sample: options::texts(sample, "sample")?,
        samples,
        latin_hypercube,
        seed,
        sets,
        metric: options::texts(metric, "metric")?,
        cost,
        gradient,
        output: options::paths(output, "output")?,
        plot,
        keep_results,
        threads,
        overrides: SystemOverrides {
            stop_time,
            step_size,
            fmu_dir,
            log_level: LogLevel::default(),
            energy_correction: options::switch(energy_correction),
            implicit: options::implicit(implicit)?,
            adaptive,
        },
    };
    let latest: Arc<Mutex<Option<RunsDone>>> = Arc::default();
    let listener: RunsListener = {
        let latest = latest.clone();
        Arc::new(move |done| *latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(done))
    };
    let mut told = None;
    let tell = |_: Python<'_>| -> PyResult<()> {
        let now = *latest.lock().unwrap_or_else(PoisonError::into_inner);
        match (&progress, now) {
            (Some(callback), Some(done)) if told != now => {
                told = now;
                callback.call1((done.done, done.total, done.failed))?;
                Ok(())
            }
            _ => Ok(()),
        }
    };
    let watched = watched(
        py,
        || {
            let (sets, options) = plan(&args)?;
            let tables = table_files(args.output.clone(), true)?;
            let options = tandem::sweep::SweepOptions {
                listener: Some(listener),
                ..options
            };
            let table = sweep(&args.system, &sets, &options)?;
            let written = write(&args, &table, &tables).err();
            Ok::<_, tandem::Error>((table, written))
        },
        tell,
    )?;
    let ((table, written), raised) = match (watched.value, watched.raised) {
        (Ok(done), raised) => (done, raised),
        // Stopped before the runs: the exception tells why.
        (Err(_), Some(raised)) => return Err(raised),
        (Err(error), None) => return Err(failed(py, &error)),
    };
    let columns = table_columns(py, &table)?.into_any();
    match (raised, written) {
        (Some(raised), _) => Err(with_result(py, raised, Some(columns))),
        (None, Some(error)) => Err(with_result(py, failed(py, &error), Some(columns))),
        (None, None) => Ok(columns.cast_into()?),
    }
}

/// The columns of `table` as its CSV has them: `run`, the parameters, `status` (`ok` or
/// `failed`), `message` (a failed run's error), `wall_time` (s) and the metrics (NaN for a
/// failed run).
fn table_columns<'py>(py: Python<'py>, table: &SweepTable) -> PyResult<Bound<'py, PyDict>> {
    let columns = Columns::new(py)?;
    columns.integers("run", (0..table.rows.len() as i64).collect())?;
    for (k, name) in table.parameters.iter().enumerate() {
        columns.floats(name, table.rows.iter().map(|r| r.parameters[k]).collect())?;
    }
    let texts =
        |text: fn(&RunRow) -> &str| table.rows.iter().map(|r| text(r).to_string()).collect();
    columns.texts("status", texts(RunRow::status))?;
    columns.texts("message", texts(RunRow::message))?;
    columns.floats(
        "wall_time",
        table
            .rows
            .iter()
            .map(|r| r.wall_time.as_secs_f64())
            .collect(),
    )?;
    for (k, name) in table.metrics.iter().enumerate() {
        let metric = |row: &RunRow| row.outcome.as_ref().map_or(f64::NAN, |metrics| metrics[k]);
        columns.floats(name, table.rows.iter().map(metric).collect())?;
    }
    Ok(columns.into_dict())
}
