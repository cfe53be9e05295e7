//! The integration of Model Exchange FMUs for the Tandem master.
//!
//! - [`solver`]: adaptive one-step methods with dense output (explicit Dormand–Prince,
//!   implicit ESDIRK, and by default the two with a stiffness detector choosing between
//!   them), zero-crossing location, and the step linearizations exact sensitivities need;
//! - [`model_exchange`]: a Model Exchange FMU stepped by those solvers with its inputs held
//!   over each step, its events handled, and its partial derivatives for sensitivities, also
//!   offered as a Co-Simulation [`fmi_host::FmuInstance`] (the held-input step).

pub mod error;
pub mod model_exchange;
pub mod solver;

pub use error::{Error, Result};
