//! Tables as dicts of NumPy arrays, a column per key in the table's order: the form
//! `pandas.DataFrame` takes as it is, for tables whose columns are not all numbers (a sweep's
//! status and message) or not all floats (an iteration's number).

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A table being built.
pub struct Columns<'py> {
    numpy: Bound<'py, PyModule>,
    dict: Bound<'py, PyDict>,
}

impl<'py> Columns<'py> {
    /// An empty table.
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        Ok(Columns {
            numpy: py.import("numpy")?,
            dict: PyDict::new(py),
        })
    }

    /// Adds the column `name` of float64 values.
    pub fn floats(&self, name: &str, values: Vec<f64>) -> PyResult<()> {
        self.add(name, values, "float64")
    }

    /// Adds the column `name` of int64 values.
    pub fn integers(&self, name: &str, values: Vec<i64>) -> PyResult<()> {
        self.add(name, values, "int64")
    }

    /// Adds the column `name` of strings (NumPy's fixed-width unicode, as `numpy.array` makes
    /// of a list of strings; a column of none is of width one).
    pub fn texts(&self, name: &str, values: Vec<String>) -> PyResult<()> {
        self.add(name, values, "str")
    }

    /// The table.
    pub fn into_dict(self) -> Bound<'py, PyDict> {
        self.dict
    }

    fn add<V: IntoPyObject<'py>>(&self, name: &str, values: V, dtype: &str) -> PyResult<()> {
        let array = self.numpy.call_method1("array", (values, dtype))?;
        self.dict.set_item(name, array)
    }
}
