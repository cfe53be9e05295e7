//! FMI 3.0 get/set of variables. The model has Float64, Int32 and Boolean variables only
//! (scalars: `nValues` must equal `nValueReferences`); the getters and setters of every other
//! type accept no value references and reject any.

use crate::ffi::{values, Standard};
use crate::fmi3::types::*;
use crate::system::System;

fn identity<T>(value: T) -> T {
    value
}

fn to_bool(value: Fmi3Boolean) -> bool {
    Fmi3::is_true(value)
}

/// fmi3GetFloat64.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of `nvr`
/// elements, `values` of `n_values`.
pub unsafe fn get_float64<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *mut Fmi3Float64,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::get::<S, Fmi3, f64, f64>(
            instance,
            "fmi3GetFloat64",
            vr,
            nvr,
            values,
            n_values,
            identity,
        )
    }
}

/// fmi3GetInt32.
///
/// # Safety
/// As for [`get_float64`].
pub unsafe fn get_int32<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *mut Fmi3Int32,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::get::<S, Fmi3, i32, i32>(
            instance,
            "fmi3GetInt32",
            vr,
            nvr,
            values,
            n_values,
            identity,
        )
    }
}

/// fmi3GetBoolean.
///
/// # Safety
/// As for [`get_float64`].
pub unsafe fn get_boolean<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *mut Fmi3Boolean,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::get::<S, Fmi3, bool, u8>(
            instance,
            "fmi3GetBoolean",
            vr,
            nvr,
            values,
            n_values,
            Fmi3::boolean,
        )
    }
}

/// fmi3SetFloat64.
///
/// # Safety
/// As for [`get_float64`], with `values` readable.
pub unsafe fn set_float64<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *const Fmi3Float64,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::set::<S, Fmi3, f64, f64>(
            instance,
            "fmi3SetFloat64",
            vr,
            nvr,
            values,
            n_values,
            identity,
        )
    }
}

/// fmi3SetInt32.
///
/// # Safety
/// As for [`set_float64`].
pub unsafe fn set_int32<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *const Fmi3Int32,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::set::<S, Fmi3, i32, i32>(
            instance,
            "fmi3SetInt32",
            vr,
            nvr,
            values,
            n_values,
            identity,
        )
    }
}

/// fmi3SetBoolean.
///
/// # Safety
/// As for [`set_float64`].
pub unsafe fn set_boolean<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *const Fmi3Boolean,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        values::set::<S, Fmi3, bool, u8>(
            instance,
            "fmi3SetBoolean",
            vr,
            nvr,
            values,
            n_values,
            to_bool,
        )
    }
}

/// Defines getters and setters of a type the model has no variables of.
macro_rules! no_variables_of_type {
    ($($get:ident, $set:ident, $c_get:literal, $c_set:literal, $ty:ty, $type_name:literal;)*) => {$(
        #[doc = concat!($c_get, ": the model has no ", $type_name, " variables.")]
        ///
        /// # Safety
        /// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of `nvr`.
        pub unsafe fn $get<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            _values: *mut $ty,
            _n_values: usize,
        ) -> Fmi3Status {
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::none_of_type::<S, Fmi3>(instance, $c_get, vr, nvr, $type_name) }
        }

        #[doc = concat!($c_set, ": the model has no ", $type_name, " variables.")]
        ///
        /// # Safety
        /// As for the getter.
        pub unsafe fn $set<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            _values: *const $ty,
            _n_values: usize,
        ) -> Fmi3Status {
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::none_of_type::<S, Fmi3>(instance, $c_set, vr, nvr, $type_name) }
        }
    )*};
}

no_variables_of_type! {
    get_float32, set_float32, "fmi3GetFloat32", "fmi3SetFloat32", Fmi3Float32, "Float32";
    get_int8, set_int8, "fmi3GetInt8", "fmi3SetInt8", Fmi3Int8, "Int8";
    get_uint8, set_uint8, "fmi3GetUInt8", "fmi3SetUInt8", Fmi3UInt8, "UInt8";
    get_int16, set_int16, "fmi3GetInt16", "fmi3SetInt16", Fmi3Int16, "Int16";
    get_uint16, set_uint16, "fmi3GetUInt16", "fmi3SetUInt16", Fmi3UInt16, "UInt16";
    get_uint32, set_uint32, "fmi3GetUInt32", "fmi3SetUInt32", Fmi3UInt32, "UInt32";
    get_int64, set_int64, "fmi3GetInt64", "fmi3SetInt64", Fmi3Int64, "Int64";
    get_uint64, set_uint64, "fmi3GetUInt64", "fmi3SetUInt64", Fmi3UInt64, "UInt64";
    get_string, set_string, "fmi3GetString", "fmi3SetString", Fmi3String, "String";
}

/// fmi3GetBinary: the model has no Binary variables.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of `nvr`.
pub unsafe fn get_binary<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    _value_sizes: *mut usize,
    _values: *mut Fmi3Binary,
    _n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::none_of_type::<S, Fmi3>(instance, "fmi3GetBinary", vr, nvr, "Binary") }
}

/// fmi3SetBinary: the model has no Binary variables.
///
/// # Safety
/// As for [`get_binary`].
pub unsafe fn set_binary<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    _value_sizes: *const usize,
    _values: *const Fmi3Binary,
    _n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::none_of_type::<S, Fmi3>(instance, "fmi3SetBinary", vr, nvr, "Binary") }
}

/// fmi3GetClock: the model has no clocks.
///
/// # Safety
/// As for [`get_binary`].
pub unsafe fn get_clock<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    _values: *mut Fmi3Clock,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::none_of_type::<S, Fmi3>(instance, "fmi3GetClock", vr, nvr, "Clock") }
}

/// fmi3SetClock: the model has no clocks.
///
/// # Safety
/// As for [`get_binary`].
pub unsafe fn set_clock<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    _values: *const Fmi3Clock,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::none_of_type::<S, Fmi3>(instance, "fmi3SetClock", vr, nvr, "Clock") }
}
