//! `tandem.simulate`: one FMU simulated as `tandem simulate` does it (the same defaults and
//! checks, through the same library call), its recorded rows returned as a structured array
//! instead of a result file, also with the error of a run that fails or the
//! `KeyboardInterrupt` of one stopped by Ctrl-C.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{structured_array, time_table};
use crate::error::{tandem_error, with_result};
use crate::options;
use crate::watch::{signals_only, watched};
use fmi_host::import::Fmu;
use tandem_simulate::progress::NoProgress;
use tandem_simulate::simulate::{
    simulate_watched, InputSignals, Simulated, SimulationOptions, TraceRequest,
};

/// Simulates the FMU `filename` and returns its recorded rows: a structured array with a
/// `time` field and one field per recorded variable (array elements as `y[1]`, ...), named
/// as `tandem simulate`'s result file names its columns and typed as FMPy types them.
#[pyfunction]
#[pyo3(signature = (
    filename,
    start_time=None,
    stop_time=None,
    step_size=None,
    output_interval=None,
    fmi_type=None,
    solver=None,
    relative_tolerance=None,
    start_values=None,
    output=None,
    input=None,
    record_events=true,
))]
#[allow(clippy::too_many_arguments)] // FMPy's keyword arguments, each optional.
pub fn simulate<'py>(
    py: Python<'py>,
    filename: PathBuf,
    start_time: Option<f64>,
    stop_time: Option<f64>,
    step_size: Option<f64>,
    output_interval: Option<f64>,
    fmi_type: Option<&str>,
    solver: Option<&str>,
    relative_tolerance: Option<f64>,
    start_values: Option<&Bound<'py, PyDict>>,
    output: Option<Vec<String>>,
    input: Option<&Bound<'py, PyAny>>,
    record_events: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let options = SimulationOptions {
        interface: options::interface(fmi_type)?,
        start_time,
        stop_time,
        step_size,
        output_interval,
        relative_tolerance,
        start_values: options::start_values(start_values)?,
        inputs: input
            .map(|array| time_table(array).map(InputSignals::Table))
            .transpose()?,
        output_variables: output,
        record_events,
        solver: options::solver(solver)?,
        trace: Some(TraceRequest::default()),
        ..SimulationOptions::default()
    };
    let watched = watched(
        py,
        || {
            let fmu = Fmu::open(&filename)?;
            fmu.check_valid()?;
            Ok::<_, tandem_cosim::Error>(simulate_watched(&fmu, &options, &mut NoProgress))
        },
        signals_only,
    )?;
    let Simulated { outcome, trace } = match watched.value {
        Ok(simulated) => simulated,
        Err(error) => return Err(tandem_error(py, &error, None)),
    };
    let rows = trace
        .map(|trace| structured_array(py, &trace))
        .transpose()?;
    match (watched.raised, outcome) {
        (Some(raised), _) => Err(with_result(py, raised, rows)),
        (None, Ok(_)) => Ok(rows.unwrap_or_else(|| py.None().into_bound(py))),
        (None, Err(error)) => Err(tandem_error(py, &error, rows)),
    }
}
