//! The FMI 2.0 C ABI (Model Exchange and Co-Simulation): one Rust function per function of
//! fmi2Functions.h, generic over the model's [`crate::System`]. [`crate::export_fmu!`]
//! exports them under their C names, each inside the panic guard.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod common;
pub mod cosimulation;
pub mod derivatives;
pub mod fmu_state;
pub mod logger;
pub mod model_exchange;
pub mod types;
pub mod variables;

pub use common::*;
pub use cosimulation::*;
pub use derivatives::*;
pub use fmu_state::*;
pub use model_exchange::*;
pub use variables::*;
