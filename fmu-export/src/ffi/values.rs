//! Get/set of variable values through C arrays, shared by FMI 2.0 and FMI 3.0.

use std::ffi::{c_char, c_void};

use crate::ffi::references::{self, check_value_count};
use crate::ffi::{arrays, with_instance, Access, Standard};
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::values::FmiValue;
use crate::instance::Instance;
use crate::system::System;

/// A model value type as the C arrays of standard `F` carry it. (The trait is on the Rust
/// type because C types coincide: fmi2Integer and fmi2Boolean are both `int`.)
pub trait CValue<F: Standard>: FmiValue {
    /// The C element type.
    type C: Copy;
    /// The value as the host receives it.
    fn to_c(self) -> Self::C;
    /// A value the host passed.
    fn from_c(c: Self::C) -> Self;
}

impl<F: Standard> CValue<F> for f64 {
    type C = f64;
    fn to_c(self) -> f64 {
        self
    }
    fn from_c(c: f64) -> Self {
        c
    }
}

impl<F: Standard> CValue<F> for i32 {
    type C = i32;
    fn to_c(self) -> i32 {
        self
    }
    fn from_c(c: i32) -> Self {
        c
    }
}

impl<F: Standard> CValue<F> for bool {
    type C = F::Boolean;
    fn to_c(self) -> F::Boolean {
        F::boolean(self)
    }
    fn from_c(c: F::Boolean) -> Self {
        F::is_true(c)
    }
}

/// fmiGet*: the values of `vr` into the host's array `values` of `n_values` elements (FMI 2.0
/// passes `n_values = nvr`; in FMI 3.0 an array has one value per element).
///
/// # Safety
/// `handle` as for [`with_instance`]; `vr` and `values` must be NULL or arrays of `nvr` and
/// `n_values` elements.
pub unsafe fn get<S: System, F: Standard, V: CValue<F>>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *mut V::C,
    n_values: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>, vrs: &[u32]| {
        check_value_count(n_values, nvr, vrs.len())?;
        // SAFETY: `values` is an array of `n_values` elements (caller).
        let out = unsafe { arrays::output(values, n_values, "values")? };
        // Converted straight into the host's array: no copy to allocate, however many values.
        inst.get_values_with(vrs, |k, value: V| out[k] = value.to_c())
    };
    // SAFETY: the caller's contract on `handle` and `vr`.
    unsafe { with_value_references::<S, F>(handle, function, vr, nvr, body) }
}

/// fmiSet*: the host's `n_values` values for `vr`.
///
/// # Safety
/// As for [`get`], with `values` readable.
pub unsafe fn set<S: System, F: Standard, V: CValue<F>>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *const V::C,
    n_values: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>, vrs: &[u32]| {
        check_value_count(n_values, nvr, vrs.len())?;
        // SAFETY: `values` is an array of `n_values` elements (caller).
        let given = unsafe { arrays::input(values, n_values, "values")? };
        inst.set_values_with(vrs, |k| V::from_c(given[k]))
    };
    // SAFETY: the caller's contract on `handle` and `vr`.
    unsafe { with_value_references::<S, F>(handle, function, vr, nvr, body) }
}

/// fmiGetString: pointers to the values of `vr` into the host's array `values` of `n_values`
/// elements; the texts belong to the instance (see [`crate::instance::strings`]).
///
/// # Safety
/// As for [`get`].
pub unsafe fn get_strings<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *mut *const c_char,
    n_values: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>, vrs: &[u32]| {
        check_value_count(n_values, nvr, vrs.len())?;
        // SAFETY: `values` is an array of `n_values` elements (caller).
        let out = unsafe { arrays::output(values, n_values, "values")? };
        for (slot, text) in out.iter_mut().zip(inst.get_strings(vrs)?) {
            *slot = text.as_ptr();
        }
        Ok(())
    };
    // SAFETY: the caller's contract on `handle` and `vr`.
    unsafe { with_value_references::<S, F>(handle, function, vr, nvr, body) }
}

/// fmiSetString: the host's `n_values` NUL-terminated UTF-8 texts for `vr` (copied).
///
/// # Safety
/// As for [`set`]; every element of `values` NULL or a NUL-terminated string.
pub unsafe fn set_strings<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *const *const c_char,
    n_values: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>, vrs: &[u32]| {
        check_value_count(n_values, nvr, vrs.len())?;
        // SAFETY: `values` is an array of `n_values` elements (caller).
        let given = unsafe { arrays::input(values, n_values, "values")? };
        let texts = given
            .iter()
            .enumerate()
            // SAFETY: each element is NULL (rejected) or a NUL-terminated string (caller).
            .map(|(k, &ptr)| unsafe { arrays::string(ptr, &format!("values[{k}]")) })
            .collect::<Outcome<Vec<&str>>>()?;
        inst.set_strings(vrs, &texts)
    };
    // SAFETY: the caller's contract on `handle` and `vr`.
    unsafe { with_value_references::<S, F>(handle, function, vr, nvr, body) }
}

/// Get or set of a type the model has no variables of (FMI 3.0 Float32, Int8 ...
/// Binary, Clock): OK for no value references, else Error naming the first one.
///
/// # Safety
/// As for [`get`] (`vr` an array of `nvr` elements).
pub unsafe fn none_of_type<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    type_name: &str,
) -> F::Status {
    let body = |_: &mut Instance<S>, vrs: &[u32]| match vrs.first() {
        None => Ok(()),
        Some(vr) => Err(Problem::error(format!(
            "unknown value reference {vr}: the model has no {type_name} variables"
        ))),
    };
    // SAFETY: the caller's contract on `handle` and `vr`.
    unsafe { with_value_references::<S, F>(handle, function, vr, nvr, body) }
}

/// Runs `body` with the host's `nvr` value references, as entries of the variable table (see
/// [`references::with_entries`]).
///
/// # Safety
/// `handle` as for [`with_instance`]; `vr` NULL or an array of `nvr` elements.
unsafe fn with_value_references<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    body: impl FnOnce(&mut Instance<S>, &[u32]) -> Outcome,
) -> F::Status {
    let args = format_args!("nValueReferences = {nvr}");
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `vr` is an array of `nvr` elements (caller).
        let vrs = unsafe { arrays::input(vr, nvr, "valueReferences")? };
        references::with_entries(F::VERSION, inst, [vrs], |inst, [entries]| {
            body(inst, entries)
        })
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}
