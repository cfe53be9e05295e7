//! `tandem.run`: a system of FMUs run as `tandem run` runs it (the same system file, overrides
//! and library call), its rows returned as a structured array with a summary of the work
//! instead of a result file and a summary line; a run that fails or is stopped by Ctrl-C
//! raises with its rows so far.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::arrays::structured_array;
use crate::error::{tandem_error, with_result};
use crate::options;
use crate::watch::{signals_only, watched};
use tandem_cosim::energy::EnergyReport;
use tandem_simulate::progress::NoProgress;
use tandem_simulate::run::{run_keeping_rows, RunOptions, RunSummary};

/// Runs the system `system_file` (TOML, `.ssp` or `.ssd`) and returns its rows (a structured
/// array: `time`, then the recorded variables and the energy columns, named as `tandem run`'s
/// result file names them) and a summary of the run.
#[pyfunction]
#[pyo3(signature = (
    system_file,
    stop_time=None,
    step_size=None,
    fmu_dir=None,
    threads=None,
    energy_correction=None,
    implicit=None,
    adaptive=None,
    output_interval=None,
))]
#[allow(clippy::too_many_arguments)] // `tandem run`'s options, each optional.
pub fn run<'py>(
    py: Python<'py>,
    system_file: PathBuf,
    stop_time: Option<f64>,
    step_size: Option<f64>,
    fmu_dir: Option<PathBuf>,
    threads: Option<&Bound<'py, PyAny>>,
    energy_correction: Option<bool>,
    implicit: Option<&str>,
    adaptive: Option<f64>,
    output_interval: Option<f64>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let options = RunOptions {
        stop_time,
        step_size,
        fmu_dir,
        threads: options::threads(threads)?,
        correction: energy_correction,
        implicit: options::implicit(implicit)?,
        adaptive,
        output_interval,
        keep_trace: true,
        without_result_file: true,
        sections: tandem_gradient::setup::COMMAND_SECTIONS,
        ..RunOptions::default()
    };
    let mut rows = None;
    let watched = watched(
        py,
        || run_keeping_rows(&system_file, &options, &mut NoProgress, &mut rows),
        signals_only,
    )?;
    let rows = rows.map(|trace| structured_array(py, &trace)).transpose()?;
    let summary = match (watched.raised, watched.value) {
        (Some(raised), _) => return Err(with_result(py, raised, rows)),
        (None, Err(error)) => return Err(tandem_error(py, &error, rows)),
        (None, Ok(summary)) => summary,
    };
    let rows = rows.unwrap_or_else(|| py.None().into_bound(py));
    Ok((rows, summary_dict(py, &summary)?))
}

/// What the run did, as the summary lines of `tandem run` tell it.
fn summary_dict<'py>(py: Python<'py>, summary: &RunSummary) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("system", &summary.system)?;
    dict.set_item("schedule", summary.schedule.to_string())?;
    dict.set_item("extrapolation", summary.extrapolation.to_string())?;
    dict.set_item("final_time", summary.final_time)?;
    dict.set_item("macro_steps", summary.macro_steps)?;
    dict.set_item("fmu_calls", summary.fmu_calls)?;
    dict.set_item("rows", summary.rows)?;
    dict.set_item("wall_time", summary.wall_time.as_secs_f64())?;
    dict.set_item("terminated_by", summary.terminated_by.clone())?;
    let lines = |items: Vec<String>| PyList::new(py, items);
    dict.set_item(
        "integrations",
        lines(summary.integrations.iter().map(|i| i.to_string()).collect())?,
    )?;
    dict.set_item(
        "activations",
        lines(summary.activations.iter().map(|a| a.to_string()).collect())?,
    )?;
    dict.set_item(
        "algebraic_loops",
        summary.loops.as_ref().map(|loops| loops.to_string()),
    )?;
    dict.set_item(
        "implicit",
        summary.implicit.as_ref().map(|report| report.to_string()),
    )?;
    dict.set_item(
        "adaptive_steps",
        summary.steps.as_ref().map(|report| report.to_string()),
    )?;
    let energy = summary
        .energy
        .as_ref()
        .map(|report| energy_dict(py, report))
        .transpose()?;
    dict.set_item("energy", energy)?;
    Ok(dict)
}

/// The energy monitor's report: the total energy at the start and the end (when components
/// report one), each bond's residual energy and factor, the warnings, and the report as
/// `tandem run` prints it.
fn energy_dict<'py>(py: Python<'py>, report: &EnergyReport) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("initial_energy", report.energy.map(|(initial, _)| initial))?;
    dict.set_item("final_energy", report.energy.map(|(_, last)| last))?;
    dict.set_item("corrected", report.corrected)?;
    let bonds = report
        .bonds
        .iter()
        .map(|bond| {
            let entry = PyDict::new(py);
            entry.set_item("name", &bond.name)?;
            entry.set_item("mu", bond.mu.as_ref().ok())?;
            entry.set_item("mu_problem", bond.mu.as_ref().err())?;
            entry.set_item("rule", &bond.rule)?;
            entry.set_item("residual_energy", bond.residual_energy)?;
            Ok(entry)
        })
        .collect::<PyResult<Vec<_>>>()?;
    dict.set_item("bonds", bonds)?;
    let warnings: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
    dict.set_item("warnings", warnings)?;
    dict.set_item("report", report.to_string())?;
    Ok(dict)
}
