//! FMI 2.0 Model Exchange functions.

use crate::ffi::{arrays, call, model_exchange, Access, Standard};
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
    unsafe {
        call::<S, Fmi2>(
            c,
            "fmi2EnterEventMode",
            Access::Normal,
            Instance::enter_event_mode,
        )
    }
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
    let function = "fmi2CompletedIntegratorStep";
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        model_exchange::completed_integrator_step::<S, Fmi2>(
            c,
            function,
            enter_event_mode,
            terminate_simulation,
        )
    }
}

/// fmi2SetTime.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn set_time<S: System>(c: Fmi2Component, time: Fmi2Real) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { model_exchange::set_time::<S, Fmi2>(c, "fmi2SetTime", time) }
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
    let function = "fmi2SetContinuousStates";
    // SAFETY: the FMI 2.0 contract.
    unsafe { model_exchange::set_continuous_states::<S, Fmi2>(c, function, x, "x", nx) }
}

model_exchange::real_getters! {
    Fmi2, Fmi2Component, Fmi2Status;
    /// fmi2GetDerivatives.
    get_derivatives = "fmi2GetDerivatives", Instance::get_derivatives;
    /// fmi2GetEventIndicators.
    get_event_indicators = "fmi2GetEventIndicators", Instance::get_event_indicators;
    /// fmi2GetContinuousStates.
    get_continuous_states = "fmi2GetContinuousStates", Instance::get_continuous_states;
    /// fmi2GetNominalsOfContinuousStates.
    get_nominals_of_continuous_states = "fmi2GetNominalsOfContinuousStates", Instance::get_nominals;
}
