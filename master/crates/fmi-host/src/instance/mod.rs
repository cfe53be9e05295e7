//! A safe API over an FMU instance, implemented for FMI 2.0 ([`Fmu2Instance`]) and FMI 3.0
//! ([`Fmu3Instance`]).
//!
//! Its operations are split by FMI interface, one trait each (in `interfaces/`): [`Common`]
//! (identity, modes, variable access, event mode), [`ModelExchangeInstance`],
//! [`CoSimulationInstance`], [`FmuStates`] and [`PartialDerivatives`]. [`FmuInstance`] is
//! all of them, implemented for every type that implements them: callers hold a
//! `Box<dyn FmuInstance>` or `&mut dyn FmuInstance` and call any method on it; a call on a
//! concrete type needs its trait in scope, which `use fmi_host::instance::prelude::*` gives.
//! A type that offers only part of the standard (the held-input step of a Model Exchange
//! FMU, a test double) leaves out the optional calls and those of the other interface, and
//! gets defaults that report them unsupported.
//!
//! Scheduled Execution ([`Fmu3Instance::activate_model_partition`] and the clock queries)
//! stays inherent to [`Fmu3Instance`]: only FMI 3.0 binaries have it, and its scheduler
//! holds that type.

mod calls;
mod counting;
mod crash;
mod fmi2;
mod fmi3;
mod interfaces;
pub mod logging;
mod step_derivatives;

pub use crate::call_status::CallStatus;
pub use counting::{CallCounter, CountingInstance};
pub use crash::install as install_crash_report;
pub use fmi2::Fmu2Instance;
pub use fmi3::adjoint::{InitialCotangents, StepCotangents, StepTangents};
pub use fmi3::scheduled_execution::ClockInterval;
pub use fmi3::Fmu3Instance;
pub use interfaces::{
    CoSimulationInstance, Common, FmuInstance, FmuStates, ModelExchangeInstance, PartialDerivatives,
};
pub use logging::{LogLevel, LogMessage, LogSettings, Logger};
pub use step_derivatives::{
    seed_references, seed_variables, DerivativeLayout, Seed, StepDerivatives,
};

use std::ffi::{c_int, c_void};

use crate::error::{Error, Result};
use crate::model_description::{InterfaceType, Values, VariableType};

/// The instance traits, for calls on a concrete instance type (`use
/// fmi_host::instance::prelude::*`); calls on `dyn FmuInstance` need no import.
pub mod prelude {
    pub use super::{
        CoSimulationInstance, Common, FmuInstance, FmuStates, ModelExchangeInstance,
        PartialDerivatives,
    };
}

/// The result of one co-simulation step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepOutcome {
    /// The FMU wants the simulation to end.
    pub terminate: bool,
    /// The FMU stopped before the end of the step (Discard or early return) at `last_time`.
    pub partial: bool,
    /// The time the FMU actually reached.
    pub last_time: f64,
    /// FMI 3.0: the FMU needs event handling.
    pub event_handling_needed: bool,
}

/// The result of one pass of the event iteration (fmi2NewDiscreteStates / fmi3UpdateDiscreteStates).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EventUpdate {
    /// Another pass is needed.
    pub discrete_states_need_update: bool,
    /// The FMU asks to end the simulation.
    pub terminate: bool,
    /// The nominals of the continuous states changed.
    pub nominals_changed: bool,
    /// The continuous states were re-initialized.
    pub values_changed: bool,
    /// The time of the next time event.
    pub next_event_time: Option<f64>,
}

/// The result of completedIntegratorStep.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IntegratorStepOutcome {
    /// The FMU asks for event mode now (step event).
    pub enter_event_mode: bool,
    /// The FMU asks to end the simulation.
    pub terminate: bool,
}

/// A saved FMU state: an opaque handle valid only with the instance that created it.
#[derive(Debug)]
pub struct FmuState {
    pointer: *mut c_void,
    owner: usize,
}

impl FmuState {
    /// A state handle made by an instance implemented in Rust rather than by an FMU binary
    /// (an in-process stand-in): `pointer` is whatever that instance finds the state by, `owner`
    /// identifies the instance.
    pub fn from_raw(pointer: *mut c_void, owner: usize) -> Self {
        FmuState { pointer, owner }
    }

    /// The pointer the handle was made with.
    pub fn as_raw(&self) -> *mut c_void {
        self.pointer
    }
}

// SAFETY: the handle is an opaque token that is only dereferenced by the FMU, through the
// owning instance's functions, which need `&mut` access to that instance; moving the token
// between threads moves no access to the memory behind it.
unsafe impl Send for FmuState {}

/// Copies the strings an FMU's string getter returned (a null pointer reads as the empty
/// string), before its next call may free them.
///
/// # Safety
///
/// Every non-null pointer of `raw` is a NUL-terminated string that stays valid until the
/// FMU's next call, as both standards promise for `fmi2GetString` and `fmi3GetString`.
pub(crate) unsafe fn copy_strings(raw: &[*const std::ffi::c_char]) -> Vec<String> {
    raw.iter()
        .map(|&p| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: non-null and NUL-terminated, by the function's contract.
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            }
        })
        .collect()
}

/// What every instance implementation shares: its name and log context (which also serves
/// as the identity of the FMU states it creates), and status checking.
pub(crate) struct InstanceCore {
    name: String,
    interface: InterfaceType,
    log: Box<logging::LogContext>,
    /// Set when a call returned Fatal: the standard then forbids every further call,
    /// including freeing the instance.
    fatal: std::cell::Cell<bool>,
}

impl InstanceCore {
    fn new(name: &str, interface: InterfaceType, settings: LogSettings) -> Self {
        InstanceCore {
            name: name.to_string(),
            interface,
            log: Box::new(logging::LogContext::new(name, settings)),
            fatal: std::cell::Cell::new(false),
        }
    }

    /// The environment pointer given to the FMU; stable because the context is boxed.
    fn environment(&self) -> *mut c_void {
        &*self.log as *const logging::LogContext as *mut c_void
    }

    /// OK and Warning pass; anything else becomes an error naming `function` and the instance.
    fn check(&self, function: &'static str, status: impl Into<c_int>) -> Result<()> {
        match status.into() {
            0 | 1 => Ok(()),
            status => Err(self.call_error(function, status)),
        }
    }

    fn call_error(&self, function: &'static str, status: impl Into<c_int>) -> Error {
        let status = CallStatus::from_code(status.into());
        if status == CallStatus::Fatal {
            self.fatal.set(true);
        }
        Error::Call {
            instance: self.name.clone(),
            function,
            status,
            message: self.log.take_last_problem(),
        }
    }

    /// Whether the instance may still be called (no call returned Fatal).
    fn usable(&self) -> bool {
        !self.fatal.get()
    }

    /// The function table `table` of an interface or capability, or the error that the FMU
    /// does not provide `function`.
    fn provided<'t, T>(&self, table: Option<&'t T>, function: &'static str) -> Result<&'t T> {
        table.ok_or_else(|| self.unsupported(function))
    }

    fn unsupported(&self, function: &'static str) -> Error {
        Error::Unsupported {
            instance: self.name.clone(),
            function,
        }
    }

    fn wrap_state(&self, pointer: *mut c_void) -> FmuState {
        FmuState {
            pointer,
            owner: self.environment() as usize,
        }
    }

    fn own_state(&self, state: &FmuState) -> Result<*mut c_void> {
        if state.owner == self.environment() as usize {
            Ok(state.pointer)
        } else {
            Err(Error::InvalidValue {
                item: format!("instance {}", self.name),
                message: "the FMU state was created by another instance".into(),
            })
        }
    }

    fn check_lengths(
        &self,
        function: &'static str,
        references: usize,
        values: usize,
    ) -> Result<()> {
        if references == values {
            Ok(())
        } else {
            Err(Error::InvalidValue {
                item: format!("instance {}: {function}", self.name),
                message: format!("{references} value references but {values} values"),
            })
        }
    }
}

/// Narrows widened values to a C type, rejecting values outside its range.
fn narrow<T: TryFrom<i64> + TryFrom<u64>>(
    core: &InstanceCore,
    ty: VariableType,
    values: &Values,
) -> Result<Vec<T>> {
    let out_of_range = |v: String| Error::InvalidValue {
        item: format!("instance {}", core.name),
        message: format!("{v} does not fit {ty}"),
    };
    match values {
        Values::Int(v) => v
            .iter()
            .map(|&x| T::try_from(x).map_err(|_| out_of_range(x.to_string())))
            .collect(),
        Values::UInt(v) => v
            .iter()
            .map(|&x| T::try_from(x).map_err(|_| out_of_range(x.to_string())))
            .collect(),
        _ => Err(mismatch(core, ty, values)),
    }
}

fn mismatch(core: &InstanceCore, ty: VariableType, values: &Values) -> Error {
    let kind = match values {
        Values::Float(_) => "float",
        Values::Int(_) => "signed integer",
        Values::UInt(_) => "unsigned integer",
        Values::Bool(_) => "boolean",
        Values::String(_) => "string",
        Values::Binary(_) => "binary",
    };
    Error::InvalidValue {
        item: format!("instance {}", core.name),
        message: format!("{kind} values cannot be written to {ty} variables"),
    }
}

impl StepOutcome {
    /// The same outcome with `last_time` replaced (a completed step ends exactly at t + h).
    fn with_time(self, last_time: f64) -> Self {
        StepOutcome { last_time, ..self }
    }
}
