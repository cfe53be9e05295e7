//! The C types of FMI 2.0 (fmi2TypesPlatform.h, fmi2FunctionTypes.h), written by hand.

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::ffi::{FmiVersion, PanicFallback, Standard};
use crate::instance::outcome::Status;

/// fmi2Component: an instance handle.
pub type Fmi2Component = *mut c_void;
/// fmi2ComponentEnvironment: the host's pointer passed back to its callbacks.
pub type Fmi2ComponentEnvironment = *mut c_void;
/// fmi2FMUstate: an FMU state handle.
pub type Fmi2FmuState = *mut c_void;
/// fmi2ValueReference.
pub type Fmi2ValueReference = c_uint;
/// fmi2Real.
pub type Fmi2Real = f64;
/// fmi2Integer.
pub type Fmi2Integer = c_int;
/// fmi2Boolean (`int`; any non-zero value is true).
pub type Fmi2Boolean = c_int;
/// fmi2String.
pub type Fmi2String = *const c_char;
/// fmi2Byte.
pub type Fmi2Byte = c_char;
/// fmi2Type, received as its integer value (0 Model Exchange, 1 Co-Simulation).
pub type Fmi2Type = c_int;
/// fmi2StatusKind, received as its integer value.
pub type Fmi2StatusKind = c_int;

/// fmi2True.
pub const FMI2_TRUE: Fmi2Boolean = 1;
/// fmi2False.
pub const FMI2_FALSE: Fmi2Boolean = 0;
/// fmi2ModelExchange.
pub const FMI2_MODEL_EXCHANGE: Fmi2Type = 0;
/// fmi2CoSimulation.
pub const FMI2_CO_SIMULATION: Fmi2Type = 1;
/// fmi2DoStepStatus.
pub const FMI2_DO_STEP_STATUS: Fmi2StatusKind = 0;
/// fmi2PendingStatus.
pub const FMI2_PENDING_STATUS: Fmi2StatusKind = 1;
/// fmi2LastSuccessfulTime.
pub const FMI2_LAST_SUCCESSFUL_TIME: Fmi2StatusKind = 2;
/// fmi2Terminated.
pub const FMI2_TERMINATED: Fmi2StatusKind = 3;

/// fmi2Status.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmi2Status {
    /// fmi2OK.
    Ok = 0,
    /// fmi2Warning.
    Warning = 1,
    /// fmi2Discard.
    Discard = 2,
    /// fmi2Error.
    Error = 3,
    /// fmi2Fatal.
    Fatal = 4,
    /// fmi2Pending (never returned: doStep is synchronous).
    Pending = 5,
}

impl From<Status> for Fmi2Status {
    fn from(status: Status) -> Self {
        match status {
            Status::Ok => Fmi2Status::Ok,
            Status::Warning => Fmi2Status::Warning,
            Status::Discard => Fmi2Status::Discard,
            Status::Error => Fmi2Status::Error,
            Status::Fatal => Fmi2Status::Fatal,
        }
    }
}

/// FMI 2.0, as the standard of the plumbing shared with FMI 3.0 ([`crate::ffi`]).
pub enum Fmi2 {}

impl Standard for Fmi2 {
    const VERSION: FmiVersion = FmiVersion::Fmi2;
    type Status = Fmi2Status;
    type Boolean = Fmi2Boolean;
    const FALSE: Fmi2Boolean = FMI2_FALSE;
    const TRUE: Fmi2Boolean = FMI2_TRUE;
}

impl PanicFallback for Fmi2Status {
    fn on_panic() -> Self {
        Fmi2Status::Error
    }
}

/// fmi2CallbackLogger (printf-style: `message` is a format string).
pub type Fmi2CallbackLogger = Option<
    unsafe extern "C" fn(
        Fmi2ComponentEnvironment,
        Fmi2String,
        Fmi2Status,
        Fmi2String,
        Fmi2String,
        ...
    ),
>;

/// fmi2CallbackFunctions.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Fmi2CallbackFunctions {
    /// Log callback (required).
    pub logger: Fmi2CallbackLogger,
    /// Memory allocation callback (not used: Rust allocates its own memory).
    pub allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    /// Memory release callback (not used).
    pub free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Asynchronous doStep callback (not used: doStep never returns fmi2Pending).
    pub step_finished: Option<unsafe extern "C" fn(Fmi2ComponentEnvironment, Fmi2Status)>,
    /// The host's environment pointer.
    pub component_environment: Fmi2ComponentEnvironment,
}

/// fmi2EventInfo.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fmi2EventInfo {
    /// Another event iteration is needed.
    pub new_discrete_states_needed: Fmi2Boolean,
    /// The model asks to end the simulation.
    pub terminate_simulation: Fmi2Boolean,
    /// The nominal values of the states changed.
    pub nominals_of_continuous_states_changed: Fmi2Boolean,
    /// The continuous states changed.
    pub values_of_continuous_states_changed: Fmi2Boolean,
    /// Whether `next_event_time` holds a time event.
    pub next_event_time_defined: Fmi2Boolean,
    /// The next time event.
    pub next_event_time: Fmi2Real,
}
