//! The FMI 3.0 C ABI (Model Exchange and Co-Simulation): one Rust function per function of
//! fmi3Functions.h, generic over the model's [`crate::System`]. Functions for features the
//! model does not have (clocks, Scheduled Execution, configuration mode, types other than
//! Float64/Int32/Boolean) exist so that hosts can resolve them, and answer with an Error.
//! [`crate::export_fmu!`] exports them under their C names, each inside the panic guard,
//! together with the adjoint extension's `tandem*` functions ([`adjoint_extension`],
//! [`jacobian_adjoint`]).

#![deny(unsafe_op_in_unsafe_fn)]

pub mod adjoint_extension;
pub mod common;
pub mod cosimulation;
pub mod derivatives;
pub mod fmu_state;
pub mod jacobian_adjoint;
pub mod logger;
pub mod model_exchange;
pub mod types;
pub mod unsupported;
pub mod variables;

pub use adjoint_extension::*;
pub use common::*;
pub use cosimulation::*;
pub use derivatives::*;
pub use fmu_state::*;
pub use jacobian_adjoint::*;
pub use model_exchange::*;
pub use unsupported::*;
pub use variables::*;
