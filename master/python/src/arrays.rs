//! Rows as NumPy structured arrays, the form FMPy returns and takes: a `time` field and one
//! field per column, of the NumPy type FMPy gives the variable's type (float64 for Real and
//! Float64, int32 for Integer, bool for Boolean, ...). Results are laid out row by row into
//! one buffer that NumPy adopts without copying; an input array is read field by field into
//! the table the simulation's inputs are made of.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList};

use fmi_host::model_description::VariableType;
use tandem_cosim::time_table::TimeTable;
use tandem_simulate::simulate::Trace;

/// The rows of `trace` as a structured array: `time`, then a field per traced column, named
/// as the result file's header names it and typed as FMPy types its variable.
pub fn structured_array<'py>(py: Python<'py>, trace: &Trace) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let names = PyList::new(
        py,
        std::iter::once("time").chain(trace.names.iter().map(String::as_str)),
    )?;
    let fields = std::iter::once(Field::of(VariableType::Float64))
        .chain(trace.types.iter().map(|&ty| Field::of(ty)))
        .collect::<Vec<_>>();
    let formats = PyList::new(py, fields.iter().map(|field| field.format))?;
    let dtype_fields = PyDict::new(py);
    dtype_fields.set_item("names", names)?;
    dtype_fields.set_item("formats", formats)?;
    let dtype = numpy.call_method1("dtype", (dtype_fields,))?;
    let width: usize = fields.iter().map(|field| field.size).sum();
    let bytes = PyByteArray::new_with(py, trace.time.len() * width, |buffer| {
        for (row, record) in buffer.chunks_exact_mut(width).enumerate() {
            let values = std::iter::once(trace.time[row])
                .chain(trace.columns.iter().map(|column| column[row]));
            let mut offset = 0;
            for (field, value) in fields.iter().zip(values) {
                (field.write)(value, &mut record[offset..offset + field.size]);
                offset += field.size;
            }
        }
        Ok(())
    })?;
    numpy.call_method1("frombuffer", (bytes, dtype))
}

/// A field of a result: its NumPy format, its size in bytes, and how a value (held as f64 in
/// the trace) is written into it.
struct Field {
    format: &'static str,
    size: usize,
    write: fn(f64, &mut [u8]),
}

impl Field {
    /// The field FMPy's `simulate_fmu` makes for values of type `ty` (an enumeration's already
    /// resolved to its integer type by the trace).
    fn of(ty: VariableType) -> Field {
        macro_rules! field {
            ($format:literal, $t:ty) => {
                Field {
                    format: $format,
                    size: std::mem::size_of::<$t>(),
                    // Values of an integer type are whole numbers within its range, so the
                    // cast is exact.
                    write: |value, slot| slot.copy_from_slice(&(value as $t).to_ne_bytes()),
                }
            };
        }
        use VariableType::*;
        match ty {
            Float32 => field!("f4", f32),
            Int8 => field!("i1", i8),
            UInt8 => field!("u1", u8),
            Int16 => field!("i2", i16),
            UInt16 => field!("u2", u16),
            Int32 => field!("i4", i32),
            UInt32 => field!("u4", u32),
            Int64 | Enumeration => field!("i8", i64),
            UInt64 => field!("u8", u64),
            Boolean => Field {
                format: "?",
                size: 1,
                write: |value, slot| slot[0] = u8::from(value != 0.0),
            },
            // Strings, binaries and clocks are not traced.
            Float64 | String | Binary | Clock => field!("f8", f64),
        }
    }
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
