//! The C types of FMI 2.0 (fmi2TypesPlatform.h, fmi2FunctionTypes.h) and the table of
//! function pointers resolved from a binary.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::SharedLibrary;
use crate::error::Error;
use crate::model_description::InterfaceType;

/// `fmi2Component`.
pub type Component = *mut c_void;
/// `fmi2ComponentEnvironment`.
pub type ComponentEnvironment = *mut c_void;
/// `fmi2FMUstate`.
pub type FmuState = *mut c_void;
/// `fmi2ValueReference`.
pub type ValueReference = c_uint;
/// `fmi2Real`.
pub type Real = f64;
/// `fmi2Integer`.
pub type Integer = c_int;
/// `fmi2Boolean` (an int; `fmi2True` = 1).
pub type Boolean = c_int;
/// `fmi2String`.
pub type FmiString = *const c_char;
/// `fmi2Byte`.
pub type Byte = c_char;
/// `fmi2Status`, kept as an integer so that an out-of-range value from a faulty FMU is no UB.
pub type Status = c_int;

/// `fmi2OK`.
pub const OK: Status = 0;
/// `fmi2Warning`.
pub const WARNING: Status = 1;
/// `fmi2Discard`.
pub const DISCARD: Status = 2;
/// `fmi2Error`.
pub const ERROR: Status = 3;
/// `fmi2Fatal`.
pub const FATAL: Status = 4;
/// `fmi2Pending`.
pub const PENDING: Status = 5;

/// `fmi2Type`.
pub type FmuType = c_int;
/// `fmi2ModelExchange`.
pub const MODEL_EXCHANGE: FmuType = 0;
/// `fmi2CoSimulation`.
pub const CO_SIMULATION: FmuType = 1;

/// `fmi2StatusKind`.
pub type StatusKind = c_int;
/// `fmi2Terminated`: whether the slave wants to end the simulation.
pub const TERMINATED: StatusKind = 3;
/// `fmi2LastSuccessfulTime`.
pub const LAST_SUCCESSFUL_TIME: StatusKind = 2;

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
pub struct CallbackFunctions {
    /// Log callback.
    pub logger: Option<CallbackLogger>,
    /// calloc-like allocator.
    pub allocate_memory: Option<CallbackAllocateMemory>,
    /// free-like deallocator.
    pub free_memory: Option<CallbackFreeMemory>,
    /// Asynchronous doStep completion (unused: null).
    pub step_finished: Option<StepFinished>,
    /// Passed back as the first logger argument.
    pub component_environment: ComponentEnvironment,
}

/// `fmi2EventInfo`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct EventInfo {
    /// Another event iteration is needed.
    pub new_discrete_states_needed: Boolean,
    /// The FMU asks to end the simulation.
    pub terminate_simulation: Boolean,
    /// The state nominals changed.
    pub nominals_of_continuous_states_changed: Boolean,
    /// The continuous states were re-initialized.
    pub values_of_continuous_states_changed: Boolean,
    /// `next_event_time` is meaningful.
    pub next_event_time_defined: Boolean,
    /// Time of the next time event.
    pub next_event_time: Real,
}

type GetReal = unsafe extern "C" fn(Component, *const ValueReference, usize, *mut Real) -> Status;
type GetInteger =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *mut Integer) -> Status;
type GetBoolean =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *mut Boolean) -> Status;
type GetString =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *mut FmiString) -> Status;
type SetReal = unsafe extern "C" fn(Component, *const ValueReference, usize, *const Real) -> Status;
type SetInteger =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *const Integer) -> Status;
type SetBoolean =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *const Boolean) -> Status;
type SetString =
    unsafe extern "C" fn(Component, *const ValueReference, usize, *const FmiString) -> Status;
type ComponentCall = unsafe extern "C" fn(Component) -> Status;
type RealArray = unsafe extern "C" fn(Component, *mut Real, usize) -> Status;

/// Functions every FMI 2.0 binary exports.
pub struct CommonFunctions {
    /// `fmi2GetTypesPlatform`.
    pub get_types_platform: unsafe extern "C" fn() -> *const c_char,
    /// `fmi2GetVersion`.
    pub get_version: unsafe extern "C" fn() -> *const c_char,
    /// `fmi2SetDebugLogging`.
    pub set_debug_logging:
        unsafe extern "C" fn(Component, Boolean, usize, *const FmiString) -> Status,
    /// `fmi2Instantiate`.
    pub instantiate: unsafe extern "C" fn(
        FmiString,
        FmuType,
        FmiString,
        FmiString,
        *const CallbackFunctions,
        Boolean,
        Boolean,
    ) -> Component,
    /// `fmi2FreeInstance`.
    pub free_instance: unsafe extern "C" fn(Component),
    /// `fmi2SetupExperiment`.
    pub setup_experiment:
        unsafe extern "C" fn(Component, Boolean, Real, Real, Boolean, Real) -> Status,
    /// `fmi2EnterInitializationMode`.
    pub enter_initialization_mode: ComponentCall,
    /// `fmi2ExitInitializationMode`.
    pub exit_initialization_mode: ComponentCall,
    /// `fmi2Terminate`.
    pub terminate: ComponentCall,
    /// `fmi2Reset`.
    pub reset: ComponentCall,
    /// `fmi2GetReal`.
    pub get_real: GetReal,
    /// `fmi2GetInteger`.
    pub get_integer: GetInteger,
    /// `fmi2GetBoolean`.
    pub get_boolean: GetBoolean,
    /// `fmi2GetString`.
    pub get_string: GetString,
    /// `fmi2SetReal`.
    pub set_real: SetReal,
    /// `fmi2SetInteger`.
    pub set_integer: SetInteger,
    /// `fmi2SetBoolean`.
    pub set_boolean: SetBoolean,
    /// `fmi2SetString`.
    pub set_string: SetString,
}

/// FMU state functions (`canGetAndSetFMUstate`, `canSerializeFMUstate`).
pub struct StateFunctions {
    /// `fmi2GetFMUstate`.
    pub get: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    /// `fmi2SetFMUstate`.
    pub set: unsafe extern "C" fn(Component, FmuState) -> Status,
    /// `fmi2FreeFMUstate`.
    pub free: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    /// `fmi2SerializedFMUstateSize`.
    pub serialized_size: Option<unsafe extern "C" fn(Component, FmuState, *mut usize) -> Status>,
    /// `fmi2SerializeFMUstate`.
    pub serialize: Option<unsafe extern "C" fn(Component, FmuState, *mut Byte, usize) -> Status>,
    /// `fmi2DeSerializeFMUstate`.
    pub deserialize:
        Option<unsafe extern "C" fn(Component, *const Byte, usize, *mut FmuState) -> Status>,
}

/// `fmi2GetDirectionalDerivative`.
pub type GetDirectionalDerivative = unsafe extern "C" fn(
    Component,
    *const ValueReference,
    usize,
    *const ValueReference,
    usize,
    *const Real,
    *mut Real,
) -> Status;

/// Model Exchange functions.
pub struct ModelExchangeFunctions {
    /// `fmi2EnterEventMode`.
    pub enter_event_mode: ComponentCall,
    /// `fmi2NewDiscreteStates`.
    pub new_discrete_states: unsafe extern "C" fn(Component, *mut EventInfo) -> Status,
    /// `fmi2EnterContinuousTimeMode`.
    pub enter_continuous_time_mode: ComponentCall,
    /// `fmi2CompletedIntegratorStep`.
    pub completed_integrator_step:
        unsafe extern "C" fn(Component, Boolean, *mut Boolean, *mut Boolean) -> Status,
    /// `fmi2SetTime`.
    pub set_time: unsafe extern "C" fn(Component, Real) -> Status,
    /// `fmi2SetContinuousStates`.
    pub set_continuous_states: unsafe extern "C" fn(Component, *const Real, usize) -> Status,
    /// `fmi2GetDerivatives`.
    pub get_derivatives: RealArray,
    /// `fmi2GetEventIndicators`.
    pub get_event_indicators: RealArray,
    /// `fmi2GetContinuousStates`.
    pub get_continuous_states: RealArray,
    /// `fmi2GetNominalsOfContinuousStates`.
    pub get_nominals_of_continuous_states: RealArray,
}

/// Co-Simulation functions.
pub struct CoSimulationFunctions {
    /// `fmi2DoStep`.
    pub do_step: unsafe extern "C" fn(Component, Real, Real, Boolean) -> Status,
    /// `fmi2CancelStep`.
    pub cancel_step: Option<ComponentCall>,
    /// `fmi2SetRealInputDerivatives`.
    pub set_real_input_derivatives: Option<
        unsafe extern "C" fn(
            Component,
            *const ValueReference,
            usize,
            *const Integer,
            *const Real,
        ) -> Status,
    >,
    /// `fmi2GetRealOutputDerivatives`.
    pub get_real_output_derivatives: Option<
        unsafe extern "C" fn(
            Component,
            *const ValueReference,
            usize,
            *const Integer,
            *mut Real,
        ) -> Status,
    >,
    /// `fmi2GetBooleanStatus`.
    pub get_boolean_status:
        Option<unsafe extern "C" fn(Component, StatusKind, *mut Boolean) -> Status>,
    /// `fmi2GetRealStatus`.
    pub get_real_status: Option<unsafe extern "C" fn(Component, StatusKind, *mut Real) -> Status>,
}

/// An FMI 2.0 binary with its functions for one interface.
pub struct Binding {
    /// Functions of every FMU.
    pub common: CommonFunctions,
    /// FMU state functions, when all of get/set/free are exported.
    pub state: Option<StateFunctions>,
    /// `fmi2GetDirectionalDerivative`, when exported.
    pub get_directional_derivative: Option<GetDirectionalDerivative>,
    /// Model Exchange functions (loaded for [`InterfaceType::ModelExchange`]).
    pub model_exchange: Option<ModelExchangeFunctions>,
    /// Co-Simulation functions (loaded for [`InterfaceType::CoSimulation`]).
    pub co_simulation: Option<CoSimulationFunctions>,
    /// Keeps the function pointers valid; dropped after them.
    pub library: SharedLibrary,
}

impl Binding {
    /// Resolves every function of `interface` from `library`.
    pub fn resolve(library: SharedLibrary, interface: InterfaceType) -> Result<Self, Error> {
        let lib = &library;
        // SAFETY: every type below is transcribed from fmi2FunctionTypes.h for the named symbol.
        unsafe {
            let common = CommonFunctions {
                get_types_platform: lib.required("fmi2GetTypesPlatform")?,
                get_version: lib.required("fmi2GetVersion")?,
                set_debug_logging: lib.required("fmi2SetDebugLogging")?,
                instantiate: lib.required("fmi2Instantiate")?,
                free_instance: lib.required("fmi2FreeInstance")?,
                setup_experiment: lib.required("fmi2SetupExperiment")?,
                enter_initialization_mode: lib.required("fmi2EnterInitializationMode")?,
                exit_initialization_mode: lib.required("fmi2ExitInitializationMode")?,
                terminate: lib.required("fmi2Terminate")?,
                reset: lib.required("fmi2Reset")?,
                get_real: lib.required("fmi2GetReal")?,
                get_integer: lib.required("fmi2GetInteger")?,
                get_boolean: lib.required("fmi2GetBoolean")?,
                get_string: lib.required("fmi2GetString")?,
                set_real: lib.required("fmi2SetReal")?,
                set_integer: lib.required("fmi2SetInteger")?,
                set_boolean: lib.required("fmi2SetBoolean")?,
                set_string: lib.required("fmi2SetString")?,
            };
            let state = match (
                lib.optional("fmi2GetFMUstate"),
                lib.optional("fmi2SetFMUstate"),
                lib.optional("fmi2FreeFMUstate"),
            ) {
                (Some(get), Some(set), Some(free)) => Some(StateFunctions {
                    get,
                    set,
                    free,
                    serialized_size: lib.optional("fmi2SerializedFMUstateSize"),
                    serialize: lib.optional("fmi2SerializeFMUstate"),
                    deserialize: lib.optional("fmi2DeSerializeFMUstate"),
                }),
                _ => None,
            };
            let model_exchange = match interface {
                InterfaceType::ModelExchange => Some(ModelExchangeFunctions {
                    enter_event_mode: lib.required("fmi2EnterEventMode")?,
                    new_discrete_states: lib.required("fmi2NewDiscreteStates")?,
                    enter_continuous_time_mode: lib.required("fmi2EnterContinuousTimeMode")?,
                    completed_integrator_step: lib.required("fmi2CompletedIntegratorStep")?,
                    set_time: lib.required("fmi2SetTime")?,
                    set_continuous_states: lib.required("fmi2SetContinuousStates")?,
                    get_derivatives: lib.required("fmi2GetDerivatives")?,
                    get_event_indicators: lib.required("fmi2GetEventIndicators")?,
                    get_continuous_states: lib.required("fmi2GetContinuousStates")?,
                    get_nominals_of_continuous_states: lib
                        .required("fmi2GetNominalsOfContinuousStates")?,
                }),
                InterfaceType::CoSimulation | InterfaceType::ScheduledExecution => None,
            };
            let co_simulation = match interface {
                InterfaceType::CoSimulation => Some(CoSimulationFunctions {
                    do_step: lib.required("fmi2DoStep")?,
                    cancel_step: lib.optional("fmi2CancelStep"),
                    set_real_input_derivatives: lib.optional("fmi2SetRealInputDerivatives"),
                    get_real_output_derivatives: lib.optional("fmi2GetRealOutputDerivatives"),
                    get_boolean_status: lib.optional("fmi2GetBooleanStatus"),
                    get_real_status: lib.optional("fmi2GetRealStatus"),
                }),
                InterfaceType::ModelExchange | InterfaceType::ScheduledExecution => None,
            };
            Ok(Binding {
                common,
                state,
                get_directional_derivative: lib.optional("fmi2GetDirectionalDerivative"),
                model_exchange,
                co_simulation,
                library,
            })
        }
    }
}
