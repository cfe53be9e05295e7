//! The table of FMI 3.0 function pointers (and the adjoint extension's) resolved from a
//! binary, typed by the ABI crate's declarations ([`fmi_abi::fmi3`] and
//! [`fmi_abi::adjoint`], re-exported here for the instance code).

pub use fmi_abi::adjoint::{
    GetState, GetStateSize, InitializationVjp, KeepStepLinearizations, OutputVjp, StepJvp, StepVjp,
};
pub use fmi_abi::fmi3::*;

use super::Error;
use super::SharedLibrary;
use crate::model_description::InterfaceType;

/// Getter and setter of one value type.
pub struct Accessors<T> {
    /// `fmi3Get<Type>`.
    pub get: Getter<T>,
    /// `fmi3Set<Type>`.
    pub set: Setter<T>,
}

/// Functions every FMI 3.0 binary exports.
pub struct CommonFunctions {
    /// `fmi3GetVersion`.
    pub get_version: GetVersion,
    /// `fmi3SetDebugLogging`.
    pub set_debug_logging: SetDebugLogging,
    /// `fmi3FreeInstance`.
    pub free_instance: FreeInstance,
    /// `fmi3EnterInitializationMode`.
    pub enter_initialization_mode: EnterInitializationMode,
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
    pub get_binary: GetBinary,
    /// `fmi3SetBinary`.
    pub set_binary: SetBinary,
}

/// Clock functions (FMUs with clocks).
pub struct ClockFunctions {
    /// `fmi3GetClock`.
    pub get_clock: GetClock,
    /// `fmi3SetClock`.
    pub set_clock: SetClock,
    /// `fmi3GetIntervalDecimal`.
    pub get_interval_decimal: Option<GetIntervalDecimal>,
    /// `fmi3SetIntervalDecimal`.
    pub set_interval_decimal: Option<SetDecimal>,
    /// `fmi3GetShiftDecimal`.
    pub get_shift_decimal: Option<GetShiftDecimal>,
}

/// FMU state functions (`canGetAndSetFMUState`, `canSerializeFMUState`).
pub struct StateFunctions {
    /// `fmi3GetFMUState`.
    pub get: FmuStateCall,
    /// `fmi3SetFMUState`.
    pub set: SetFmuState,
    /// `fmi3FreeFMUState`.
    pub free: FmuStateCall,
    /// `fmi3SerializedFMUStateSize`.
    pub serialized_size: Option<SerializedFmuStateSize>,
    /// `fmi3SerializeFMUState`.
    pub serialize: Option<SerializeFmuState>,
    /// `fmi3DeserializeFMUState`.
    pub deserialize: Option<DeserializeFmuState>,
}

/// Model Exchange functions.
pub struct ModelExchangeFunctions {
    /// `fmi3InstantiateModelExchange`.
    pub instantiate: InstantiateModelExchange,
    /// `fmi3EnterContinuousTimeMode`.
    pub enter_continuous_time_mode: InstanceCall,
    /// `fmi3CompletedIntegratorStep`.
    pub completed_integrator_step: CompletedIntegratorStep,
    /// `fmi3SetTime`.
    pub set_time: SetTime,
    /// `fmi3SetContinuousStates`.
    pub set_continuous_states: SetContinuousStates,
    /// `fmi3GetContinuousStateDerivatives`.
    pub get_continuous_state_derivatives: Float64Array,
    /// `fmi3GetEventIndicators`.
    pub get_event_indicators: Float64Array,
    /// `fmi3GetContinuousStates`.
    pub get_continuous_states: Float64Array,
    /// `fmi3GetNominalsOfContinuousStates`.
    pub get_nominals_of_continuous_states: Float64Array,
    /// `fmi3GetNumberOfEventIndicators`.
    pub get_number_of_event_indicators: GetCount,
    /// `fmi3GetNumberOfContinuousStates`.
    pub get_number_of_continuous_states: GetCount,
}

/// Co-Simulation functions.
pub struct CoSimulationFunctions {
    /// `fmi3InstantiateCoSimulation`.
    pub instantiate: InstantiateCoSimulation,
    /// `fmi3EnterStepMode`.
    pub enter_step_mode: Option<InstanceCall>,
    /// `fmi3GetOutputDerivatives`.
    pub get_output_derivatives: Option<GetOutputDerivatives>,
    /// `fmi3DoStep`.
    pub do_step: DoStep,
}

/// Scheduled Execution functions.
pub struct ScheduledExecutionFunctions {
    /// `fmi3InstantiateScheduledExecution`.
    pub instantiate: InstantiateScheduledExecution,
    /// `fmi3ActivateModelPartition`.
    pub activate_model_partition: ActivateModelPartition,
}

/// The functions of the adjoint extension `org.tandem.adjoint`, each `None` when the binary
/// does not export it.
pub struct AdjointFunctions {
    /// `tandemGetStateSize`.
    pub get_state_size: Option<GetStateSize>,
    /// `tandemGetState`.
    pub get_state: Option<GetState>,
    /// `tandemStepJvp`.
    pub step_jvp: Option<StepJvp>,
    /// `tandemStepVjp`.
    pub step_vjp: Option<StepVjp>,
    /// `tandemInitializationVjp`.
    pub initialization_vjp: Option<InitializationVjp>,
    /// `tandemOutputVjp`.
    pub output_vjp: Option<OutputVjp>,
    /// `tandemKeepStepLinearizations` (capability `keepStepLinearizations`).
    pub keep_step_linearizations: Option<KeepStepLinearizations>,
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
        // SAFETY: every type below is the ABI crate's declaration of the named symbol.
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
