//! A safe API over an FMU instance: one trait, [`FmuInstance`], implemented for FMI 2.0
//! ([`Fmu2Instance`]) and FMI 3.0 ([`Fmu3Instance`]).

mod calls;
mod counting;
mod crash;
mod fmi2;
mod fmi3;
pub mod logging;
mod step_derivatives;

pub use crate::call_status::CallStatus;
pub use counting::{CallCounter, CountingInstance};
pub use crash::install as install_crash_report;
pub use fmi2::Fmu2Instance;
pub use fmi3::adjoint::{InitialCotangents, StepCotangents, StepTangents};
pub use fmi3::scheduled_execution::ClockInterval;
pub use fmi3::Fmu3Instance;
pub use logging::{LogLevel, LogMessage, LogSettings, Logger};
pub use step_derivatives::{DerivativeLayout, StepDerivatives};

use std::ffi::{c_int, c_void};

use crate::error::{Error, Result};
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};

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

/// The operations of an FMU instance. Methods take `&mut self` because the standard forbids
/// concurrent calls on one instance; instances are `Send`, so different instances can step
/// on different threads.
pub trait FmuInstance: Send {
    /// The instance name.
    fn name(&self) -> &str;
    /// FMI version of the binary.
    fn fmi_version(&self) -> FmiVersion;
    /// The interface this instance was created for.
    fn interface(&self) -> InterfaceType;

    /// Enters initialization mode (FMI 2.0: after fmi2SetupExperiment).
    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<()>;
    /// Leaves initialization mode.
    fn exit_initialization_mode(&mut self) -> Result<()>;
    /// Terminates the simulation run.
    fn terminate(&mut self) -> Result<()>;
    /// Resets the instance to the state after instantiation.
    fn reset(&mut self) -> Result<()>;

    /// Reads Float64 (FMI 2.0 Real) variables.
    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()>;
    /// Writes Float64 (FMI 2.0 Real) variables.
    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()>;
    /// Reads Int32 (FMI 2.0 Integer) variables.
    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()>;
    /// Writes Int32 (FMI 2.0 Integer) variables.
    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()>;
    /// Reads Boolean variables.
    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()>;
    /// Writes Boolean variables.
    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()>;
    /// Reads String variables.
    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>>;
    /// Writes String variables.
    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()>;
    /// Reads scalar variables of any type `ty` of this FMI version, widened to [`Values`].
    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values>;
    /// Writes scalar variables of type `ty`; values out of the type's range are an error.
    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()>;
    /// Reads the `count` elements of the variables `references` of type `ty`: an FMI 3.0
    /// array gives all its elements for its one value reference, in row-major order. Without
    /// arrays (FMI 2.0) `count` is the number of references.
    fn get_elements(
        &mut self,
        ty: VariableType,
        references: &[u32],
        count: usize,
    ) -> Result<Values> {
        if count != references.len() {
            return Err(crate::Error::InvalidValue {
                item: format!("instance {}", self.name()),
                message: "array variables need FMI 3.0".to_string(),
            });
        }
        self.get_values(ty, references)
    }

    /// FMI 3.0: enters Configuration Mode, where structural parameters may be set (after
    /// instantiation, before Initialization Mode).
    fn enter_configuration_mode(&mut self) -> Result<()> {
        Err(crate::Error::Unsupported {
            instance: self.name().to_string(),
            function: "fmi3EnterConfigurationMode",
        })
    }

    /// FMI 3.0: leaves Configuration Mode; the sizes of arrays, the number of continuous
    /// states and of event indicators may have changed with the structural parameters.
    fn exit_configuration_mode(&mut self) -> Result<()> {
        Err(crate::Error::Unsupported {
            instance: self.name().to_string(),
            function: "fmi3ExitConfigurationMode",
        })
    }

    /// Co-Simulation: advances from `time` by `step`.
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome>;

    /// Model Exchange (and FMI 3.0 CS with event mode): enters event mode.
    fn enter_event_mode(&mut self) -> Result<()>;
    /// One pass of the event iteration.
    fn update_discrete_states(&mut self) -> Result<EventUpdate>;
    /// Model Exchange: enters continuous-time mode.
    fn enter_continuous_time_mode(&mut self) -> Result<()>;
    /// Model Exchange: reports an accepted integrator step.
    fn completed_integrator_step(
        &mut self,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome>;
    /// Model Exchange: sets the independent variable.
    fn set_time(&mut self, time: f64) -> Result<()>;
    /// Model Exchange: sets the continuous states.
    fn set_continuous_states(&mut self, states: &[f64]) -> Result<()>;
    /// Model Exchange: reads the continuous states.
    fn get_continuous_states(&mut self, states: &mut [f64]) -> Result<()>;
    /// Model Exchange: reads the state derivatives.
    fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<()>;
    /// Model Exchange: reads the event indicators.
    fn get_event_indicators(&mut self, indicators: &mut [f64]) -> Result<()>;
    /// Model Exchange: reads the nominal values of the states.
    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()>;
    /// Number of continuous states.
    fn number_of_continuous_states(&self) -> usize;
    /// Number of event indicators.
    fn number_of_event_indicators(&self) -> usize;

    /// Forward derivative: `sensitivity = d unknowns / d knowns * seed`.
    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()>;
    /// Reverse derivative: `sensitivity = seed^T * d unknowns / d knowns` (FMI 3.0 only).
    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()>;

    /// Saves the FMU state.
    fn get_fmu_state(&mut self) -> Result<FmuState>;
    /// Restores a state saved by this instance.
    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()>;
    /// Frees a state saved by this instance.
    fn free_fmu_state(&mut self, state: FmuState) -> Result<()>;
    /// Serializes a state saved by this instance.
    fn serialize_fmu_state(&mut self, state: &FmuState) -> Result<Vec<u8>>;
    /// Creates a state from bytes made by [`FmuInstance::serialize_fmu_state`].
    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuState>;

    /// Whether the FMU provides the adjoint extension's second-order product
    /// [`FmuInstance::get_jacobian_adjoint_derivative`] (capability
    /// `jacobianAdjointDerivative`).
    fn provides_jacobian_adjoint_derivative(&self) -> bool {
        false
    }

    /// The adjoint extension's tandemGetJacobianAdjointDerivative: for a seed `S` on the
    /// Jacobian `J = d unknowns / d knowns` (row-major, `seed[i * knowns.len() + j]` weighs
    /// `J_ij`), `sensitivity_k = Σ_ij S_ij ∂²unknown_i/∂known_j∂known_k` (FMI 3.0 only).
    fn get_jacobian_adjoint_derivative(
        &mut self,
        _unknowns: &[u32],
        _knowns: &[u32],
        _seed: &[f64],
        _sensitivity: &mut [f64],
    ) -> Result<()> {
        Err(Error::Unsupported {
            instance: self.name().to_string(),
            function: "tandemGetJacobianAdjointDerivative",
        })
    }

    /// The derivatives of the instance's co-simulation step (the adjoint extension), if the
    /// FMU provides them.
    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        None
    }
}

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
