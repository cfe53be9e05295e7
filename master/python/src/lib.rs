//! The `tandem` Python package: the library crates called from Python with FMPy's conventions.
//! `simulate` one FMU, `run` a system, take a `gradient` through it, `identify` its
//! parameters, `sweep` it over parameter sets, `codesign` a plant, or
//! `read_model_description`; rows come back as NumPy structured arrays (`arrays`), tables as
//! dicts of columns (`columns`), and every failure as `tandem.TandemError` (`error`) with the
//! command line's message. Each call runs the library on a thread of its own with the GIL
//! released, while the caller's thread answers Ctrl-C (`watch`).

mod arrays;
mod codesign;
mod columns;
mod error;
mod gradient;
mod identify;
mod model_description;
mod options;
mod run;
mod simulate;
mod sweep;
mod watch;

use pyo3::prelude::*;

/// The extension module `tandem._tandem`, which `tandem/__init__.py` re-exports.
#[pymodule]
#[pyo3(name = "_tandem")]
fn tandem_python(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("TandemError", py.get_type::<error::TandemError>())?;
    module.add_function(wrap_pyfunction!(simulate::simulate, module)?)?;
    module.add_function(wrap_pyfunction!(
        model_description::read_model_description,
        module
    )?)?;
    module.add_function(wrap_pyfunction!(run::run, module)?)?;
    module.add_function(wrap_pyfunction!(gradient::gradient, module)?)?;
    module.add_function(wrap_pyfunction!(identify::identify, module)?)?;
    module.add_function(wrap_pyfunction!(sweep::sweep_system, module)?)?;
    module.add_function(wrap_pyfunction!(codesign::codesign, module)?)?;
    module.add_class::<model_description::ModelDescription>()?;
    module.add_class::<model_description::ModelVariable>()?;
    module.add_class::<model_description::DefaultExperiment>()?;
    module.add_class::<model_description::Interface>()?;
    Ok(())
}
