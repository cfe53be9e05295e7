//! FMI 2.0 get/set of Real, Integer, Boolean and String variables.

use crate::ffi::{values, FmiVersion};
use crate::fmi2::types::*;
use crate::system::System;

fn identity<T>(value: T) -> T {
    value
}

fn from_bool(value: bool) -> Fmi2Boolean {
    fmi2_bool(value)
}

fn to_bool(value: Fmi2Boolean) -> bool {
    value != FMI2_FALSE
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
    unsafe {
        values::get::<S, f64, f64>(
            c,
            FmiVersion::Fmi2,
            "fmi2GetReal",
            vr,
            nvr,
            value,
            nvr,
            identity,
        )
    }
    .into()
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
        values::get::<S, i32, Fmi2Integer>(
            c,
            FmiVersion::Fmi2,
            "fmi2GetInteger",
            vr,
            nvr,
            value,
            nvr,
            identity,
        )
    }
    .into()
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
        values::get::<S, bool, Fmi2Boolean>(
            c,
            FmiVersion::Fmi2,
            "fmi2GetBoolean",
            vr,
            nvr,
            value,
            nvr,
            from_bool,
        )
    }
    .into()
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
    unsafe { values::none_of_type::<S>(c, FmiVersion::Fmi2, "fmi2GetString", vr, nvr, "String") }
        .into()
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
    unsafe {
        values::set::<S, f64, f64>(
            c,
            FmiVersion::Fmi2,
            "fmi2SetReal",
            vr,
            nvr,
            value,
            nvr,
            identity,
        )
    }
    .into()
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
        values::set::<S, i32, Fmi2Integer>(
            c,
            FmiVersion::Fmi2,
            "fmi2SetInteger",
            vr,
            nvr,
            value,
            nvr,
            identity,
        )
    }
    .into()
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
        values::set::<S, bool, Fmi2Boolean>(
            c,
            FmiVersion::Fmi2,
            "fmi2SetBoolean",
            vr,
            nvr,
            value,
            nvr,
            to_bool,
        )
    }
    .into()
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
    unsafe { values::none_of_type::<S>(c, FmiVersion::Fmi2, "fmi2SetString", vr, nvr, "String") }
        .into()
}
