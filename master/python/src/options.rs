//! Python arguments as the library's option values: the spellings FMPy uses (and the command
//! line's), and start values written as the command line's `--start-value name=value` so that
//! the library parses them, and words its errors, the same way.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyTuple};

use fmi_host::float_text::format_float;
use fmi_host::model_description::InterfaceType;
use tandem::cli::run::Switch;
use tandem_cosim::coupling::{InterfaceJacobian, Threads};
use tandem_ode::solver::Method;

/// The interface `fmi_type` names: FMPy's `CoSimulation`, `ModelExchange` (and
/// `ScheduledExecution`), or the command line's `cs`, `me`, `se`.
pub fn interface(fmi_type: Option<&str>) -> PyResult<Option<InterfaceType>> {
    fmi_type
        .map(|name| match name {
            "CoSimulation" | "cs" => Ok(InterfaceType::CoSimulation),
            "ModelExchange" | "me" => Ok(InterfaceType::ModelExchange),
            "ScheduledExecution" | "se" => Ok(InterfaceType::ScheduledExecution),
            _ => Err(PyValueError::new_err(format!(
                "fmi_type {name:?} is none of 'CoSimulation', 'ModelExchange', \
                 'ScheduledExecution' (or 'cs', 'me', 'se')"
            ))),
        })
        .transpose()
}

/// The Model Exchange solver `solver` names (`auto`, the default, `dopri5` or `esdirk`).
pub fn solver(solver: Option<&str>) -> PyResult<Method> {
    match solver {
        None | Some("auto") => Ok(Method::Auto),
        Some("dopri5") => Ok(Method::Dopri5),
        Some("esdirk") => Ok(Method::Esdirk),
        Some(name) => Err(PyValueError::new_err(format!(
            "solver {name:?} is none of 'auto', 'dopri5', 'esdirk'"
        ))),
    }
}

/// The threads of a Jacobi step: a number or `"auto"`, read as the command line's `--threads`.
pub fn threads(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Threads>> {
    threads
        .map(|value| {
            let text = value.str()?.to_string();
            text.parse::<Threads>()
                .map_err(|problem| PyValueError::new_err(format!("threads {text}: {problem}")))
        })
        .transpose()
}

/// The Jacobian of the implicit coupling `implicit` names (`auto`, `directional-derivatives`,
/// `differences`, `broyden`), read as the command line's `--implicit`.
pub fn implicit(implicit: Option<&str>) -> PyResult<Option<InterfaceJacobian>> {
    implicit
        .map(|text| {
            text.parse::<InterfaceJacobian>()
                .map_err(|problem| PyValueError::new_err(format!("implicit {problem}")))
        })
        .transpose()
}

/// The start values of `values` (`name: value`) as `name=value` texts: numbers, Booleans and
/// strings as they are, lists (and NumPy arrays) for arrays, nested by row for matrices.
pub fn start_values(values: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let Some(values) = values else {
        return Ok(Vec::new());
    };
    values
        .iter()
        .map(|(name, value)| {
            let name: String = name.extract()?;
            Ok(format!("{name}={}", text(&value)?))
        })
        .collect()
}

/// `value` as the command line writes it.
fn text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    // NumPy arrays and scalars become lists and Python scalars.
    let value = match value.hasattr("tolist")? {
        true => value.call_method0("tolist")?,
        false => value.clone(),
    };
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(flag.is_true().to_string());
    }
    if let Ok(integer) = value.cast::<PyInt>() {
        return Ok(integer.to_string());
    }
    if let Ok(number) = value.extract::<f64>() {
        return Ok(format_float(number));
    }
    if let Ok(string) = value.extract::<String>() {
        return Ok(string);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value
            .try_iter()?
            .map(|item| text(&item?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(format!("[{}]", items.join(",")));
    }
    Err(PyTypeError::new_err(format!(
        "start value {}: expected a number, a Boolean, a string or a list",
        value.repr()?
    )))
}

/// The texts of `value`, one string or a sequence of them (`grid="a.k=1:2:3"` or
/// `grid=["a.k=1:2:3", "b.m=1:2:3"]`), as a repeatable option of the command line takes them;
/// `keyword` names the argument for the error.
pub fn texts(value: Option<&Bound<'_, PyAny>>, keyword: &str) -> PyResult<Vec<String>> {
    one_or_many(value, keyword, "a string or a sequence of strings", |v| {
        v.extract::<String>()
            .map(|one| vec![one])
            .or_else(|_| v.extract::<Vec<String>>())
    })
}

/// The paths of `value`, one path (a string or `os.PathLike`) or a sequence of them.
pub fn paths(value: Option<&Bound<'_, PyAny>>, keyword: &str) -> PyResult<Vec<PathBuf>> {
    one_or_many(value, keyword, "a path or a sequence of paths", |v| {
        v.extract::<PathBuf>()
            .map(|one| vec![one])
            .or_else(|_| v.extract::<Vec<PathBuf>>())
    })
}

/// What `extract` reads of `value` (nothing when it is None), or a TypeError saying that
/// `keyword` must be `expected`.
fn one_or_many<T>(
    value: Option<&Bound<'_, PyAny>>,
    keyword: &str,
    expected: &str,
    extract: impl Fn(&Bound<'_, PyAny>) -> PyResult<Vec<T>>,
) -> PyResult<Vec<T>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    extract(value).map_err(|_| {
        let type_name = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |name| name.to_string());
        PyTypeError::new_err(format!("{keyword} must be {expected}, not {type_name}"))
    })
}

/// The weights of measured columns (`component.output: weight`) as the command line's
/// `--weights component.output=weight` texts, which the library parses.
pub fn weights(weights: Option<BTreeMap<String, f64>>) -> Vec<String> {
    weights
        .unwrap_or_default()
        .into_iter()
        .map(|(name, weight)| format!("{name}={}", format_float(weight)))
        .collect()
}

/// `--energy-correction on` or `off`, or neither.
pub fn switch(on: Option<bool>) -> Option<Switch> {
    on.map(|on| if on { Switch::On } else { Switch::Off })
}
