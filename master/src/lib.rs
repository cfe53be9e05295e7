//! The `tandem` application: the command line (`cli`), what it shows (plots, the progress
//! bar, Parquet tables, summaries: `output`), sweeps, experiments and the cluster (MPI), the
//! signal handlers, and the commands' glue over the library crates (`simulate`, `run`).
//! The library crates under `master/crates/` do the work; this library target exists so that
//! tests and benchmarks can call the commands in process, and re-exports the crates' modules
//! under the paths the commands use.

pub mod cli;
pub mod cluster;
pub mod error;
pub mod experiments;
pub mod interrupt;
pub mod output;
pub mod run;
pub mod simulate;
pub mod sweep;

/// The FMI host (binaries, model descriptions, import, instances, name suggestions), under
/// the paths the rest of the master uses.
pub use fmi_host::{binding, float_text, import, instance, model_description, suggest};

/// The guarded input and result files and the temporary folders, under the paths the rest
/// of the master uses.
pub use tandem_files::{self as files, temporary};

/// The ODE solvers and the stepping of Model Exchange FMUs, under the paths the rest of the
/// master uses.
pub use tandem_ode::{model_exchange, solver};

/// Systems, couplings, schedules and the energy stage, under the paths the rest of the master
/// uses.
pub use tandem_cosim::{column, coupling, energy, schedule, start_values, system, time_grid};

/// Control co-design, under the path the rest of the master uses.
pub use tandem_codesign as codesign;

/// Gradients through co-simulations and the identification on top, under the paths the rest
/// of the master uses.
pub use tandem_gradient::{self as gradient, identify};

pub use error::{Error, Result};
pub use import::Fmu;
pub use instance::{Fmu2Instance, Fmu3Instance, FmuInstance};
pub use model_description::ModelDescription;
