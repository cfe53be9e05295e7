//! FMI 3.0 functions for features Tandem's FMUs do not declare in their model description:
//! per-element dependencies, configuration mode, clocks and Scheduled Execution. They exist so
//! that hosts can resolve every symbol; each call is an Error with a log line saying why.

use crate::ffi::{call, Access};
use crate::fmi3::types::*;
use crate::instance::outcome::Problem;
use crate::system::System;

/// Rejects `function` with `reason`.
///
/// # Safety
/// FMI 3.0 contract: `instance` NULL or from an fmi3Instantiate function.
unsafe fn not_provided<S: System>(
    instance: Fmi3Instance,
    function: &str,
    reason: &str,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { call::<S, Fmi3>(instance, function, Access::Normal, |_| Err(Problem::error(reason))) }
}

const NO_DEPENDENCIES: &str =
    "per-element dependencies are not provided (providesPerElementDependencies = false); use the ModelStructure";
const NO_STRUCTURAL_PARAMETERS: &str =
    "the model has no structural parameters, so there is no configuration mode";
const NO_CLOCKS: &str = "the model declares no clocks";
const NO_EVALUATE: &str =
    "fmi3EvaluateDiscreteStates is not provided (providesEvaluateDiscreteStates = false)";
const NO_SCHEDULED_EXECUTION: &str = "Scheduled Execution is not provided";

/// fmi3GetNumberOfVariableDependencies: not provided.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_number_of_variable_dependencies<S: System>(
    instance: Fmi3Instance,
    _value_reference: Fmi3ValueReference,
    _n_dependencies: *mut usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetNumberOfVariableDependencies", NO_DEPENDENCIES) }
}

/// fmi3GetVariableDependencies: not provided.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_variable_dependencies<S: System>(
    instance: Fmi3Instance,
    _dependent: Fmi3ValueReference,
    _element_indices_of_dependent: *mut usize,
    _independents: *mut Fmi3ValueReference,
    _element_indices_of_independents: *mut usize,
    _dependency_kinds: *mut Fmi3DependencyKind,
    _n_dependencies: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetVariableDependencies", NO_DEPENDENCIES) }
}

/// fmi3EnterConfigurationMode: no structural parameters.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn enter_configuration_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3EnterConfigurationMode", NO_STRUCTURAL_PARAMETERS) }
}

/// fmi3ExitConfigurationMode: no structural parameters.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn exit_configuration_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3ExitConfigurationMode", NO_STRUCTURAL_PARAMETERS) }
}

/// fmi3GetIntervalDecimal: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_interval_decimal<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _intervals: *mut Fmi3Float64,
    _qualifiers: *mut Fmi3IntervalQualifier,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetIntervalDecimal", NO_CLOCKS) }
}

/// fmi3GetIntervalFraction: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_interval_fraction<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _counters: *mut Fmi3UInt64,
    _resolutions: *mut Fmi3UInt64,
    _qualifiers: *mut Fmi3IntervalQualifier,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetIntervalFraction", NO_CLOCKS) }
}

/// fmi3GetShiftDecimal: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_shift_decimal<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _shifts: *mut Fmi3Float64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetShiftDecimal", NO_CLOCKS) }
}

/// fmi3GetShiftFraction: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn get_shift_fraction<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _counters: *mut Fmi3UInt64,
    _resolutions: *mut Fmi3UInt64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3GetShiftFraction", NO_CLOCKS) }
}

/// fmi3SetIntervalDecimal: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_interval_decimal<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _intervals: *const Fmi3Float64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3SetIntervalDecimal", NO_CLOCKS) }
}

/// fmi3SetIntervalFraction: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_interval_fraction<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _counters: *const Fmi3UInt64,
    _resolutions: *const Fmi3UInt64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3SetIntervalFraction", NO_CLOCKS) }
}

/// fmi3SetShiftDecimal: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_shift_decimal<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _shifts: *const Fmi3Float64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3SetShiftDecimal", NO_CLOCKS) }
}

/// fmi3SetShiftFraction: no clocks.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_shift_fraction<S: System>(
    instance: Fmi3Instance,
    _vr: *const Fmi3ValueReference,
    _nvr: usize,
    _counters: *const Fmi3UInt64,
    _resolutions: *const Fmi3UInt64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3SetShiftFraction", NO_CLOCKS) }
}

/// fmi3EvaluateDiscreteStates: not provided.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn evaluate_discrete_states<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3EvaluateDiscreteStates", NO_EVALUATE) }
}

/// fmi3ActivateModelPartition: Scheduled Execution is not provided.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn activate_model_partition<S: System>(
    instance: Fmi3Instance,
    _clock_reference: Fmi3ValueReference,
    _activation_time: Fmi3Float64,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { not_provided::<S>(instance, "fmi3ActivateModelPartition", NO_SCHEDULED_EXECUTION) }
}
