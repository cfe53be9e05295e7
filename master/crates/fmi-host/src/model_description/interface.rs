//! The interfaces an FMU implements (Model Exchange, Co-Simulation, Scheduled Execution)
//! and their capability flags.

/// Capability flags common to all interfaces (FMI 2.0 spellings normalized to FMI 3.0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capabilities {
    /// The binary needs an external tool to run.
    pub needs_execution_tool: bool,
    /// Only one instance per process is possible.
    pub can_be_instantiated_only_once_per_process: bool,
    /// FMI 2.0: the FMU ignores the master's memory callbacks.
    pub can_not_use_memory_management_functions: bool,
    /// FMU state get/set/free are provided.
    pub can_get_and_set_fmu_state: bool,
    /// FMU state serialization is provided.
    pub can_serialize_fmu_state: bool,
    /// Directional derivatives are provided.
    pub provides_directional_derivatives: bool,
    /// FMI 3.0: adjoint derivatives are provided.
    pub provides_adjoint_derivatives: bool,
    /// FMI 3.0: per-element dependencies of arrays are provided.
    pub provides_per_element_dependencies: bool,
    /// FMI 3.0: `fmi3EvaluateDiscreteStates` is provided.
    pub provides_evaluate_discrete_states: bool,
}

/// The Model Exchange interface.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelExchange {
    /// Name of the binary and prefix of the exported functions.
    pub model_identifier: String,
    /// Capability flags.
    pub capabilities: Capabilities,
    /// The master must call completedIntegratorStep after every accepted step
    /// (FMI 2.0 `completedIntegratorStepNotNeeded="false"`, FMI 3.0 `needsCompletedIntegratorStep`).
    pub needs_completed_integrator_step: bool,
}

/// The Co-Simulation interface.
#[derive(Debug, Clone, PartialEq)]
pub struct CoSimulation {
    /// Name of the binary and prefix of the exported functions.
    pub model_identifier: String,
    /// Capability flags.
    pub capabilities: Capabilities,
    /// The communication step may change between steps.
    pub can_handle_variable_communication_step_size: bool,
    /// FMI 2.0: input derivatives are used to interpolate inputs.
    pub can_interpolate_inputs: bool,
    /// Highest order of output derivatives provided.
    pub max_output_derivative_order: u32,
    /// FMI 2.0: doStep may run asynchronously.
    pub can_run_asynchronuously: bool,
    /// FMI 3.0: the internal fixed step size, if any.
    pub fixed_internal_step_size: Option<f64>,
    /// FMI 3.0: recommended smoothness of intermediate inputs.
    pub recommended_intermediate_input_smoothness: i32,
    /// FMI 3.0: the intermediate update callback is used.
    pub provides_intermediate_update: bool,
    /// FMI 3.0: doStep may return early.
    pub might_return_early_from_do_step: bool,
    /// FMI 3.0: early return is possible after an intermediate update.
    pub can_return_early_after_intermediate_update: bool,
    /// FMI 3.0: event mode is supported in co-simulation.
    pub has_event_mode: bool,
}

/// The FMI 3.0 Scheduled Execution interface.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledExecution {
    /// Name of the binary and prefix of the exported functions.
    pub model_identifier: String,
    /// Capability flags.
    pub capabilities: Capabilities,
}

/// Which interface to use when instantiating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterfaceType {
    /// Model Exchange: the master integrates.
    ModelExchange,
    /// Co-Simulation: the FMU steps itself.
    CoSimulation,
    /// Scheduled Execution (FMI 3.0): the master activates the FMU's model partitions at the
    /// ticks of their clocks.
    ScheduledExecution,
}

impl std::fmt::Display for InterfaceType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InterfaceType::ModelExchange => "Model Exchange",
            InterfaceType::CoSimulation => "Co-Simulation",
            InterfaceType::ScheduledExecution => "Scheduled Execution",
        })
    }
}
