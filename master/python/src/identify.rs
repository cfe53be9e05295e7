//! `tandem.identify`: bounded parameters fitted to measurements as `tandem identify` fits them
//! (the same arguments, built from the keywords, the same setup and optimizer), the fit
//! returned as a dict, with a callback told of every L-BFGS iteration.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::columns::Columns;
use crate::error::{failed, with_result};
use crate::gradient::method_text;
use crate::options;
use crate::watch::watched;
use fmi_host::instance::logging::LogLevel;
use tandem::cli::gradient::ProblemArgs;
use tandem::cli::identify::{draw, fit, responses, setup, IdentifyArgs, Plan};
use tandem::cluster::Cluster;
use tandem::identify::{Fit, Iteration};
use tandem::output::fit::write_parameters;

/// Fits `parameters` (`component.parameter=lower:upper`, either bound optional; default the
/// `[identify]` section's) of the system `system_file` to measurements by L-BFGS and returns
/// the fit; writes the fitted parameters to `output` and the plot to `plot` when given.
#[pyfunction]
#[pyo3(signature = (
    system_file,
    parameters=None,
    data=None,
    weights=None,
    max_iterations=None,
    gradient_tolerance=None,
    stop_time=None,
    fmu_dir=None,
    threads=None,
    energy_correction=None,
    checkpoint_interval=None,
    output=None,
    plot=None,
    progress=None,
))]
#[allow(clippy::too_many_arguments)] // `tandem identify`'s options, each optional.
pub fn identify<'py>(
    py: Python<'py>,
    system_file: PathBuf,
    parameters: Option<&Bound<'py, PyAny>>,
    data: Option<PathBuf>,
    weights: Option<BTreeMap<String, f64>>,
    max_iterations: Option<u64>,
    gradient_tolerance: Option<f64>,
    stop_time: Option<f64>,
    fmu_dir: Option<PathBuf>,
    threads: Option<&Bound<'py, PyAny>>,
    energy_correction: Option<bool>,
    checkpoint_interval: Option<usize>,
    output: Option<PathBuf>,
    plot: Option<PathBuf>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let args = IdentifyArgs {
        problem: ProblemArgs {
            system: system_file,
            data,
            weights: options::weights(weights),
            checkpoint_interval,
            stop_time,
            fmu_dir,
            log_level: LogLevel::default(),
            energy_correction: options::switch(energy_correction),
            threads: options::threads(threads)?,
        },
        parameters: options::texts(parameters, "parameters")?,
        max_iterations,
        gradient_tolerance,
        output: output.clone(),
        plot: plot.clone(),
    };
    // The iterations the optimizer reported and the callback has not been told of yet.
    let pending: Arc<Mutex<Vec<Iteration>>> = Arc::default();
    let report = {
        let pending = pending.clone();
        Box::new(move |iteration: &Iteration| {
            pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(*iteration)
        })
    };
    let tell = |_: Python<'_>| -> PyResult<()> {
        let iterations =
            std::mem::take(&mut *pending.lock().unwrap_or_else(PoisonError::into_inner));
        match &progress {
            Some(callback) => iterations.iter().try_for_each(|i| {
                callback
                    .call1((i.number, i.cost, i.gradient_norm))
                    .map(drop)
            }),
            None => Ok(()),
        }
    };
    let watched = watched(
        py,
        || {
            let cluster = Cluster::Alone;
            let (
                mut problem,
                Plan {
                    bounds, settings, ..
                },
            ) = setup(&args, &cluster)?;
            let fitted = fit(&mut problem, &bounds, &settings, report)?;
            let mut written = output.as_ref().map(|path| write_parameters(path, &fitted));
            let complete = fitted.interrupted.is_none() && !matches!(written, Some(Err(_)));
            if let (Some(path), true) = (&plot, complete) {
                let drawn = responses(&mut problem, &fitted)
                    .and_then(|(end, start)| draw(path, &end, &start).map(drop));
                written = Some(drawn);
            }
            Ok::<_, tandem::Error>((fitted, written))
        },
        tell,
    )?;
    let (fitted, written) = match (watched.value, watched.raised) {
        (Ok(done), None) => done,
        (Ok((fitted, _)), Some(raised)) => {
            return Err(with_result(
                py,
                raised,
                Some(fit_dict(py, &fitted)?.into_any()),
            ))
        }
        // Stopped before the first evaluation ended: there is no point to return.
        (Err(_), Some(raised)) => return Err(raised),
        (Err(error), None) => return Err(failed(py, &error)),
    };
    let result = fit_dict(py, &fitted)?;
    match written {
        Some(Err(error)) => Err(with_result(py, failed(py, &error), Some(result.into_any()))),
        _ => Ok(result),
    }
}

/// The fit as a dict: by parameter name `start`, `fitted`, `lower`, `upper` (None where
/// unbounded) and `methods`; `start_cost`, `cost`, `evaluations`, `stopped` (why the optimizer
/// stopped) and `iterations` (columns `iteration`, `cost`, `gradient_norm`).
fn fit_dict<'py>(py: Python<'py>, fit: &Fit) -> PyResult<Bound<'py, PyDict>> {
    let by_name = |value: &dyn Fn(usize) -> PyResult<Bound<'py, PyAny>>| {
        let dict = PyDict::new(py);
        for (i, bounded) in fit.bounds.iter().enumerate() {
            dict.set_item(&bounded.name, value(i)?)?;
        }
        Ok::<_, PyErr>(dict)
    };
    let number = |x: Option<f64>| -> PyResult<Bound<'py, PyAny>> { Ok(x.into_pyobject(py)?) };
    let result = PyDict::new(py);
    result.set_item("start", by_name(&|i| number(Some(fit.start[i])))?)?;
    result.set_item("fitted", by_name(&|i| number(Some(fit.fitted[i])))?)?;
    result.set_item("lower", by_name(&|i| number(fit.bounds[i].lower))?)?;
    result.set_item("upper", by_name(&|i| number(fit.bounds[i].upper))?)?;
    result.set_item(
        "methods",
        by_name(&|i| Ok(method_text(&fit.methods[i]).into_pyobject(py)?.into_any()))?,
    )?;
    result.set_item("start_cost", fit.start_cost)?;
    result.set_item("cost", fit.cost)?;
    result.set_item("evaluations", fit.evaluations)?;
    result.set_item("stopped", &fit.stopped)?;
    let iterations = Columns::new(py)?;
    iterations.integers(
        "iteration",
        fit.iterations.iter().map(|i| i.number as i64).collect(),
    )?;
    iterations.floats("cost", fit.iterations.iter().map(|i| i.cost).collect())?;
    iterations.floats(
        "gradient_norm",
        fit.iterations.iter().map(|i| i.gradient_norm).collect(),
    )?;
    result.set_item("iterations", iterations.into_dict())?;
    Ok(result)
}
