//! FMI 2.0: the types of `fmi2TypesPlatform.h` and `fmi2FunctionTypes.h`. Each function type
//! is named after its C typedef without the `fmi2` prefix and `TYPE` suffix
//! (`fmi2DoStepTYPE` is [`DoStep`]).

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `fmi2Component`: an instance handle.
pub type Component = *mut c_void;
/// `fmi2ComponentEnvironment`: the host's pointer passed back to its callbacks.
pub type ComponentEnvironment = *mut c_void;
/// `fmi2FMUstate`: an FMU state handle.
pub type FmuState = *mut c_void;
/// `fmi2ValueReference`.
pub type ValueReference = c_uint;
/// `fmi2Real`.
pub type Real = f64;
/// `fmi2Integer`.
pub type Integer = c_int;
/// `fmi2Boolean` (an `int`; any non-zero value is true).
pub type Boolean = c_int;
/// `fmi2String`.
pub type FmiString = *const c_char;
/// `fmi2Byte`.
pub type Byte = c_char;
/// `fmi2Type`, as its integer value.
pub type FmuType = c_int;
/// `fmi2StatusKind`, as its integer value.
pub type StatusKind = c_int;

/// `fmi2True`.
pub const TRUE: Boolean = 1;
/// `fmi2False`.
pub const FALSE: Boolean = 0;
/// `fmi2ModelExchange`.
pub const MODEL_EXCHANGE: FmuType = 0;
/// `fmi2CoSimulation`.
pub const CO_SIMULATION: FmuType = 1;
/// `fmi2DoStepStatus`.
pub const DO_STEP_STATUS: StatusKind = 0;
/// `fmi2PendingStatus`.
pub const PENDING_STATUS: StatusKind = 1;
/// `fmi2LastSuccessfulTime`.
pub const LAST_SUCCESSFUL_TIME: StatusKind = 2;
/// `fmi2Terminated`: whether the slave wants to end the simulation.
pub const TERMINATED: StatusKind = 3;

crate::status::status! {
    /// `fmi2Status`.
    "fmi2";
    /// `fmi2OK`.
    Ok = 0, "fmi2OK";
    /// `fmi2Warning`.
    Warning = 1, "fmi2Warning";
    /// `fmi2Discard`.
    Discard = 2, "fmi2Discard";
    /// `fmi2Error`.
    Error = 3, "fmi2Error";
    /// `fmi2Fatal`.
    Fatal = 4, "fmi2Fatal";
    /// `fmi2Pending` (an asynchronous doStep is still running).
    Pending = 5, "fmi2Pending";
}

/// `fmi2CallbackLogger`: a printf format and its arguments after the category.
pub type CallbackLogger =
    unsafe extern "C" fn(ComponentEnvironment, FmiString, Status, FmiString, FmiString, ...);
/// `fmi2CallbackAllocateMemory`.
pub type CallbackAllocateMemory = unsafe extern "C" fn(usize, usize) -> *mut c_void;
/// `fmi2CallbackFreeMemory`.
pub type CallbackFreeMemory = unsafe extern "C" fn(*mut c_void);
/// `fmi2StepFinished`.
pub type StepFinished = unsafe extern "C" fn(ComponentEnvironment, Status);

/// `fmi2CallbackFunctions`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CallbackFunctions {
    /// Log callback (required by the standard).
    pub logger: Option<CallbackLogger>,
    /// `calloc`-like allocator.
    pub allocate_memory: Option<CallbackAllocateMemory>,
    /// `free`-like deallocator.
    pub free_memory: Option<CallbackFreeMemory>,
    /// Completion of an asynchronous doStep.
    pub step_finished: Option<StepFinished>,
    /// Passed back as the first argument of the callbacks.
    pub component_environment: ComponentEnvironment,
}

/// `fmi2EventInfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventInfo {
    /// Another event iteration is needed.
    pub new_discrete_states_needed: Boolean,
    /// The FMU asks to end the simulation.
    pub terminate_simulation: Boolean,
    /// The nominals of the continuous states changed.
    pub nominals_of_continuous_states_changed: Boolean,
    /// The continuous states were re-initialized.
    pub values_of_continuous_states_changed: Boolean,
    /// Whether `next_event_time` holds a time event.
    pub next_event_time_defined: Boolean,
    /// The next time event.
    pub next_event_time: Real,
}

/// `fmi2GetTypesPlatformTYPE` and `fmi2GetVersionTYPE`.
pub type GetText = unsafe extern "C" fn() -> *const c_char;
/// `fmi2SetDebugLoggingTYPE`.
pub type SetDebugLogging =
    unsafe extern "C" fn(Component, Boolean, usize, *const FmiString) -> Status;
/// `fmi2InstantiateTYPE`.
pub type Instantiate = unsafe extern "C" fn(
    FmiString,
    FmuType,
    FmiString,
    FmiString,
    *const CallbackFunctions,
    Boolean,
    Boolean,
) -> Component;
/// `fmi2FreeInstanceTYPE`.
pub type FreeInstance = unsafe extern "C" fn(Component);
/// `fmi2SetupExperimentTYPE`.
pub type SetupExperiment =
    unsafe extern "C" fn(Component, Boolean, Real, Real, Boolean, Real) -> Status;
/// The functions that take only the instance: `fmi2EnterInitializationModeTYPE`,
/// `fmi2ExitInitializationModeTYPE`, `fmi2TerminateTYPE`, `fmi2ResetTYPE`,
/// `fmi2EnterEventModeTYPE`, `fmi2EnterContinuousTimeModeTYPE`, `fmi2CancelStepTYPE`.
pub type ComponentCall = unsafe extern "C" fn(Component) -> Status;
/// `fmi2GetRealTYPE`, `fmi2GetIntegerTYPE`, `fmi2GetBooleanTYPE`, `fmi2GetStringTYPE` for the
/// C value type `T`.
pub type Getter<T> =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *mut T) -> Status;
/// `fmi2SetRealTYPE`, `fmi2SetIntegerTYPE`, `fmi2SetBooleanTYPE`, `fmi2SetStringTYPE` for the
/// C value type `T`.
pub type Setter<T> =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *const T) -> Status;
/// `fmi2GetFMUstateTYPE` and `fmi2FreeFMUstateTYPE`.
pub type FmuStateCall = unsafe extern "C" fn(Component, *mut FmuState) -> Status;
/// `fmi2SetFMUstateTYPE`.
pub type SetFmuState = unsafe extern "C" fn(Component, FmuState) -> Status;
/// `fmi2SerializedFMUstateSizeTYPE`.
pub type SerializedFmuStateSize = unsafe extern "C" fn(Component, FmuState, *mut usize) -> Status;
/// `fmi2SerializeFMUstateTYPE`.
pub type SerializeFmuState = unsafe extern "C" fn(Component, FmuState, *mut Byte, usize) -> Status;
/// `fmi2DeSerializeFMUstateTYPE`.
pub type DeserializeFmuState =
    unsafe extern "C" fn(Component, *const Byte, usize, *mut FmuState) -> Status;
/// `fmi2GetDirectionalDerivativeTYPE`.
pub type GetDirectionalDerivative = unsafe extern "C" fn(
    Component,
    *const ValueReference,
    usize,
    *const ValueReference,
    usize,
    *const Real,
    *mut Real,
) -> Status;
/// `fmi2NewDiscreteStatesTYPE`.
pub type NewDiscreteStates = unsafe extern "C" fn(Component, *mut EventInfo) -> Status;
/// `fmi2CompletedIntegratorStepTYPE`.
pub type CompletedIntegratorStep =
    unsafe extern "C" fn(Component, Boolean, *mut Boolean, *mut Boolean) -> Status;
/// `fmi2SetTimeTYPE`.
pub type SetTime = unsafe extern "C" fn(Component, Real) -> Status;
/// `fmi2SetContinuousStatesTYPE`.
pub type SetContinuousStates = unsafe extern "C" fn(Component, *const Real, usize) -> Status;
/// The functions that fill an array of reals: `fmi2GetDerivativesTYPE`,
/// `fmi2GetEventIndicatorsTYPE`, `fmi2GetContinuousStatesTYPE`,
/// `fmi2GetNominalsOfContinuousStatesTYPE`.
pub type RealArray = unsafe extern "C" fn(Component, *mut Real, usize) -> Status;
/// `fmi2SetRealInputDerivativesTYPE`.
pub type SetRealInputDerivatives = unsafe extern "C" fn(
    Component,
    *const ValueReference,
    usize,
    *const Integer,
    *const Real,
) -> Status;
/// `fmi2GetRealOutputDerivativesTYPE`.
pub type GetRealOutputDerivatives = unsafe extern "C" fn(
    Component,
    *const ValueReference,
    usize,
    *const Integer,
    *mut Real,
) -> Status;
/// `fmi2DoStepTYPE`.
pub type DoStep = unsafe extern "C" fn(Component, Real, Real, Boolean) -> Status;
/// `fmi2GetStatusTYPE`, `fmi2GetRealStatusTYPE`, `fmi2GetIntegerStatusTYPE`,
/// `fmi2GetBooleanStatusTYPE`, `fmi2GetStringStatusTYPE` for the C value type `T`.
pub type GetStatus<T> = unsafe extern "C" fn(Component, StatusKind, *mut T) -> Status;
