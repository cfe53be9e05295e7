//! FMI 3.0: the types of `fmi3PlatformTypes.h` and `fmi3FunctionTypes.h`. Each function type
//! is named after its C typedef without the `fmi3` prefix and `TYPE` suffix
//! (`fmi3DoStepTYPE` is [`DoStep`]).

use std::ffi::{c_char, c_int, c_void};

/// `fmi3Instance`: an instance handle.
pub type Instance = *mut c_void;
/// `fmi3InstanceEnvironment`: the host's pointer passed back to its callbacks.
pub type InstanceEnvironment = *mut c_void;
/// `fmi3FMUState`: an FMU state handle.
pub type FmuState = *mut c_void;
/// `fmi3ValueReference`.
pub type ValueReference = u32;
/// `fmi3Float32`.
pub type Float32 = f32;
/// `fmi3Float64`.
pub type Float64 = f64;
/// `fmi3Int8`.
pub type Int8 = i8;
/// `fmi3UInt8`.
pub type UInt8 = u8;
/// `fmi3Int16`.
pub type Int16 = i16;
/// `fmi3UInt16`.
pub type UInt16 = u16;
/// `fmi3Int32`.
pub type Int32 = i32;
/// `fmi3UInt32`.
pub type UInt32 = u32;
/// `fmi3Int64`.
pub type Int64 = i64;
/// `fmi3UInt64`.
pub type UInt64 = u64;
/// `fmi3Boolean` (C `bool`), passed as its byte so that a value other than 0 or 1 from the
/// other side is no undefined behaviour (any non-zero byte is true).
pub type Boolean = u8;
/// `fmi3String`.
pub type FmiString = *const c_char;
/// `fmi3Byte`.
pub type Byte = u8;
/// `fmi3Binary`.
pub type Binary = *const Byte;
/// `fmi3Clock` (C `bool`), as its byte.
pub type Clock = u8;
/// `fmi3IntervalQualifier`, as its integer value.
pub type IntervalQualifier = c_int;
/// `fmi3DependencyKind`, as its integer value.
pub type DependencyKind = c_int;

/// `fmi3True`.
pub const TRUE: Boolean = 1;
/// `fmi3False`.
pub const FALSE: Boolean = 0;

/// `fmi3IntervalNotYetKnown`: a countdown clock's next interval is not known yet.
pub const INTERVAL_NOT_YET_KNOWN: IntervalQualifier = 0;
/// `fmi3IntervalUnchanged`: the interval last reported still holds.
pub const INTERVAL_UNCHANGED: IntervalQualifier = 1;
/// `fmi3IntervalChanged`: a new interval, to schedule (or re-schedule) the clock by.
pub const INTERVAL_CHANGED: IntervalQualifier = 2;

crate::status::status! {
    /// `fmi3Status`.
    "fmi3";
    /// `fmi3OK`.
    Ok = 0, "fmi3OK";
    /// `fmi3Warning`.
    Warning = 1, "fmi3Warning";
    /// `fmi3Discard`.
    Discard = 2, "fmi3Discard";
    /// `fmi3Error`.
    Error = 3, "fmi3Error";
    /// `fmi3Fatal`.
    Fatal = 4, "fmi3Fatal";
}

/// `fmi3LogMessageCallback`.
pub type LogMessageCallback =
    unsafe extern "C" fn(InstanceEnvironment, Status, FmiString, FmiString);
/// `fmi3IntermediateUpdateCallback`.
pub type IntermediateUpdateCallback = unsafe extern "C" fn(
    InstanceEnvironment,
    Float64,
    Boolean,
    Boolean,
    Boolean,
    Boolean,
    *mut Boolean,
    *mut Float64,
);
/// `fmi3ClockUpdateCallback`.
pub type ClockUpdateCallback = unsafe extern "C" fn(InstanceEnvironment);
/// `fmi3LockPreemptionCallback` and `fmi3UnlockPreemptionCallback`.
pub type PreemptionCallback = unsafe extern "C" fn();

/// `fmi3GetVersionTYPE`.
pub type GetVersion = unsafe extern "C" fn() -> *const c_char;
/// `fmi3SetDebugLoggingTYPE`.
pub type SetDebugLogging =
    unsafe extern "C" fn(Instance, Boolean, usize, *const FmiString) -> Status;
/// `fmi3InstantiateModelExchangeTYPE`.
pub type InstantiateModelExchange = unsafe extern "C" fn(
    FmiString,
    FmiString,
    FmiString,
    Boolean,
    Boolean,
    InstanceEnvironment,
    Option<LogMessageCallback>,
) -> Instance;
/// `fmi3InstantiateCoSimulationTYPE`.
pub type InstantiateCoSimulation = unsafe extern "C" fn(
    FmiString,
    FmiString,
    FmiString,
    Boolean,
    Boolean,
    Boolean,
    Boolean,
    *const ValueReference,
    usize,
    InstanceEnvironment,
    Option<LogMessageCallback>,
    Option<IntermediateUpdateCallback>,
) -> Instance;
/// `fmi3InstantiateScheduledExecutionTYPE`.
pub type InstantiateScheduledExecution = unsafe extern "C" fn(
    FmiString,
    FmiString,
    FmiString,
    Boolean,
    Boolean,
    InstanceEnvironment,
    Option<LogMessageCallback>,
    Option<ClockUpdateCallback>,
    Option<PreemptionCallback>,
    Option<PreemptionCallback>,
) -> Instance;
/// `fmi3FreeInstanceTYPE`.
pub type FreeInstance = unsafe extern "C" fn(Instance);
/// `fmi3EnterInitializationModeTYPE`.
pub type EnterInitializationMode =
    unsafe extern "C" fn(Instance, Boolean, Float64, Float64, Boolean, Float64) -> Status;
/// The functions that take only the instance: `fmi3ExitInitializationModeTYPE`,
/// `fmi3EnterEventModeTYPE`, `fmi3TerminateTYPE`, `fmi3ResetTYPE`,
/// `fmi3EnterConfigurationModeTYPE`, `fmi3ExitConfigurationModeTYPE`,
/// `fmi3EvaluateDiscreteStatesTYPE`, `fmi3EnterContinuousTimeModeTYPE`,
/// `fmi3EnterStepModeTYPE`.
pub type InstanceCall = unsafe extern "C" fn(Instance) -> Status;
/// `fmi3Get<Type>TYPE` for the C value type `T`.
pub type Getter<T> =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut T, usize) -> Status;
/// `fmi3Set<Type>TYPE` for the C value type `T`.
pub type Setter<T> =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *const T, usize) -> Status;
/// `fmi3GetBinaryTYPE`.
pub type GetBinary = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *mut usize,
    *mut Binary,
    usize,
) -> Status;
/// `fmi3SetBinaryTYPE`.
pub type SetBinary = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *const usize,
    *const Binary,
    usize,
) -> Status;
/// `fmi3GetClockTYPE`.
pub type GetClock =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut Clock) -> Status;
/// `fmi3SetClockTYPE`.
pub type SetClock =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *const Clock) -> Status;
/// `fmi3GetNumberOfVariableDependenciesTYPE`.
pub type GetNumberOfVariableDependencies =
    unsafe extern "C" fn(Instance, ValueReference, *mut usize) -> Status;
/// `fmi3GetVariableDependenciesTYPE`.
pub type GetVariableDependencies = unsafe extern "C" fn(
    Instance,
    ValueReference,
    *mut usize,
    *mut ValueReference,
    *mut usize,
    *mut DependencyKind,
    usize,
) -> Status;
/// `fmi3GetFMUStateTYPE` and `fmi3FreeFMUStateTYPE`.
pub type FmuStateCall = unsafe extern "C" fn(Instance, *mut FmuState) -> Status;
/// `fmi3SetFMUStateTYPE`.
pub type SetFmuState = unsafe extern "C" fn(Instance, FmuState) -> Status;
/// `fmi3SerializedFMUStateSizeTYPE`.
pub type SerializedFmuStateSize = unsafe extern "C" fn(Instance, FmuState, *mut usize) -> Status;
/// `fmi3SerializeFMUStateTYPE`.
pub type SerializeFmuState = unsafe extern "C" fn(Instance, FmuState, *mut Byte, usize) -> Status;
/// `fmi3DeserializeFMUStateTYPE`.
pub type DeserializeFmuState =
    unsafe extern "C" fn(Instance, *const Byte, usize, *mut FmuState) -> Status;
/// `fmi3GetDirectionalDerivativeTYPE` and `fmi3GetAdjointDerivativeTYPE` (and the adjoint
/// extension's `tandemGetJacobianAdjointDerivative`) share this signature.
pub type DerivativeFunction = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *const ValueReference,
    usize,
    *const Float64,
    usize,
    *mut Float64,
    usize,
) -> Status;
/// `fmi3GetIntervalDecimalTYPE`.
pub type GetIntervalDecimal = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *mut Float64,
    *mut IntervalQualifier,
) -> Status;
/// `fmi3GetIntervalFractionTYPE`.
pub type GetIntervalFraction = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *mut UInt64,
    *mut UInt64,
    *mut IntervalQualifier,
) -> Status;
/// `fmi3GetShiftFractionTYPE`.
pub type GetShiftFraction = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *mut UInt64,
    *mut UInt64,
) -> Status;
/// `fmi3SetIntervalFractionTYPE` and `fmi3SetShiftFractionTYPE`.
pub type SetFraction = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *const UInt64,
    *const UInt64,
) -> Status;
/// `fmi3GetShiftDecimalTYPE`.
pub type GetShiftDecimal =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut Float64) -> Status;
/// `fmi3SetIntervalDecimalTYPE` and `fmi3SetShiftDecimalTYPE`.
pub type SetDecimal =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *const Float64) -> Status;
/// `fmi3UpdateDiscreteStatesTYPE`.
pub type UpdateDiscreteStates = unsafe extern "C" fn(
    Instance,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Float64,
) -> Status;
/// `fmi3CompletedIntegratorStepTYPE`.
pub type CompletedIntegratorStep =
    unsafe extern "C" fn(Instance, Boolean, *mut Boolean, *mut Boolean) -> Status;
/// `fmi3SetTimeTYPE`.
pub type SetTime = unsafe extern "C" fn(Instance, Float64) -> Status;
/// `fmi3SetContinuousStatesTYPE`.
pub type SetContinuousStates = unsafe extern "C" fn(Instance, *const Float64, usize) -> Status;
/// The functions that fill an array of Float64: `fmi3GetContinuousStateDerivativesTYPE`,
/// `fmi3GetEventIndicatorsTYPE`, `fmi3GetContinuousStatesTYPE`,
/// `fmi3GetNominalsOfContinuousStatesTYPE`.
pub type Float64Array = unsafe extern "C" fn(Instance, *mut Float64, usize) -> Status;
/// `fmi3GetNumberOfEventIndicatorsTYPE` and `fmi3GetNumberOfContinuousStatesTYPE`.
pub type GetCount = unsafe extern "C" fn(Instance, *mut usize) -> Status;
/// `fmi3GetOutputDerivativesTYPE`.
pub type GetOutputDerivatives = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *const Int32,
    *mut Float64,
    usize,
) -> Status;
/// `fmi3DoStepTYPE`.
pub type DoStep = unsafe extern "C" fn(
    Instance,
    Float64,
    Float64,
    Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Float64,
) -> Status;
/// `fmi3ActivateModelPartitionTYPE`.
pub type ActivateModelPartition = unsafe extern "C" fn(Instance, ValueReference, Float64) -> Status;
