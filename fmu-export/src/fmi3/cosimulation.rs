//! FMI 3.0 Co-Simulation functions.

use crate::ffi::{arrays, call, references, with_instance, Access, FmiVersion};
use crate::fmi3::types::*;
use crate::instance::Instance;
use crate::system::System;

/// fmi3EnterStepMode (with eventModeUsed).
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn enter_step_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        call::<S, Fmi3>(
            instance,
            "fmi3EnterStepMode",
            Access::Normal,
            Instance::enter_step_mode,
        )
    }
}

/// fmi3GetOutputDerivatives (order 1, exact).
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` and `orders` arrays of
/// `nvr`, `values` of `n_values`.
pub unsafe fn get_output_derivatives<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    orders: *const Fmi3Int32,
    values: *mut Fmi3Float64,
    n_values: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: arrays of the given lengths (FMI 3.0 contract).
        let (vrs, orders, out) = unsafe {
            (
                arrays::input(vr, nvr, "valueReferences")?,
                arrays::input(orders, nvr, "orders")?,
                arrays::output(values, n_values, "values")?,
            )
        };
        references::check_scalars(FmiVersion::Fmi3, inst.table(), vrs)?;
        inst.output_derivatives(vrs, orders, out)
    };
    let args = format_args!("nValueReferences = {nvr}, nValues = {n_values}");
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "fmi3GetOutputDerivatives",
            Access::Normal,
            args,
            body,
        )
    }
}

/// fmi3DoStep. Events inside the step are handled by the integrator, so
/// `eventHandlingNeeded`, `terminateSimulation` and `earlyReturn` are always false;
/// `lastSuccessfulTime` is the end of the step, or its start after a Discard.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; out-pointers valid.
#[allow(clippy::too_many_arguments)]
pub unsafe fn do_step<S: System>(
    instance: Fmi3Instance,
    current_communication_point: Fmi3Float64,
    communication_step_size: Fmi3Float64,
    _no_set_fmu_state_prior: Fmi3Boolean,
    event_handling_needed: *mut Fmi3Boolean,
    terminate_simulation: *mut Fmi3Boolean,
    early_return: *mut Fmi3Boolean,
    last_successful_time: *mut Fmi3Float64,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: all out-pointers point to the host's variables (FMI 3.0 contract).
        let (event, terminate, early, last) = unsafe {
            (
                arrays::out_param(event_handling_needed, "eventHandlingNeeded")?,
                arrays::out_param(terminate_simulation, "terminateSimulation")?,
                arrays::out_param(early_return, "earlyReturn")?,
                arrays::out_param(last_successful_time, "lastSuccessfulTime")?,
            )
        };
        let outcome = inst.do_step(current_communication_point, communication_step_size);
        (*event, *terminate, *early) = (FMI3_FALSE, FMI3_FALSE, FMI3_FALSE);
        *last = inst.last_successful_time();
        outcome
    };
    let args = format_args!(
        "currentCommunicationPoint = {current_communication_point}, communicationStepSize = {communication_step_size}"
    );
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { with_instance::<S, Fmi3>(instance, "fmi3DoStep", Access::Normal, args, body) }
}
