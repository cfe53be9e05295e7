//! The `tandem` Python package: the library crates called from Python with FMPy's conventions.
//! `simulate` one FMU, `run` a system, take a `gradient` through it, or
//! `read_model_description`; rows come back as NumPy structured arrays (`arrays`) and every
//! failure as `tandem.TandemError` (`error`) with the command line's message. Each call
//! releases the GIL while the FMUs run.

mod arrays;
mod error;
mod gradient;
mod model_description;
mod options;
mod run;
mod simulate;

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
    module.add_class::<model_description::ModelDescription>()?;
    module.add_class::<model_description::ModelVariable>()?;
    module.add_class::<model_description::DefaultExperiment>()?;
    module.add_class::<model_description::Interface>()?;
    Ok(())
}
