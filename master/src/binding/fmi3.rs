//! The C types of FMI 3.0 (fmi3PlatformTypes.h, fmi3FunctionTypes.h) and the table of
//! function pointers resolved from a binary.

use std::ffi::{c_char, c_int, c_void};

use super::SharedLibrary;
use crate::error::Error;
use crate::model_description::InterfaceType;

/// `fmi3Instance`.
pub type Instance = *mut c_void;
/// `fmi3InstanceEnvironment`.
pub type InstanceEnvironment = *mut c_void;
/// `fmi3FMUState`.
pub type FmuState = *mut c_void;
/// `fmi3ValueReference`.
pub type ValueReference = u32;
/// `fmi3Boolean` (C `bool`), passed as a byte so that a value other than 0/1 is no UB.
pub type Boolean = u8;
/// `fmi3String`.
pub type FmiString = *const c_char;
/// `fmi3Byte`.
pub type Byte = u8;
/// `fmi3Binary`.
pub type Binary = *const Byte;
/// `fmi3Clock` (C `bool`).
pub type Clock = u8;
/// `fmi3Status`, kept as an integer so that an out-of-range value is no UB.
pub type Status = c_int;
/// `fmi3IntervalQualifier`.
pub type IntervalQualifier = c_int;
/// `fmi3DependencyKind`.
pub type DependencyKind = c_int;

/// `fmi3OK`.
pub const OK: Status = 0;
/// `fmi3Warning`.
pub const WARNING: Status = 1;
/// `fmi3Discard`.
pub const DISCARD: Status = 2;
/// `fmi3Error`.
pub const ERROR: Status = 3;
/// `fmi3Fatal`.
pub const FATAL: Status = 4;

/// `fmi3IntervalNotYetKnown`: a countdown clock's next interval is not known yet.
pub const INTERVAL_NOT_YET_KNOWN: IntervalQualifier = 0;
/// `fmi3IntervalUnchanged`: the interval last reported still holds.
pub const INTERVAL_UNCHANGED: IntervalQualifier = 1;
/// `fmi3IntervalChanged`: a new interval, to schedule (or re-schedule) the clock by.
pub const INTERVAL_CHANGED: IntervalQualifier = 2;

/// `fmi3LogMessageCallback`.
pub type LogMessageCallback =
    unsafe extern "C" fn(InstanceEnvironment, Status, FmiString, FmiString);
/// `fmi3IntermediateUpdateCallback`.
pub type IntermediateUpdateCallback = unsafe extern "C" fn(
    InstanceEnvironment,
    f64,
    Boolean,
    Boolean,
    Boolean,
    Boolean,
    *mut Boolean,
    *mut f64,
);
/// `fmi3ClockUpdateCallback`.
pub type ClockUpdateCallback = unsafe extern "C" fn(InstanceEnvironment);
/// `fmi3LockPreemptionCallback` and `fmi3UnlockPreemptionCallback`.
pub type PreemptionCallback = unsafe extern "C" fn();

/// `fmi3Get<Type>` for a C value type `T`.
pub type Getter<T> =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut T, usize) -> Status;
/// `fmi3Set<Type>` for a C value type `T`.
pub type Setter<T> =
    unsafe extern "C" fn(Instance, *const ValueReference, usize, *const T, usize) -> Status;

/// Getter and setter of one value type.
pub struct Accessors<T> {
    /// `fmi3Get<Type>`.
    pub get: Getter<T>,
    /// `fmi3Set<Type>`.
    pub set: Setter<T>,
}

/// A function that takes only the instance.
pub type InstanceCall = unsafe extern "C" fn(Instance) -> Status;
type Float64Array = unsafe extern "C" fn(Instance, *mut f64, usize) -> Status;
/// `fmi3GetDirectionalDerivative` and `fmi3GetAdjointDerivative` (and the adjoint extension's
/// `tandemGetJacobianAdjointDerivative`) share this signature.
pub type DerivativeFunction = unsafe extern "C" fn(
    Instance,
    *const ValueReference,
    usize,
    *const ValueReference,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
) -> Status;
/// `fmi3UpdateDiscreteStates`.
pub type UpdateDiscreteStates = unsafe extern "C" fn(
    Instance,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut Boolean,
    *mut f64,
) -> Status;

/// Functions every FMI 3.0 binary exports.
pub struct CommonFunctions {
    /// `fmi3GetVersion`.
    pub get_version: unsafe extern "C" fn() -> *const c_char,
    /// `fmi3SetDebugLogging`.
    pub set_debug_logging:
        unsafe extern "C" fn(Instance, Boolean, usize, *const FmiString) -> Status,
    /// `fmi3FreeInstance`.
    pub free_instance: unsafe extern "C" fn(Instance),
    /// `fmi3EnterInitializationMode`.
    pub enter_initialization_mode:
        unsafe extern "C" fn(Instance, Boolean, f64, f64, Boolean, f64) -> Status,
    /// `fmi3ExitInitializationMode`.
    pub exit_initialization_mode: InstanceCall,
    /// `fmi3EnterConfigurationMode` (optional here: FMUs without structural parameters
    /// made by some tools leave it out).
    pub enter_configuration_mode: Option<InstanceCall>,
    /// `fmi3ExitConfigurationMode`.
    pub exit_configuration_mode: Option<InstanceCall>,
    /// `fmi3EnterEventMode`.
    pub enter_event_mode: InstanceCall,
    /// `fmi3Terminate`.
    pub terminate: InstanceCall,
    /// `fmi3Reset`.
    pub reset: InstanceCall,
    /// Float32 access.
    pub float32: Accessors<f32>,
    /// Float64 access.
    pub float64: Accessors<f64>,
    /// Int8 access.
    pub int8: Accessors<i8>,
    /// UInt8 access.
    pub uint8: Accessors<u8>,
    /// Int16 access.
    pub int16: Accessors<i16>,
    /// UInt16 access.
    pub uint16: Accessors<u16>,
    /// Int32 access.
    pub int32: Accessors<i32>,
    /// UInt32 access.
    pub uint32: Accessors<u32>,
    /// Int64 access.
    pub int64: Accessors<i64>,
    /// UInt64 access.
    pub uint64: Accessors<u64>,
    /// Boolean access.
    pub boolean: Accessors<Boolean>,
    /// String access.
    pub string: Accessors<FmiString>,
    /// `fmi3GetBinary`.
    pub get_binary: unsafe extern "C" fn(
        Instance,
        *const ValueReference,
        usize,
        *mut usize,
        *mut Binary,
        usize,
    ) -> Status,
    /// `fmi3SetBinary`.
    pub set_binary: unsafe extern "C" fn(
        Instance,
        *const ValueReference,
        usize,
        *const usize,
        *const Binary,
        usize,
    ) -> Status,
}

/// Clock functions (FMUs with clocks).
pub struct ClockFunctions {
    /// `fmi3GetClock`.
    pub get_clock:
        unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut Clock) -> Status,
    /// `fmi3SetClock`.
    pub set_clock:
        unsafe extern "C" fn(Instance, *const ValueReference, usize, *const Clock) -> Status,
    /// `fmi3GetIntervalDecimal`.
    pub get_interval_decimal: Option<
        unsafe extern "C" fn(
            Instance,
            *const ValueReference,
            usize,
            *mut f64,
            *mut IntervalQualifier,
        ) -> Status,
    >,
    /// `fmi3SetIntervalDecimal`.
    pub set_interval_decimal:
        Option<unsafe extern "C" fn(Instance, *const ValueReference, usize, *const f64) -> Status>,
    /// `fmi3GetShiftDecimal`.
    pub get_shift_decimal:
        Option<unsafe extern "C" fn(Instance, *const ValueReference, usize, *mut f64) -> Status>,
}

/// FMU state functions (`canGetAndSetFMUState`, `canSerializeFMUState`).
pub struct StateFunctions {
    /// `fmi3GetFMUState`.
    pub get: unsafe extern "C" fn(Instance, *mut FmuState) -> Status,
    /// `fmi3SetFMUState`.
    pub set: unsafe extern "C" fn(Instance, FmuState) -> Status,
    /// `fmi3FreeFMUState`.
    pub free: unsafe extern "C" fn(Instance, *mut FmuState) -> Status,
    /// `fmi3SerializedFMUStateSize`.
    pub serialized_size: Option<unsafe extern "C" fn(Instance, FmuState, *mut usize) -> Status>,
    /// `fmi3SerializeFMUState`.
    pub serialize: Option<unsafe extern "C" fn(Instance, FmuState, *mut Byte, usize) -> Status>,
    /// `fmi3DeserializeFMUState`.
    pub deserialize:
        Option<unsafe extern "C" fn(Instance, *const Byte, usize, *mut FmuState) -> Status>,
}

/// Model Exchange functions.
pub struct ModelExchangeFunctions {
    /// `fmi3InstantiateModelExchange`.
    pub instantiate: unsafe extern "C" fn(
        FmiString,
        FmiString,
        FmiString,
        Boolean,
        Boolean,
        InstanceEnvironment,
        Option<LogMessageCallback>,
    ) -> Instance,
    /// `fmi3EnterContinuousTimeMode`.
    pub enter_continuous_time_mode: InstanceCall,
    /// `fmi3CompletedIntegratorStep`.
    pub completed_integrator_step:
        unsafe extern "C" fn(Instance, Boolean, *mut Boolean, *mut Boolean) -> Status,
    /// `fmi3SetTime`.
    pub set_time: unsafe extern "C" fn(Instance, f64) -> Status,
    /// `fmi3SetContinuousStates`.
    pub set_continuous_states: unsafe extern "C" fn(Instance, *const f64, usize) -> Status,
    /// `fmi3GetContinuousStateDerivatives`.
    pub get_continuous_state_derivatives: Float64Array,
    /// `fmi3GetEventIndicators`.
    pub get_event_indicators: Float64Array,
    /// `fmi3GetContinuousStates`.
    pub get_continuous_states: Float64Array,
    /// `fmi3GetNominalsOfContinuousStates`.
    pub get_nominals_of_continuous_states: Float64Array,
    /// `fmi3GetNumberOfEventIndicators`.
    pub get_number_of_event_indicators: unsafe extern "C" fn(Instance, *mut usize) -> Status,
    /// `fmi3GetNumberOfContinuousStates`.
    pub get_number_of_continuous_states: unsafe extern "C" fn(Instance, *mut usize) -> Status,
}

/// Co-Simulation functions.
pub struct CoSimulationFunctions {
    /// `fmi3InstantiateCoSimulation`.
    pub instantiate: unsafe extern "C" fn(
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
    ) -> Instance,
    /// `fmi3EnterStepMode`.
    pub enter_step_mode: Option<InstanceCall>,
    /// `fmi3GetOutputDerivatives`.
    pub get_output_derivatives: Option<
        unsafe extern "C" fn(
            Instance,
            *const ValueReference,
            usize,
            *const i32,
            *mut f64,
            usize,
        ) -> Status,
    >,
    /// `fmi3DoStep`.
    pub do_step: unsafe extern "C" fn(
        Instance,
        f64,
        f64,
        Boolean,
        *mut Boolean,
        *mut Boolean,
        *mut Boolean,
        *mut f64,
    ) -> Status,
}

/// Scheduled Execution functions.
pub struct ScheduledExecutionFunctions {
    /// `fmi3InstantiateScheduledExecution`.
    pub instantiate: unsafe extern "C" fn(
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
    ) -> Instance,
    /// `fmi3ActivateModelPartition`.
    pub activate_model_partition: unsafe extern "C" fn(Instance, ValueReference, f64) -> Status,
}

/// `tandemStepJvp` (docs/adjoint-extension.md).
pub type StepJvp = unsafe extern "C" fn(
    Instance,
    f64,
    *const f64,
    usize,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    *mut f64,
    usize,
) -> Status;
/// `tandemStepVjp`.
pub type StepVjp = unsafe extern "C" fn(
    Instance,
    f64,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Status;
/// `tandemInitializationVjp`.
pub type InitializationVjp = unsafe extern "C" fn(
    Instance,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Status;
/// `tandemOutputVjp`.
pub type OutputVjp = unsafe extern "C" fn(
    Instance,
    *const f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Status;

/// The functions of the adjoint extension `org.tandem.adjoint`, each `None` when the binary
/// does not export it.
pub struct AdjointFunctions {
    /// `tandemGetStateSize`.
    pub get_state_size: Option<unsafe extern "C" fn(Instance, *mut usize) -> Status>,
    /// `tandemGetState`.
    pub get_state: Option<unsafe extern "C" fn(Instance, *mut f64, usize) -> Status>,
    /// `tandemStepJvp`.
    pub step_jvp: Option<StepJvp>,
    /// `tandemStepVjp`.
    pub step_vjp: Option<StepVjp>,
    /// `tandemInitializationVjp`.
    pub initialization_vjp: Option<InitializationVjp>,
    /// `tandemOutputVjp`.
    pub output_vjp: Option<OutputVjp>,
    /// `tandemKeepStepLinearizations` (capability `keepStepLinearizations`).
    pub keep_step_linearizations: Option<unsafe extern "C" fn(Instance, usize) -> Status>,
    /// `tandemGetJacobianAdjointDerivative` (capability `jacobianAdjointDerivative`).
    pub jacobian_adjoint_derivative: Option<DerivativeFunction>,
}

/// An FMI 3.0 binary with its functions for one interface.
pub struct Binding {
    /// Functions of every FMU.
    pub common: CommonFunctions,
    /// Clock functions, when exported.
    pub clocks: Option<ClockFunctions>,
    /// FMU state functions, when all of get/set/free are exported.
    pub state: Option<StateFunctions>,
    /// `fmi3GetDirectionalDerivative`, when exported.
    pub get_directional_derivative: Option<DerivativeFunction>,
    /// `fmi3GetAdjointDerivative`, when exported.
    pub get_adjoint_derivative: Option<DerivativeFunction>,
    /// `fmi3UpdateDiscreteStates` (mandatory for Model Exchange).
    pub update_discrete_states: Option<UpdateDiscreteStates>,
    /// `fmi3EvaluateDiscreteStates`, when exported.
    pub evaluate_discrete_states: Option<InstanceCall>,
    /// Model Exchange functions (loaded for [`InterfaceType::ModelExchange`]).
    pub model_exchange: Option<ModelExchangeFunctions>,
    /// Co-Simulation functions (loaded for [`InterfaceType::CoSimulation`]).
    pub co_simulation: Option<CoSimulationFunctions>,
    /// Scheduled Execution functions (loaded for [`InterfaceType::ScheduledExecution`]).
    pub scheduled_execution: Option<ScheduledExecutionFunctions>,
    /// The adjoint extension's functions.
    pub adjoint: AdjointFunctions,
    /// Keeps the function pointers valid; dropped after them.
    pub library: SharedLibrary,
}

/// Resolves `fmi3Get<name>` and `fmi3Set<name>`.
///
/// # Safety
/// `T` must be the C value type of `name`.
unsafe fn accessors<T>(lib: &SharedLibrary, name: &str) -> Result<Accessors<T>, Error> {
    // SAFETY: the caller guarantees T; Getter/Setter follow fmi3FunctionTypes.h.
    unsafe {
        Ok(Accessors {
            get: lib.required(&format!("fmi3Get{name}"))?,
            set: lib.required(&format!("fmi3Set{name}"))?,
        })
    }
}

impl Binding {
    /// Resolves every function of `interface` from `library`.
    pub fn resolve(library: SharedLibrary, interface: InterfaceType) -> Result<Self, Error> {
        let lib = &library;
        // SAFETY: every type below is transcribed from fmi3FunctionTypes.h (the tandem*
        // functions from docs/adjoint-extension.md) for the named symbol.
        unsafe {
            let common = CommonFunctions {
                get_version: lib.required("fmi3GetVersion")?,
                set_debug_logging: lib.required("fmi3SetDebugLogging")?,
                free_instance: lib.required("fmi3FreeInstance")?,
                enter_initialization_mode: lib.required("fmi3EnterInitializationMode")?,
                exit_initialization_mode: lib.required("fmi3ExitInitializationMode")?,
                enter_configuration_mode: lib.optional("fmi3EnterConfigurationMode"),
                exit_configuration_mode: lib.optional("fmi3ExitConfigurationMode"),
                enter_event_mode: lib.required("fmi3EnterEventMode")?,
                terminate: lib.required("fmi3Terminate")?,
                reset: lib.required("fmi3Reset")?,
                float32: accessors(lib, "Float32")?,
                float64: accessors(lib, "Float64")?,
                int8: accessors(lib, "Int8")?,
                uint8: accessors(lib, "UInt8")?,
                int16: accessors(lib, "Int16")?,
                uint16: accessors(lib, "UInt16")?,
                int32: accessors(lib, "Int32")?,
                uint32: accessors(lib, "UInt32")?,
                int64: accessors(lib, "Int64")?,
                uint64: accessors(lib, "UInt64")?,
                boolean: accessors(lib, "Boolean")?,
                string: accessors(lib, "String")?,
                get_binary: lib.required("fmi3GetBinary")?,
                set_binary: lib.required("fmi3SetBinary")?,
            };
            let clocks = match (lib.optional("fmi3GetClock"), lib.optional("fmi3SetClock")) {
                (Some(get_clock), Some(set_clock)) => Some(ClockFunctions {
                    get_clock,
                    set_clock,
                    get_interval_decimal: lib.optional("fmi3GetIntervalDecimal"),
                    set_interval_decimal: lib.optional("fmi3SetIntervalDecimal"),
                    get_shift_decimal: lib.optional("fmi3GetShiftDecimal"),
                }),
                _ => None,
            };
            let state = match (
                lib.optional("fmi3GetFMUState"),
                lib.optional("fmi3SetFMUState"),
                lib.optional("fmi3FreeFMUState"),
            ) {
                (Some(get), Some(set), Some(free)) => Some(StateFunctions {
                    get,
                    set,
                    free,
                    serialized_size: lib.optional("fmi3SerializedFMUStateSize"),
                    serialize: lib.optional("fmi3SerializeFMUState"),
                    deserialize: lib.optional("fmi3DeserializeFMUState"),
                }),
                _ => None,
            };
            let model_exchange = match interface {
                InterfaceType::ModelExchange => Some(ModelExchangeFunctions {
                    instantiate: lib.required("fmi3InstantiateModelExchange")?,
                    enter_continuous_time_mode: lib.required("fmi3EnterContinuousTimeMode")?,
                    completed_integrator_step: lib.required("fmi3CompletedIntegratorStep")?,
                    set_time: lib.required("fmi3SetTime")?,
                    set_continuous_states: lib.required("fmi3SetContinuousStates")?,
                    get_continuous_state_derivatives: lib
                        .required("fmi3GetContinuousStateDerivatives")?,
                    get_event_indicators: lib.required("fmi3GetEventIndicators")?,
                    get_continuous_states: lib.required("fmi3GetContinuousStates")?,
                    get_nominals_of_continuous_states: lib
                        .required("fmi3GetNominalsOfContinuousStates")?,
                    get_number_of_event_indicators: lib
                        .required("fmi3GetNumberOfEventIndicators")?,
                    get_number_of_continuous_states: lib
                        .required("fmi3GetNumberOfContinuousStates")?,
                }),
                InterfaceType::CoSimulation | InterfaceType::ScheduledExecution => None,
            };
            let co_simulation = match interface {
                InterfaceType::CoSimulation => Some(CoSimulationFunctions {
                    instantiate: lib.required("fmi3InstantiateCoSimulation")?,
                    enter_step_mode: lib.optional("fmi3EnterStepMode"),
                    get_output_derivatives: lib.optional("fmi3GetOutputDerivatives"),
                    do_step: lib.required("fmi3DoStep")?,
                }),
                InterfaceType::ModelExchange | InterfaceType::ScheduledExecution => None,
            };
            let scheduled_execution = match interface {
                InterfaceType::ScheduledExecution => Some(ScheduledExecutionFunctions {
                    instantiate: lib.required("fmi3InstantiateScheduledExecution")?,
                    activate_model_partition: lib.required("fmi3ActivateModelPartition")?,
                }),
                InterfaceType::ModelExchange | InterfaceType::CoSimulation => None,
            };
            let update_discrete_states = match interface {
                InterfaceType::ModelExchange => Some(lib.required("fmi3UpdateDiscreteStates")?),
                InterfaceType::CoSimulation | InterfaceType::ScheduledExecution => {
                    lib.optional("fmi3UpdateDiscreteStates")
                }
            };
            Ok(Binding {
                common,
                clocks,
                state,
                get_directional_derivative: lib.optional("fmi3GetDirectionalDerivative"),
                get_adjoint_derivative: lib.optional("fmi3GetAdjointDerivative"),
                update_discrete_states,
                evaluate_discrete_states: lib.optional("fmi3EvaluateDiscreteStates"),
                model_exchange,
                co_simulation,
                scheduled_execution,
                adjoint: AdjointFunctions {
                    get_state_size: lib.optional("tandemGetStateSize"),
                    get_state: lib.optional("tandemGetState"),
                    step_jvp: lib.optional("tandemStepJvp"),
                    step_vjp: lib.optional("tandemStepVjp"),
                    initialization_vjp: lib.optional("tandemInitializationVjp"),
                    output_vjp: lib.optional("tandemOutputVjp"),
                    keep_step_linearizations: lib.optional("tandemKeepStepLinearizations"),
                    jacobian_adjoint_derivative: lib.optional("tandemGetJacobianAdjointDerivative"),
                },
                library,
            })
        }
    }
}
