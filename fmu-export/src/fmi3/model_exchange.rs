//! FMI 3.0 Model Exchange functions.

use crate::ffi::{arrays, call, model_exchange, Access};
use crate::fmi3::types::*;
use crate::instance::Instance;
use crate::system::System;

/// fmi3EnterContinuousTimeMode.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn enter_continuous_time_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    let function = "fmi3EnterContinuousTimeMode";
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        call::<S, Fmi3>(
            instance,
            function,
            Access::Normal,
            Instance::enter_continuous_time_mode,
        )
    }
}

/// fmi3CompletedIntegratorStep.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; the out-pointers valid.
pub unsafe fn completed_integrator_step<S: System>(
    instance: Fmi3Instance,
    _no_set_fmu_state_prior: Fmi3Boolean,
    enter_event_mode: *mut Fmi3Boolean,
    terminate_simulation: *mut Fmi3Boolean,
) -> Fmi3Status {
    let function = "fmi3CompletedIntegratorStep";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        model_exchange::completed_integrator_step::<S, Fmi3>(
            instance,
            function,
            enter_event_mode,
            terminate_simulation,
        )
    }
}

/// fmi3SetTime.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_time<S: System>(instance: Fmi3Instance, time: Fmi3Float64) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { model_exchange::set_time::<S, Fmi3>(instance, "fmi3SetTime", time) }
}

/// fmi3SetContinuousStates.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `x` an array of `nx` elements.
pub unsafe fn set_continuous_states<S: System>(
    instance: Fmi3Instance,
    x: *const Fmi3Float64,
    nx: usize,
) -> Fmi3Status {
    let function = "fmi3SetContinuousStates";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        model_exchange::set_continuous_states::<S, Fmi3>(
            instance,
            function,
            x,
            "continuousStates",
            nx,
        )
    }
}

model_exchange::real_getters! {
    Fmi3, Fmi3Instance, Fmi3Status;
    /// fmi3GetContinuousStateDerivatives.
    get_continuous_state_derivatives =
        "fmi3GetContinuousStateDerivatives", Instance::get_derivatives;
    /// fmi3GetEventIndicators.
    get_event_indicators = "fmi3GetEventIndicators", Instance::get_event_indicators;
    /// fmi3GetContinuousStates.
    get_continuous_states = "fmi3GetContinuousStates", Instance::get_continuous_states;
    /// fmi3GetNominalsOfContinuousStates.
    get_nominals_of_continuous_states = "fmi3GetNominalsOfContinuousStates", Instance::get_nominals;
}

/// Writes a model dimension to the host's `size_t`.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `out` a valid pointer.
unsafe fn count<S: System>(
    instance: Fmi3Instance,
    function: &str,
    out: *mut usize,
    of: fn(&Instance<S>) -> usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `out` points to the host's size_t (FMI 3.0 contract).
        *unsafe { arrays::out_param(out, "count")? } = of(inst);
        Ok(())
    };
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { call::<S, Fmi3>(instance, function, Access::Normal, body) }
}

/// fmi3GetNumberOfEventIndicators.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `n` a valid pointer.
pub unsafe fn get_number_of_event_indicators<S: System>(
    instance: Fmi3Instance,
    n: *mut usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        count::<S>(
            instance,
            "fmi3GetNumberOfEventIndicators",
            n,
            Instance::indicator_count,
        )
    }
}

/// fmi3GetNumberOfContinuousStates.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `n` a valid pointer.
pub unsafe fn get_number_of_continuous_states<S: System>(
    instance: Fmi3Instance,
    n: *mut usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        count::<S>(
            instance,
            "fmi3GetNumberOfContinuousStates",
            n,
            Instance::state_count,
        )
    }
}
