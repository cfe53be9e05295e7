//! What Tandem's FMUs provide, in one place: the model-description generators write these
//! flags and the C ABI implements them.

/// Log categories the FMUs understand (name, description).
pub const LOG_CATEGORIES: &[(&str, &str)] = &[
    (
        "logEvents",
        "State, time and step events and the event iteration",
    ),
    ("logStatusWarning", "Calls that return Warning"),
    ("logStatusDiscard", "Calls that return Discard"),
    ("logStatusError", "Calls that return Error, with the reason"),
    ("logStatusFatal", "Calls that return Fatal"),
    ("logCalls", "Every FMI call with its arguments"),
];

/// Highest output derivative order `fmiGetRealOutputDerivatives` / `fmi3GetOutputDerivatives`
/// deliver (first derivatives, exact by dual numbers).
pub const MAX_OUTPUT_DERIVATIVE_ORDER: u32 = 1;

/// Whether the FMU state can be read, restored and serialized.
pub const FMU_STATE: bool = true;

/// Whether directional derivatives are provided (FMI 2.0 and 3.0).
pub const DIRECTIONAL_DERIVATIVES: bool = true;

/// Whether adjoint derivatives are provided (FMI 3.0).
pub const ADJOINT_DERIVATIVES: bool = true;

/// Whether co-simulation accepts any communication step size.
pub const VARIABLE_COMMUNICATION_STEP: bool = true;

/// Whether FMI 2.0 co-simulation accepts input derivatives (`fmi2SetRealInputDerivatives`)
/// and extrapolates inputs with them inside a step.
pub const INTERPOLATE_INPUTS: bool = true;

/// Highest input derivative order FMI 2.0 co-simulation accepts.
pub const MAX_INPUT_DERIVATIVE_ORDER: u32 = 2;

/// Whether the FMUs allocate with Rust's allocator and never call the host's memory
/// callbacks (FMI 2.0 `canNotUseMemoryManagementFunctions`).
pub const OWN_MEMORY_MANAGEMENT: bool = true;

/// Whether Model Exchange hosts must call `fmiCompletedIntegratorStep` after every accepted
/// step (never: the FMUs keep no per-step memory outside the event logic).
pub const NEEDS_COMPLETED_INTEGRATOR_STEP: bool = false;

/// Whether FMI 3.0 co-simulation offers event mode (no: events are handled inside `doStep`).
pub const CO_SIMULATION_EVENT_MODE: bool = false;
