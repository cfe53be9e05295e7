//! FMI 3.0 get/set of variables. The model has Float64 (scalars and array parameters), Int32,
//! Boolean and String variables only (`nValues` is the number of values of the referenced
//! variables: one per scalar, one per element of an array, row-major); the getters and setters
//! of every other type accept no value references and reject any.

use crate::ffi::values;
use crate::fmi3::types::*;
use crate::system::System;

/// Defines fmi3Get<Type> and fmi3Set<Type> of a type the model has variables of: `$value`
/// in the model, `$c` in C.
macro_rules! with_variables {
    ($($type_name:literal: $get:ident, $set:ident, $value:ty as $c:ty;)*) => {$(
        #[doc = concat!("fmi3Get", $type_name, ".")]
        ///
        /// # Safety
        /// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of
        /// `nvr` elements, `values` of `n_values`.
        pub unsafe fn $get<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            values: *mut $c,
            n_values: usize,
        ) -> Fmi3Status {
            let function = concat!("fmi3Get", $type_name);
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::get::<S, Fmi3, $value>(instance, function, vr, nvr, values, n_values) }
        }

        #[doc = concat!("fmi3Set", $type_name, ".")]
        ///
        /// # Safety
        /// As for the getter, with `values` readable.
        pub unsafe fn $set<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            values: *const $c,
            n_values: usize,
        ) -> Fmi3Status {
            let function = concat!("fmi3Set", $type_name);
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::set::<S, Fmi3, $value>(instance, function, vr, nvr, values, n_values) }
        }
    )*};
}

with_variables! {
    "Float64": get_float64, set_float64, f64 as Fmi3Float64;
    "Int32": get_int32, set_int32, i32 as Fmi3Int32;
    "Boolean": get_boolean, set_boolean, bool as Fmi3Boolean;
}

/// fmi3GetString.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of `nvr`
/// elements, `values` of `n_values`.
pub unsafe fn get_string<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *mut Fmi3String,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::get_strings::<S, Fmi3>(instance, "fmi3GetString", vr, nvr, values, n_values) }
}

/// fmi3SetString.
///
/// # Safety
/// As for [`get_string`], with `values` readable and each element a NUL-terminated string.
pub unsafe fn set_string<S: System>(
    instance: Fmi3Instance,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    values: *const Fmi3String,
    n_values: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { values::set_strings::<S, Fmi3>(instance, "fmi3SetString", vr, nvr, values, n_values) }
}

/// Defines fmi3Get<Type> and fmi3Set<Type> of a type the model has no variables of, whose
/// array arguments (after the value references) are `($array: *mut/*const $ty, ...; count)`.
macro_rules! without_variables {
    ($(
        $type_name:literal: $get:ident, $set:ident, ($($array:ident: $ty:ty),* $(; $count:ident)?);
    )*) => {$(
        #[doc = concat!("fmi3Get", $type_name, ": the model has no ", $type_name, " variables.")]
        ///
        /// # Safety
        /// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `vr` an array of `nvr`.
        pub unsafe fn $get<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            $($array: *mut $ty,)*
            $($count: usize,)?
        ) -> Fmi3Status {
            let function = concat!("fmi3Get", $type_name);
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::none_of_type::<S, Fmi3>(instance, function, vr, nvr, $type_name) }
        }

        #[doc = concat!("fmi3Set", $type_name, ": the model has no ", $type_name, " variables.")]
        ///
        /// # Safety
        /// As for the getter.
        pub unsafe fn $set<S: System>(
            instance: Fmi3Instance,
            vr: *const Fmi3ValueReference,
            nvr: usize,
            $($array: *const $ty,)*
            $($count: usize,)?
        ) -> Fmi3Status {
            let function = concat!("fmi3Set", $type_name);
            // SAFETY: the FMI 3.0 contract.
            unsafe { values::none_of_type::<S, Fmi3>(instance, function, vr, nvr, $type_name) }
        }
    )*};
}

without_variables! {
    "Float32": get_float32, set_float32, (_values: Fmi3Float32; _n_values);
    "Int8": get_int8, set_int8, (_values: Fmi3Int8; _n_values);
    "UInt8": get_uint8, set_uint8, (_values: Fmi3UInt8; _n_values);
    "Int16": get_int16, set_int16, (_values: Fmi3Int16; _n_values);
    "UInt16": get_uint16, set_uint16, (_values: Fmi3UInt16; _n_values);
    "UInt32": get_uint32, set_uint32, (_values: Fmi3UInt32; _n_values);
    "Int64": get_int64, set_int64, (_values: Fmi3Int64; _n_values);
    "UInt64": get_uint64, set_uint64, (_values: Fmi3UInt64; _n_values);
    "Binary": get_binary, set_binary, (_value_sizes: usize, _values: Fmi3Binary; _n_values);
    "Clock": get_clock, set_clock, (_values: Fmi3Clock);
}
