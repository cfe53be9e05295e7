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

use std::fmt;

use crate::ffi::{with_instance, Access, FmiVersion};
use crate::instance::outcome::Outcome;
use crate::instance::Instance;
use crate::system::System;
use types::{Fmi2Component, Fmi2Status};

pub use common::*;
pub use cosimulation::*;
pub use derivatives::*;
pub use fmu_state::*;
pub use model_exchange::*;
pub use variables::*;

/// Runs `body` on the FMI 2.0 instance `c` (see [`with_instance`]).
///
/// # Safety
/// `c` must be NULL or a live handle from fmi2Instantiate, not used concurrently.
unsafe fn call<S: System>(
    c: Fmi2Component,
    function: &str,
    access: Access,
    args: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> Fmi2Status {
    // SAFETY: the caller's contract on `c`.
    unsafe { with_instance::<S>(c, FmiVersion::Fmi2, function, access, args, body) }.into()
}
