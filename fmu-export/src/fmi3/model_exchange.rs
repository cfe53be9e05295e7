//! FMI 3.0 Model Exchange functions.

use crate::ffi::{self, arrays, call, with_instance, Access, Standard};
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
        call::<S, Fmi3>(instance, function, Access::Normal, Instance::enter_continuous_time_mode)
    }
}

/// fmi3CompletedIntegratorStep.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; out-pointers valid.
pub unsafe fn completed_integrator_step<S: System>(
    instance: Fmi3Instance,
    _no_set_fmu_state_prior: Fmi3Boolean,
    enter_event_mode: *mut Fmi3Boolean,
    terminate_simulation: *mut Fmi3Boolean,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: both point to the host's booleans (FMI 3.0 contract).
        let (enter, terminate) = unsafe {
            (
                arrays::out_param(enter_event_mode, "enterEventMode")?,
                arrays::out_param(terminate_simulation, "terminateSimulation")?,
            )
        };
        *enter = Fmi3::boolean(inst.completed_integrator_step()?);
        *terminate = FMI3_FALSE;
        Ok(())
    };
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { call::<S, Fmi3>(instance, "fmi3CompletedIntegratorStep", Access::Normal, body) }
}

/// fmi3SetTime.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_time<S: System>(instance: Fmi3Instance, time: Fmi3Float64) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "fmi3SetTime",
            Access::Normal,
            format_args!("time = {time}"),
            |i| i.set_time(time),
        )
    }
}

/// fmi3SetContinuousStates.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `x` an array of `nx`.
pub unsafe fn set_continuous_states<S: System>(
    instance: Fmi3Instance,
    x: *const Fmi3Float64,
    nx: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `x` holds `nx` reals (FMI 3.0 contract).
        inst.set_continuous_states(unsafe { arrays::input(x, nx, "continuousStates")? })
    };
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "fmi3SetContinuousStates",
            Access::Normal,
            format_args!("nx = {nx}"),
            body,
        )
    }
}

/// fmi3GetContinuousStateDerivatives.
///
/// # Safety
/// As for [`set_continuous_states`], with `derivatives` writable.
pub unsafe fn get_continuous_state_derivatives<S: System>(
    instance: Fmi3Instance,
    derivatives: *mut Fmi3Float64,
    nx: usize,
) -> Fmi3Status {
    let function = "fmi3GetContinuousStateDerivatives";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi3>(instance, function, derivatives, nx, Instance::get_derivatives)
    }
}

/// fmi3GetEventIndicators.
///
/// # Safety
/// As for [`get_continuous_state_derivatives`].
pub unsafe fn get_event_indicators<S: System>(
    instance: Fmi3Instance,
    indicators: *mut Fmi3Float64,
    ni: usize,
) -> Fmi3Status {
    let function = "fmi3GetEventIndicators";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi3>(
            instance,
            function,
            indicators,
            ni,
            Instance::get_event_indicators,
        )
    }
}

/// fmi3GetContinuousStates.
///
/// # Safety
/// As for [`get_continuous_state_derivatives`].
pub unsafe fn get_continuous_states<S: System>(
    instance: Fmi3Instance,
    x: *mut Fmi3Float64,
    nx: usize,
) -> Fmi3Status {
    let function = "fmi3GetContinuousStates";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi3>(instance, function, x, nx, Instance::get_continuous_states)
    }
}

/// fmi3GetNominalsOfContinuousStates.
///
/// # Safety
/// As for [`get_continuous_state_derivatives`].
pub unsafe fn get_nominals_of_continuous_states<S: System>(
    instance: Fmi3Instance,
    nominals: *mut Fmi3Float64,
    nx: usize,
) -> Fmi3Status {
    let function = "fmi3GetNominalsOfContinuousStates";
    // SAFETY: the FMI 3.0 contract.
    unsafe { ffi::fill_reals::<S, Fmi3>(instance, function, nominals, nx, Instance::get_nominals) }
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
    unsafe { count::<S>(instance, "fmi3GetNumberOfEventIndicators", n, Instance::indicator_count) }
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
    unsafe { count::<S>(instance, "fmi3GetNumberOfContinuousStates", n, Instance::state_count) }
}
