//! FMI 2.0 Co-Simulation functions.

use crate::ffi::{arrays, call, with_instance, Access};
use crate::fmi2::types::*;
use crate::instance::lifecycle::Kind;
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::System;

/// fmi2SetRealInputDerivatives.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `vr`, `order`, `value` arrays of `nvr` elements.
pub unsafe fn set_real_input_derivatives<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *const Fmi2Real,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: three arrays of `nvr` elements (FMI 2.0 contract).
        let (vrs, orders, values) = unsafe {
            (
                arrays::input(vr, nvr, "vr")?,
                arrays::input(order, nvr, "order")?,
                arrays::input(value, nvr, "value")?,
            )
        };
        inst.set_input_derivatives(vrs, orders, values)
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(
            c,
            "fmi2SetRealInputDerivatives",
            Access::Normal,
            format_args!("nvr = {nvr}"),
            body,
        )
    }
}

/// fmi2GetRealOutputDerivatives.
///
/// # Safety
/// As for [`set_real_input_derivatives`], with `value` writable.
pub unsafe fn get_real_output_derivatives<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: three arrays of `nvr` elements (FMI 2.0 contract).
        let (vrs, orders, out) = unsafe {
            (
                arrays::input(vr, nvr, "vr")?,
                arrays::input(order, nvr, "order")?,
                arrays::output(value, nvr, "value")?,
            )
        };
        inst.output_derivatives(vrs, orders, out)
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(
            c,
            "fmi2GetRealOutputDerivatives",
            Access::Normal,
            format_args!("nvr = {nvr}"),
            body,
        )
    }
}

/// fmi2DoStep (synchronous: never fmi2Pending).
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn do_step<S: System>(
    c: Fmi2Component,
    current_communication_point: Fmi2Real,
    communication_step_size: Fmi2Real,
    _no_set_fmu_state_prior: Fmi2Boolean,
) -> Fmi2Status {
    let args = format_args!("currentCommunicationPoint = {current_communication_point}, communicationStepSize = {communication_step_size}");
    let body =
        |inst: &mut Instance<S>| inst.do_step(current_communication_point, communication_step_size);
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { with_instance::<S, Fmi2>(c, "fmi2DoStep", Access::Normal, args, body) }
}

/// fmi2CancelStep: there is never an asynchronous step to cancel.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn cancel_step<S: System>(c: Fmi2Component) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        inst.expect_kind(Kind::CoSimulation)?;
        Err(Problem::error("doStep never returns fmi2Pending, so there is no step to cancel"))
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2CancelStep", Access::Normal, body) }
}

/// Runs a status inquiry that writes one value of type `T`.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `value` a valid pointer.
unsafe fn inquire<S: System, T>(
    c: Fmi2Component,
    function: &str,
    kind: Fmi2StatusKind,
    value: *mut T,
    answer: impl FnOnce(&Instance<S>, Fmi2StatusKind) -> Outcome<T>,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        inst.expect_kind(Kind::CoSimulation)?;
        // SAFETY: `value` points to the host's variable (FMI 2.0 contract).
        let slot = unsafe { arrays::out_param(value, "value")? };
        *slot = answer(inst, kind)?;
        Ok(())
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(c, function, Access::Normal, format_args!("s = {kind}"), body)
    }
}

fn not_available(kind: Fmi2StatusKind, what: &str) -> Problem {
    let reason = match kind {
        FMI2_DO_STEP_STATUS | FMI2_PENDING_STATUS => {
            "doStep is synchronous, so there is no pending step"
        }
        FMI2_LAST_SUCCESSFUL_TIME | FMI2_TERMINATED => "ask for it with the function of its type",
        _ => "unknown fmi2StatusKind",
    };
    Problem::error(format!("status kind {kind} has no {what} value: {reason}"))
}

/// fmi2GetStatus.
///
/// # Safety
/// As for [`cancel_step`], with `value` a valid pointer.
pub unsafe fn get_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2Status,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        inquire::<S, Fmi2Status>(c, "fmi2GetStatus", kind, value, |_, k| {
            Err(not_available(k, "fmi2Status"))
        })
    }
}

/// fmi2GetRealStatus: fmi2LastSuccessfulTime.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_real_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    let answer = |inst: &Instance<S>, k| match k {
        FMI2_LAST_SUCCESSFUL_TIME => Ok(inst.last_successful_time()),
        _ => Err(not_available(k, "Real")),
    };
    // SAFETY: the FMI 2.0 contract.
    unsafe { inquire::<S, Fmi2Real>(c, "fmi2GetRealStatus", kind, value, answer) }
}

/// fmi2GetIntegerStatus: no status kind has an Integer value.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_integer_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        inquire::<S, Fmi2Integer>(c, "fmi2GetIntegerStatus", kind, value, |_, k| {
            Err(not_available(k, "Integer"))
        })
    }
}

/// fmi2GetBooleanStatus: fmi2Terminated (the model never asks to terminate).
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_boolean_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2Boolean,
) -> Fmi2Status {
    let answer = |_: &Instance<S>, k| match k {
        FMI2_TERMINATED => Ok(FMI2_FALSE),
        _ => Err(not_available(k, "Boolean")),
    };
    // SAFETY: the FMI 2.0 contract.
    unsafe { inquire::<S, Fmi2Boolean>(c, "fmi2GetBooleanStatus", kind, value, answer) }
}

/// fmi2GetStringStatus: only defined for a pending step, which never exists.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_string_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        inquire::<S, Fmi2String>(c, "fmi2GetStringStatus", kind, value, |_, k| {
            Err(not_available(k, "String"))
        })
    }
}
