//! Rows as NumPy structured arrays, the form FMPy returns and takes: a `time` field and one
//! float64 field per column. Results are laid out row by row into one buffer that NumPy
//! adopts without copying; an input array is read field by field into the table the
//! simulation's inputs are made of.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList};

use tandem_cosim::time_table::TimeTable;
use tandem_simulate::simulate::Trace;

/// The rows of `trace` as a structured array: `time`, then a field per traced column, named
/// as the result file's header names it.
pub fn structured_array<'py>(py: Python<'py>, trace: &Trace) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let names = PyList::new(
        py,
        std::iter::once("time").chain(trace.names.iter().map(String::as_str)),
    )?;
    let formats = PyList::new(py, vec!["f8"; names.len()])?;
    let fields = PyDict::new(py);
    fields.set_item("names", names)?;
    fields.set_item("formats", formats)?;
    let dtype = numpy.call_method1("dtype", (fields,))?;
    let width = trace.columns.len() + 1;
    let bytes = PyByteArray::new_with(py, trace.time.len() * width * 8, |buffer| {
        let rows = trace.time.iter().enumerate().map(|(row, &time)| {
            std::iter::once(time).chain(trace.columns.iter().map(move |column| column[row]))
        });
        for (slot, value) in buffer.chunks_exact_mut(8).zip(rows.flatten()) {
            slot.copy_from_slice(&value.to_ne_bytes());
        }
        Ok(())
    })?;
    numpy.call_method1("frombuffer", (bytes, dtype))
}

/// The signals of the structured array `input` (a `time` field and one field per input
/// variable, as FMPy's `input`), as a table that messages call `input`.
pub fn time_table(input: &Bound<'_, PyAny>) -> PyResult<TimeTable> {
    let not_structured = || {
        PyTypeError::new_err(
            "input must be a NumPy structured array with a 'time' field and one field per input",
        )
    };
    let names: Vec<String> = input
        .getattr("dtype")
        .and_then(|dtype| dtype.getattr("names"))
        .map_err(|_| not_structured())?
        .extract::<Option<Vec<String>>>()?
        .ok_or_else(not_structured)?;
    if !names.iter().any(|name| name == "time") {
        return Err(not_structured());
    }
    let field = |name: &str| -> PyResult<Vec<f64>> {
        input
            .get_item(name)?
            .call_method1("astype", ("float64",))?
            .call_method0("tolist")?
            .extract()
    };
    let times = field("time")?;
    let inputs: Vec<String> = names.into_iter().filter(|name| name != "time").collect();
    let columns = inputs
        .iter()
        .map(|name| field(name))
        .collect::<PyResult<Vec<_>>>()?;
    TimeTable::new("input", inputs, times, columns)
        .map_err(|e| crate::error::failed(input.py(), &e))
}
