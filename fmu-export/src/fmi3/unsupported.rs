//! FMI 3.0 functions for features Tandem's FMUs do not declare in their model description:
//! per-element dependencies, configuration mode, clocks and Scheduled Execution. They exist so
//! that hosts can resolve every symbol; each call is an Error with a log line saying why.

use crate::ffi::{call, Access};
use crate::fmi3::types::*;
use crate::instance::outcome::Problem;
use crate::instance::Instance;
use crate::system::System;

const NO_DEPENDENCIES: &str =
    "per-element dependencies are not provided (providesPerElementDependencies = false); use the ModelStructure";
const NO_STRUCTURAL_PARAMETERS: &str =
    "the model has no structural parameters, so there is no configuration mode";
const NO_CLOCKS: &str = "the model declares no clocks";
const NO_EVALUATE: &str =
    "fmi3EvaluateDiscreteStates is not provided (providesEvaluateDiscreteStates = false)";
const NO_SCHEDULED_EXECUTION: &str = "Scheduled Execution is not provided";

/// Defines functions that reject every call with `$reason`; the arguments after the instance
/// are not used.
macro_rules! not_provided {
    ($(
        $(#[$doc:meta])*
        $name:ident = $c_name:literal, $reason:ident, ($($arg:ident: $ty:ty),*);
    )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
        pub unsafe fn $name<S: System>(instance: Fmi3Instance, $($arg: $ty),*) -> Fmi3Status {
            let reject = |_: &mut Instance<S>| Err(Problem::error($reason));
            // SAFETY: the FMI 3.0 contract on `instance`.
            unsafe { call::<S, Fmi3>(instance, $c_name, Access::Normal, reject) }
        }
    )*};
}

not_provided! {
    /// fmi3GetNumberOfVariableDependencies: not provided.
    get_number_of_variable_dependencies = "fmi3GetNumberOfVariableDependencies", NO_DEPENDENCIES,
        (_value_reference: Fmi3ValueReference, _n_dependencies: *mut usize);
    /// fmi3GetVariableDependencies: not provided.
    get_variable_dependencies = "fmi3GetVariableDependencies", NO_DEPENDENCIES, (
        _dependent: Fmi3ValueReference,
        _element_indices_of_dependent: *mut usize,
        _independents: *mut Fmi3ValueReference,
        _element_indices_of_independents: *mut usize,
        _dependency_kinds: *mut Fmi3DependencyKind,
        _n_dependencies: usize
    );
    /// fmi3EnterConfigurationMode: no structural parameters.
    enter_configuration_mode = "fmi3EnterConfigurationMode", NO_STRUCTURAL_PARAMETERS, ();
    /// fmi3ExitConfigurationMode: no structural parameters.
    exit_configuration_mode = "fmi3ExitConfigurationMode", NO_STRUCTURAL_PARAMETERS, ();
    /// fmi3GetIntervalDecimal: no clocks.
    get_interval_decimal = "fmi3GetIntervalDecimal", NO_CLOCKS, (
        _vr: *const Fmi3ValueReference,
        _nvr: usize,
        _intervals: *mut Fmi3Float64,
        _qualifiers: *mut Fmi3IntervalQualifier
    );
    /// fmi3GetIntervalFraction: no clocks.
    get_interval_fraction = "fmi3GetIntervalFraction", NO_CLOCKS, (
        _vr: *const Fmi3ValueReference,
        _nvr: usize,
        _counters: *mut Fmi3UInt64,
        _resolutions: *mut Fmi3UInt64,
        _qualifiers: *mut Fmi3IntervalQualifier
    );
    /// fmi3GetShiftDecimal: no clocks.
    get_shift_decimal = "fmi3GetShiftDecimal", NO_CLOCKS,
        (_vr: *const Fmi3ValueReference, _nvr: usize, _shifts: *mut Fmi3Float64);
    /// fmi3GetShiftFraction: no clocks.
    get_shift_fraction = "fmi3GetShiftFraction", NO_CLOCKS, (
        _vr: *const Fmi3ValueReference,
        _nvr: usize,
        _counters: *mut Fmi3UInt64,
        _resolutions: *mut Fmi3UInt64
    );
    /// fmi3SetIntervalDecimal: no clocks.
    set_interval_decimal = "fmi3SetIntervalDecimal", NO_CLOCKS,
        (_vr: *const Fmi3ValueReference, _nvr: usize, _intervals: *const Fmi3Float64);
    /// fmi3SetIntervalFraction: no clocks.
    set_interval_fraction = "fmi3SetIntervalFraction", NO_CLOCKS, (
        _vr: *const Fmi3ValueReference,
        _nvr: usize,
        _counters: *const Fmi3UInt64,
        _resolutions: *const Fmi3UInt64
    );
    /// fmi3SetShiftDecimal: no clocks.
    set_shift_decimal = "fmi3SetShiftDecimal", NO_CLOCKS,
        (_vr: *const Fmi3ValueReference, _nvr: usize, _shifts: *const Fmi3Float64);
    /// fmi3SetShiftFraction: no clocks.
    set_shift_fraction = "fmi3SetShiftFraction", NO_CLOCKS, (
        _vr: *const Fmi3ValueReference,
        _nvr: usize,
        _counters: *const Fmi3UInt64,
        _resolutions: *const Fmi3UInt64
    );
    /// fmi3EvaluateDiscreteStates: not provided.
    evaluate_discrete_states = "fmi3EvaluateDiscreteStates", NO_EVALUATE, ();
    /// fmi3ActivateModelPartition: Scheduled Execution is not provided.
    activate_model_partition = "fmi3ActivateModelPartition", NO_SCHEDULED_EXECUTION,
        (_clock_reference: Fmi3ValueReference, _activation_time: Fmi3Float64);
}
