//! `tandem.gradient`: the gradient of a cost through a system's co-simulation, set up as
//! `tandem gradient` sets it up (the `[gradient]` section's defaults, the caller's values
//! instead where given) and computed by the same library call, returned as dictionaries by
//! parameter name.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use crate::error::{failed, with_result};
use crate::options;
use crate::watch::{signals_only, watched};
use fmi_host::instance::LogSettings;
use tandem_cosim::system::LoadOptions;
use tandem_cosim::Error;
use tandem_gradient::setup::COMMAND_SECTIONS;
use tandem_gradient::{experiments, GradientSection, Method, Overrides, Setup};

/// The gradient of the cost with respect to `parameters` (`component.parameter`; default the
/// `[gradient]` section's) at their values in the system file: a dict with `cost`,
/// `gradient` and `methods` (by parameter name) and `values` (the parameters' values).
#[pyfunction]
#[pyo3(signature = (
    system_file,
    parameters=None,
    cost=None,
    data=None,
    weights=None,
    stop_time=None,
    fmu_dir=None,
    threads=None,
    energy_correction=None,
    checkpoint_interval=None,
))]
#[allow(clippy::too_many_arguments)] // `tandem gradient`'s options, each optional.
pub fn gradient<'py>(
    py: Python<'py>,
    system_file: PathBuf,
    parameters: Option<Vec<String>>,
    cost: Option<String>,
    data: Option<PathBuf>,
    weights: Option<BTreeMap<String, f64>>,
    stop_time: Option<f64>,
    fmu_dir: Option<PathBuf>,
    threads: Option<&Bound<'py, PyAny>>,
    energy_correction: Option<bool>,
    checkpoint_interval: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = options::threads(threads)?;
    let computed = watched(
        py,
        || {
            let overrides = Overrides {
                system: &system_file,
                data,
                weights: weights.unwrap_or_default().into_iter().collect(),
                checkpoint_interval,
                load: LoadOptions {
                    stop_time,
                    step_size: None,
                    fmu_dir: fmu_dir.as_deref(),
                    threads,
                    implicit: None,
                    adaptive: None,
                    sections: COMMAND_SECTIONS,
                },
                correction: energy_correction,
                log: LogSettings::default(),
            };
            let (parameters, option, defaults) =
                GradientSection::of(&system_file)?.choose(parameters.unwrap_or_default());
            if !experiments::read(&system_file)?.is_empty() {
                return Err(Error::input_file(
                    system_file.clone(),
                    "has [[experiments]]: tandem.gradient evaluates one experiment; `tandem \
                 gradient` sums them",
                ));
            }
            let setup = Setup::new(&overrides, &defaults, &parameters, cost.as_deref(), option);
            let mut problem = setup.problem()?;
            let values = problem.start_values();
            let evaluation = problem.gradient(&values)?;
            let names: Vec<String> = problem
                .parameters()
                .iter()
                .map(|p| p.name.clone())
                .collect();
            Ok((names, values, evaluation))
        },
        signals_only,
    )?;
    if let Some(raised) = computed.raised {
        return Err(with_result(py, raised, None));
    }
    let (names, values, evaluation) = computed.value.map_err(|e| failed(py, &e))?;
    let by_name = |entries: Vec<Bound<'py, PyAny>>| -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, entry) in names.iter().zip(entries) {
            dict.set_item(name, entry)?;
        }
        Ok(dict)
    };
    let floats = |numbers: &[f64]| -> Vec<Bound<'py, PyAny>> {
        numbers
            .iter()
            .map(|&x| PyFloat::new(py, x).into_any())
            .collect()
    };
    let methods = evaluation
        .methods
        .iter()
        .map(|method| PyString::new(py, &method_text(method)).into_any())
        .collect();
    let result = PyDict::new(py);
    result.set_item("cost", evaluation.cost)?;
    result.set_item("gradient", by_name(floats(&evaluation.gradient))?)?;
    result.set_item("methods", by_name(methods)?)?;
    result.set_item("values", by_name(floats(&values))?)?;
    Ok(result)
}

/// `adjoint`, or `finite differences: <why not the adjoint>`.
pub fn method_text(method: &Method) -> String {
    match method {
        Method::FiniteDifferences { reason } => format!("{}: {reason}", method.label()),
        method => method.label().to_string(),
    }
}
