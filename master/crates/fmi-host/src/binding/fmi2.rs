//! The table of FMI 2.0 function pointers resolved from a binary, typed by the ABI crate's
//! declarations ([`fmi_abi::fmi2`], re-exported here for the instance code).

pub use fmi_abi::fmi2::*;

use super::Error;
use super::SharedLibrary;
use crate::model_description::InterfaceType;

/// Functions every FMI 2.0 binary exports.
pub struct CommonFunctions {
    /// `fmi2GetTypesPlatform`.
    pub get_types_platform: GetText,
    /// `fmi2GetVersion`.
    pub get_version: GetText,
    /// `fmi2SetDebugLogging`.
    pub set_debug_logging: SetDebugLogging,
    /// `fmi2Instantiate`.
    pub instantiate: Instantiate,
    /// `fmi2FreeInstance`.
    pub free_instance: FreeInstance,
    /// `fmi2SetupExperiment`.
    pub setup_experiment: SetupExperiment,
    /// `fmi2EnterInitializationMode`.
    pub enter_initialization_mode: ComponentCall,
    /// `fmi2ExitInitializationMode`.
    pub exit_initialization_mode: ComponentCall,
    /// `fmi2Terminate`.
    pub terminate: ComponentCall,
    /// `fmi2Reset`.
    pub reset: ComponentCall,
    /// `fmi2GetReal`.
    pub get_real: Getter<Real>,
    /// `fmi2GetInteger`.
    pub get_integer: Getter<Integer>,
    /// `fmi2GetBoolean`.
    pub get_boolean: Getter<Boolean>,
    /// `fmi2GetString`.
    pub get_string: Getter<FmiString>,
    /// `fmi2SetReal`.
    pub set_real: Setter<Real>,
    /// `fmi2SetInteger`.
    pub set_integer: Setter<Integer>,
    /// `fmi2SetBoolean`.
    pub set_boolean: Setter<Boolean>,
    /// `fmi2SetString`.
    pub set_string: Setter<FmiString>,
}

/// FMU state functions (`canGetAndSetFMUstate`, `canSerializeFMUstate`).
pub struct StateFunctions {
    /// `fmi2GetFMUstate`.
    pub get: FmuStateCall,
    /// `fmi2SetFMUstate`.
    pub set: SetFmuState,
    /// `fmi2FreeFMUstate`.
    pub free: FmuStateCall,
    /// `fmi2SerializedFMUstateSize`.
    pub serialized_size: Option<SerializedFmuStateSize>,
    /// `fmi2SerializeFMUstate`.
    pub serialize: Option<SerializeFmuState>,
    /// `fmi2DeSerializeFMUstate`.
    pub deserialize: Option<DeserializeFmuState>,
}

/// Model Exchange functions.
pub struct ModelExchangeFunctions {
    /// `fmi2EnterEventMode`.
    pub enter_event_mode: ComponentCall,
    /// `fmi2NewDiscreteStates`.
    pub new_discrete_states: NewDiscreteStates,
    /// `fmi2EnterContinuousTimeMode`.
    pub enter_continuous_time_mode: ComponentCall,
    /// `fmi2CompletedIntegratorStep`.
    pub completed_integrator_step: CompletedIntegratorStep,
    /// `fmi2SetTime`.
    pub set_time: SetTime,
    /// `fmi2SetContinuousStates`.
    pub set_continuous_states: SetContinuousStates,
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
    pub do_step: DoStep,
    /// `fmi2CancelStep`.
    pub cancel_step: Option<ComponentCall>,
    /// `fmi2SetRealInputDerivatives`.
    pub set_real_input_derivatives: Option<SetRealInputDerivatives>,
    /// `fmi2GetRealOutputDerivatives`.
    pub get_real_output_derivatives: Option<GetRealOutputDerivatives>,
    /// `fmi2GetBooleanStatus`.
    pub get_boolean_status: Option<GetStatus<Boolean>>,
    /// `fmi2GetRealStatus`.
    pub get_real_status: Option<GetStatus<Real>>,
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
        // SAFETY: every type below is the ABI crate's declaration of the named symbol.
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
