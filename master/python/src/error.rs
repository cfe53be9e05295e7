//! `tandem.TandemError`: every failure of the library crates, with the message the command
//! line prints for the same input (after its `error: `), and what a failed call computed
//! before it failed (a run's rows, a sweep's table).

use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

create_exception!(
    tandem,
    TandemError,
    PyRuntimeError,
    "A simulation, run or gradient that failed, with the command line's message for the same \
     input; `result` holds the rows computed before the failure (a structured array), or None."
);

/// The `TandemError` of `error`, its `result` attribute `result` (None when there are no rows).
pub fn tandem_error(
    py: Python<'_>,
    error: &dyn std::error::Error,
    result: Option<Bound<'_, PyAny>>,
) -> PyErr {
    with_result(py, TandemError::new_err(error.to_string()), result)
}

/// `raised` with the attribute `result` set to `result` (None when there is none): what a run
/// had computed when it failed or was stopped (a `KeyboardInterrupt` from Ctrl-C, too).
pub fn with_result(py: Python<'_>, raised: PyErr, result: Option<Bound<'_, PyAny>>) -> PyErr {
    let attached = raised
        .value(py)
        .setattr("result", result.unwrap_or_else(|| py.None().into_bound(py)));
    match attached {
        Ok(()) => raised,
        Err(failure) => failure,
    }
}

/// The `TandemError` of `error`, without rows.
pub fn failed(py: Python<'_>, error: &dyn std::error::Error) -> PyErr {
    tandem_error(py, error, None)
}
