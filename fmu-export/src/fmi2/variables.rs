//! FMI 2.0 get/set of Real, Integer, Boolean and String variables.

use crate::ffi::values;
use crate::fmi2::types::*;
use crate::system::System;

/// Defines fmi2Get<Type> and fmi2Set<Type> of a type the model has variables of: `$value`
/// in the model, `$c` in C.
macro_rules! with_variables {
    ($($type_name:literal: $get:ident, $set:ident, $value:ty as $c:ty;)*) => {$(
        #[doc = concat!("fmi2Get", $type_name, ".")]
        ///
        /// # Safety
        /// FMI 2.0 contract: `c` from fmi2Instantiate; `vr` and `value` arrays of `nvr` elements.
        pub unsafe fn $get<S: System>(
            c: Fmi2Component,
            vr: *const Fmi2ValueReference,
            nvr: usize,
            value: *mut $c,
        ) -> Fmi2Status {
            let function = concat!("fmi2Get", $type_name);
            // SAFETY: the FMI 2.0 contract.
            unsafe { values::get::<S, Fmi2, $value>(c, function, vr, nvr, value, nvr) }
        }

        #[doc = concat!("fmi2Set", $type_name, ".")]
        ///
        /// # Safety
        /// As for the getter, with `value` readable.
        pub unsafe fn $set<S: System>(
            c: Fmi2Component,
            vr: *const Fmi2ValueReference,
            nvr: usize,
            value: *const $c,
        ) -> Fmi2Status {
            let function = concat!("fmi2Set", $type_name);
            // SAFETY: the FMI 2.0 contract.
            unsafe { values::set::<S, Fmi2, $value>(c, function, vr, nvr, value, nvr) }
        }
    )*};
}

with_variables! {
    "Real": get_real, set_real, f64 as Fmi2Real;
    "Integer": get_integer, set_integer, i32 as Fmi2Integer;
    "Boolean": get_boolean, set_boolean, bool as Fmi2Boolean;
}

/// fmi2GetString.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `vr` and `value` arrays of `nvr` elements.
pub unsafe fn get_string<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::get_strings::<S, Fmi2>(c, "fmi2GetString", vr, nvr, value, nvr) }
}

/// fmi2SetString.
///
/// # Safety
/// As for [`get_string`], with `value` readable and each element a NUL-terminated string.
pub unsafe fn set_string<S: System>(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { values::set_strings::<S, Fmi2>(c, "fmi2SetString", vr, nvr, value, nvr) }
}
