//! FMI 2.0 Model Exchange functions.

use crate::ffi::{self, arrays, call, with_instance, Access, Standard};
use crate::fmi2::types::*;
use crate::instance::lifecycle::Kind;
use crate::instance::Instance;
use crate::system::System;

/// fmi2EnterEventMode.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn enter_event_mode<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2EnterEventMode", Access::Normal, Instance::enter_event_mode) }
}

/// fmi2NewDiscreteStates.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `event_info` a valid pointer.
pub unsafe fn new_discrete_states<S: System>(
    c: Fmi2Component,
    event_info: *mut Fmi2EventInfo,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        inst.expect_kind(Kind::ModelExchange)?;
        // SAFETY: `event_info` points to the host's struct (FMI 2.0 contract).
        let out = unsafe { arrays::out_param(event_info, "fmi2eventInfo")? };
        let info = inst.update_discrete_states()?;
        *out = Fmi2EventInfo {
            new_discrete_states_needed: Fmi2::boolean(info.discrete_states_need_update),
            terminate_simulation: Fmi2::boolean(info.terminate_simulation),
            nominals_of_continuous_states_changed: Fmi2::boolean(info.nominals_changed),
            values_of_continuous_states_changed: Fmi2::boolean(info.values_changed),
            next_event_time_defined: Fmi2::boolean(info.next_event_time.is_some()),
            next_event_time: info.next_event_time.unwrap_or(0.0),
        };
        Ok(())
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2NewDiscreteStates", Access::Normal, body) }
}

/// fmi2EnterContinuousTimeMode.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn enter_continuous_time_mode<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        call::<S, Fmi2>(
            c,
            "fmi2EnterContinuousTimeMode",
            Access::Normal,
            Instance::enter_continuous_time_mode,
        )
    }
}

/// fmi2CompletedIntegratorStep.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; the out-pointers valid.
pub unsafe fn completed_integrator_step<S: System>(
    c: Fmi2Component,
    _no_set_fmu_state_prior: Fmi2Boolean,
    enter_event_mode: *mut Fmi2Boolean,
    terminate_simulation: *mut Fmi2Boolean,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: both point to the host's booleans (FMI 2.0 contract).
        let (enter, terminate) = unsafe {
            (
                arrays::out_param(enter_event_mode, "enterEventMode")?,
                arrays::out_param(terminate_simulation, "terminateSimulation")?,
            )
        };
        *enter = Fmi2::boolean(inst.completed_integrator_step()?);
        *terminate = FMI2_FALSE;
        Ok(())
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2CompletedIntegratorStep", Access::Normal, body) }
}

/// fmi2SetTime.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn set_time<S: System>(c: Fmi2Component, time: Fmi2Real) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(
            c,
            "fmi2SetTime",
            Access::Normal,
            format_args!("time = {time}"),
            |i| i.set_time(time),
        )
    }
}

/// fmi2SetContinuousStates.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `x` an array of `nx` elements.
pub unsafe fn set_continuous_states<S: System>(
    c: Fmi2Component,
    x: *const Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `x` holds `nx` reals (FMI 2.0 contract).
        inst.set_continuous_states(unsafe { arrays::input(x, nx, "x")? })
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(
            c,
            "fmi2SetContinuousStates",
            Access::Normal,
            format_args!("nx = {nx}"),
            body,
        )
    }
}

/// fmi2GetDerivatives.
///
/// # Safety
/// As for [`set_continuous_states`], with `derivatives` writable.
pub unsafe fn get_derivatives<S: System>(
    c: Fmi2Component,
    derivatives: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi2>(
            c,
            "fmi2GetDerivatives",
            derivatives,
            nx,
            Instance::get_derivatives,
        )
    }
}

/// fmi2GetEventIndicators.
///
/// # Safety
/// As for [`get_derivatives`].
pub unsafe fn get_event_indicators<S: System>(
    c: Fmi2Component,
    indicators: *mut Fmi2Real,
    ni: usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi2>(
            c,
            "fmi2GetEventIndicators",
            indicators,
            ni,
            Instance::get_event_indicators,
        )
    }
}

/// fmi2GetContinuousStates.
///
/// # Safety
/// As for [`get_derivatives`].
pub unsafe fn get_continuous_states<S: System>(
    c: Fmi2Component,
    x: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi2>(
            c,
            "fmi2GetContinuousStates",
            x,
            nx,
            Instance::get_continuous_states,
        )
    }
}

/// fmi2GetNominalsOfContinuousStates.
///
/// # Safety
/// As for [`get_derivatives`].
pub unsafe fn get_nominals_of_continuous_states<S: System>(
    c: Fmi2Component,
    nominals: *mut Fmi2Real,
    nx: usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        ffi::fill_reals::<S, Fmi2>(
            c,
            "fmi2GetNominalsOfContinuousStates",
            nominals,
            nx,
            Instance::get_nominals,
        )
    }
}
