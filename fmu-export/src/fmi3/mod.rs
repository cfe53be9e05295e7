//! The FMI 3.0 C ABI (Model Exchange and Co-Simulation): one Rust function per function of
//! fmi3Functions.h, generic over the model's [`crate::System`]. Functions for features the
//! model does not have (clocks, Scheduled Execution, configuration mode, types other than
//! Float64/Int32/Boolean) exist so that hosts can resolve them, and answer with an Error.
//! [`crate::export_fmu!`] exports them under their C names, each inside the panic guard.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod common;
pub mod cosimulation;
pub mod derivatives;
pub mod fmu_state;
pub mod logger;
pub mod model_exchange;
pub mod types;
pub mod unsupported;
pub mod variables;

use std::fmt;

use crate::ffi::{with_instance, Access, FmiVersion};
use crate::instance::outcome::Outcome;
use crate::instance::Instance;
use crate::system::System;
use types::{Fmi3Instance, Fmi3Status};

pub use common::*;
pub use cosimulation::*;
pub use derivatives::*;
pub use fmu_state::*;
pub use model_exchange::*;
pub use unsupported::*;
pub use variables::*;

/// Runs `body` on the FMI 3.0 instance `instance` (see [`with_instance`]).
///
/// # Safety
/// `instance` must be NULL or a live handle from an fmi3Instantiate function, not used
/// concurrently.
unsafe fn call<S: System>(
    instance: Fmi3Instance,
    function: &str,
    access: Access,
    args: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> Fmi3Status {
    // SAFETY: the caller's contract on `instance`.
    unsafe { with_instance::<S>(instance, FmiVersion::Fmi3, function, access, args, body) }.into()
}
