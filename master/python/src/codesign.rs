//! `tandem.codesign`: control co-design of one plant FMU as `tandem codesign` does it (the same
//! problem file, plant and library calls): the baseline design's LQR cost, gain and
//! closed-loop eigenvalues, df/dd by the coupled adjoint, optionally checked against central
//! differences and optimized, returned as a dict instead of printed and written.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyDict};

use crate::columns::Columns;
use crate::error::{failed, with_result};
use crate::watch::{signals_only, watched};
use tandem::cli::codesign::{in_problem, open};
use tandem::codesign::fmu_plant::FmuPlant;
use tandem::codesign::optimize::{optimize as run_optimizer, Optimum};
use tandem::codesign::problem_file::CodesignFile;
use tandem::codesign::{analyze, central_differences, gradient, Analysis, CodesignError, Gradient};

/// What one call computed.
struct Codesigned {
    file: CodesignFile,
    analysis: Analysis,
    gradient: Gradient,
    differences: Option<Vec<f64>>,
    optimum: Option<(Optimum, Analysis)>,
}

/// Analyzes the baseline design of the co-design problem file `problem` and differentiates
/// its cost; with `check`, also by central differences of relative step `step`; with
/// `optimize`, also optimizes the design (SLSQP within its bounds and constraints).
#[pyfunction]
#[pyo3(signature = (problem, check=false, fmu_dir=None, optimize=false, step=1e-4))]
pub fn codesign<'py>(
    py: Python<'py>,
    problem: PathBuf,
    check: bool,
    fmu_dir: Option<PathBuf>,
    optimize: bool,
    step: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let watched = watched(
        py,
        || {
            let (file, fmu) = open(&problem, fmu_dir.as_deref())?;
            let in_file = |source| in_problem(&problem, source);
            let mut plant = FmuPlant::new(&fmu, &file.plant).map_err(in_file)?;
            let d = file.start();
            let analysis = analyze(&mut plant, &file.problem, &d).map_err(in_file)?;
            let gradient = gradient(&mut plant, &file.problem, &analysis).map_err(in_file)?;
            let differences = check
                .then(|| {
                    central_differences(&mut plant, &file.problem, &d, step)
                        .map(|differences| differences.as_slice().to_vec())
                })
                .transpose()
                .map_err(in_file)?;
            let optimum = optimize
                .then(|| {
                    let optimum = run_optimizer(
                        &mut plant,
                        &file.problem,
                        &file.design,
                        &file.constraints,
                        &file.optimize,
                    )?;
                    let best = analyze(&mut plant, &file.problem, &optimum.d)?;
                    Ok::<_, CodesignError>((optimum, best))
                })
                .transpose()
                .map_err(in_file)?;
            Ok::<_, tandem::Error>(Codesigned {
                file,
                analysis,
                gradient,
                differences,
                optimum,
            })
        },
        signals_only,
    )?;
    // The co-design library does not look at the stop request: Ctrl-C is raised when the
    // call ends, with what it computed.
    match (watched.value, watched.raised) {
        (Ok(done), None) => result(py, &done),
        (Ok(done), Some(raised)) => {
            Err(with_result(py, raised, Some(result(py, &done)?.into_any())))
        }
        (Err(_), Some(raised)) => Err(raised),
        (Err(error), None) => Err(failed(py, &error)),
    }
}

/// The dict of what was computed.
fn result<'py>(py: Python<'py>, done: &Codesigned) -> PyResult<Bound<'py, PyDict>> {
    let Codesigned {
        file,
        analysis,
        gradient,
        differences,
        optimum,
    } = done;
    let names: Vec<&str> = file.design.iter().map(|e| e.name.as_str()).collect();
    let by_name = |values: &[f64]| -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in names.iter().zip(values) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    };
    let dict = analysis_dict(py, analysis)?;
    dict.set_item("design", by_name(&file.start())?)?;
    dict.set_item("df_dd", by_name(gradient.df_dd.as_slice())?)?;
    dict.set_item("closed_loop", by_name(gradient.closed_loop.as_slice())?)?;
    dict.set_item("seeds", by_name(gradient.seeds.as_slice())?)?;
    dict.set_item("steady_state", by_name(gradient.steady_state.as_slice())?)?;
    dict.set_item("seed_method", gradient.seed_method)?;
    let differences = differences.as_deref().map(by_name).transpose()?;
    dict.set_item("differences", differences)?;
    let optimum = match optimum {
        Some((optimum, best)) => {
            let entry = analysis_dict(py, best)?;
            entry.set_item("design", by_name(&optimum.d)?)?;
            entry.set_item("status", &optimum.status)?;
            entry.set_item("active", &optimum.first_order.active)?;
            entry.set_item("kkt_residual", optimum.first_order.residual)?;
            let history = Columns::new(py)?;
            history.floats("f", optimum.history.iter().map(|e| e.f).collect())?;
            for (i, name) in names.iter().enumerate() {
                history.floats(name, optimum.history.iter().map(|e| e.d[i]).collect())?;
            }
            for (i, name) in names.iter().enumerate() {
                let derivative = optimum.history.iter().map(|e| e.gradient[i]).collect();
                history.floats(&format!("df/d{name}"), derivative)?;
            }
            entry.set_item("history", history.into_dict())?;
            Some(entry)
        }
        None => None,
    };
    dict.set_item("optimum", optimum)?;
    Ok(dict)
}

/// The cost `f` of a design and what the LQR made of it: the target `x_target`, `u_target`,
/// the steady state's `newton_iterations`, the Riccati equation's `riccati_residual`, the
/// gain `W` (a list of rows: inputs by states) and the closed-loop `eigenvalues` (complex).
fn analysis_dict<'py>(py: Python<'py>, analysis: &Analysis) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("f", analysis.f)?;
    dict.set_item("x_target", &analysis.x_target)?;
    dict.set_item("u_target", &analysis.u_target)?;
    dict.set_item("newton_iterations", analysis.newton_iterations)?;
    dict.set_item("riccati_residual", analysis.care.relative_residual)?;
    let gain: Vec<Vec<f64>> = analysis
        .care
        .w
        .row_iter()
        .map(|row| row.iter().copied().collect())
        .collect();
    dict.set_item("W", gain)?;
    let eigenvalues = analysis
        .care
        .closed_loop_eigenvalues
        .iter()
        .map(|l| PyComplex::from_doubles(py, l.re, l.im))
        .collect::<Vec<_>>();
    dict.set_item("eigenvalues", eigenvalues)?;
    Ok(dict)
}
