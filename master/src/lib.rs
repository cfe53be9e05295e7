//! The Tandem co-simulation master: FMI 2.0/3.0 import, simulation of single FMUs
//! (Co-Simulation, Model Exchange under the master's own integrator, and FMI 3.0 Scheduled
//! Execution under the master's own scheduler), co-simulation of
//! systems of FMUs (Jacobi and Gauss-Seidel, multi-rate, input extrapolation) with energy
//! monitoring and correction, and the `tandem` CLI.

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
