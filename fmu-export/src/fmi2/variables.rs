//! FMI 2.0 get/set of Real, Integer, Boolean and String variables.

use crate::ffi::{values, Standard};
use crate::fmi2::types::*;
use crate::system::System;

fn identity<T>(value: T) -> T {
    value
}

fn from_bool(value: bool) -> Fmi2Boolean {
    Fmi2::boolean(value)
}

fn to_bool(value: Fmi2Boolean) -> bool {
    Fmi2::is_true(value)
}

/// fmi2GetReal.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `vr` and `value` arrays of `nvr` elements.
pub unsafe fn get_real<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::get::<S, Fmi2, f64, f64>(c, "fmi2GetReal", vr, nvr, value, nvr, identity) }
}

/// fmi2GetInteger.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_integer<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        values::get::<S, Fmi2, i32, Fmi2Integer>(c, "fmi2GetInteger", vr, nvr, value, nvr, identity)
    }
}

/// fmi2GetBoolean.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_boolean<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        values::get::<S, Fmi2, bool, Fmi2Boolean>(
            c,
            "fmi2GetBoolean",
            vr,
            nvr,
            value,
            nvr,
            from_bool,
        )
    }
}

/// fmi2GetString: the model has no String variables.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_string<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *mut Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::none_of_type::<S, Fmi2>(c, "fmi2GetString", vr, nvr, "String") }
}

/// fmi2SetReal.
///
/// # Safety
/// As for [`get_real`], with `value` readable.
pub unsafe fn set_real<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Real,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::set::<S, Fmi2, f64, f64>(c, "fmi2SetReal", vr, nvr, value, nvr, identity) }
}

/// fmi2SetInteger.
///
/// # Safety
/// As for [`set_real`].
pub unsafe fn set_integer<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Integer,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        values::set::<S, Fmi2, i32, Fmi2Integer>(c, "fmi2SetInteger", vr, nvr, value, nvr, identity)
    }
}

/// fmi2SetBoolean.
///
/// # Safety
/// As for [`set_real`].
pub unsafe fn set_boolean<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Boolean,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        values::set::<S, Fmi2, bool, Fmi2Boolean>(c, "fmi2SetBoolean", vr, nvr, value, nvr, to_bool)
    }
}

/// fmi2SetString: the model has no String variables.
///
/// # Safety
/// As for [`set_real`].
pub unsafe fn set_string<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    _value: *const Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::none_of_type::<S, Fmi2>(c, "fmi2SetString", vr, nvr, "String") }
}
