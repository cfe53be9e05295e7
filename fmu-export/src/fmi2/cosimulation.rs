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
    let body = |inst: &mut Instance<S>, vrs: &[u32], orders: &[i32]| {
        // SAFETY: `value` is an array of `nvr` elements (FMI 2.0 contract).
        inst.set_input_derivatives(vrs, orders, unsafe { arrays::input(value, nvr, "value")? })
    };
    // SAFETY: the FMI 2.0 contract.
    unsafe { with_orders::<S>(c, "fmi2SetRealInputDerivatives", vr, nvr, order, body) }
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
    let body = |inst: &mut Instance<S>, vrs: &[u32], orders: &[i32]| {
        // SAFETY: `value` is an array of `nvr` elements (FMI 2.0 contract).
        inst.output_derivatives(vrs, orders, unsafe { arrays::output(value, nvr, "value")? })
    };
    // SAFETY: the FMI 2.0 contract.
    unsafe { with_orders::<S>(c, "fmi2GetRealOutputDerivatives", vr, nvr, order, body) }
}

/// Runs `body` with the value references and derivative orders of an input or output
/// derivative call.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `vr` and `order` arrays of `nvr` elements.
unsafe fn with_orders<S: System>(
    c: Fmi2Component,
    function: &str,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    body: impl FnOnce(&mut Instance<S>, &[u32], &[i32]) -> Outcome,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: two arrays of `nvr` elements (FMI 2.0 contract).
        let (vrs, orders) = unsafe {
            (
                arrays::input(vr, nvr, "vr")?,
                arrays::input(order, nvr, "order")?,
            )
        };
        body(inst, vrs, orders)
    };
    let args = format_args!("nvr = {nvr}");
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { with_instance::<S, Fmi2>(c, function, Access::Normal, args, body) }
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
        Err(Problem::error(
            "doStep never returns fmi2Pending, so there is no step to cancel",
        ))
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2CancelStep", Access::Normal, body) }
}

/// Runs a status inquiry that writes one value of type `T`, named `what` in messages; `answer`
/// gives the value of the status kinds that have one of this type.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `value` a valid pointer.
unsafe fn inquire<S: System, T>(
    c: Fmi2Component,
    function: &str,
    what: &str,
    kind: Fmi2StatusKind,
    value: *mut T,
    answer: impl FnOnce(&Instance<S>, Fmi2StatusKind) -> Option<T>,
) -> Fmi2Status {
    let body = |inst: &mut Instance<S>| {
        inst.expect_kind(Kind::CoSimulation)?;
        // SAFETY: `value` points to the host's variable (FMI 2.0 contract).
        let slot = unsafe { arrays::out_param(value, "value")? };
        *slot = answer(inst, kind).ok_or_else(|| not_available(kind, what))?;
        Ok(())
    };
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        with_instance::<S, Fmi2>(
            c,
            function,
            Access::Normal,
            format_args!("s = {kind}"),
            body,
        )
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

/// fmi2GetStatus: no status kind has an fmi2Status value (there is never a pending step).
///
/// # Safety
/// As for [`cancel_step`], with `value` a valid pointer.
pub unsafe fn get_status<S: System>(
    c: Fmi2Component,
    kind: Fmi2StatusKind,
    value: *mut Fmi2Status,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { inquire::<S, _>(c, "fmi2GetStatus", "fmi2Status", kind, value, |_, _| None) }
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
    let answer = |inst: &Instance<S>, k| {
        (k == FMI2_LAST_SUCCESSFUL_TIME).then(|| inst.last_successful_time())
    };
    // SAFETY: the FMI 2.0 contract.
    unsafe { inquire::<S, _>(c, "fmi2GetRealStatus", "Real", kind, value, answer) }
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
        inquire::<S, _>(c, "fmi2GetIntegerStatus", "Integer", kind, value, |_, _| {
            None
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
    let answer = |_: &Instance<S>, k| (k == FMI2_TERMINATED).then_some(FMI2_FALSE);
    // SAFETY: the FMI 2.0 contract.
    unsafe { inquire::<S, _>(c, "fmi2GetBooleanStatus", "Boolean", kind, value, answer) }
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
    unsafe { inquire::<S, _>(c, "fmi2GetStringStatus", "String", kind, value, |_, _| None) }
}
