//! Get/set of variable values through C arrays, shared by FMI 2.0 and FMI 3.0.

use std::ffi::c_void;

use crate::ffi::{arrays, with_instance, Access, Standard};
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::values::FmiValue;
use crate::instance::Instance;
use crate::system::System;

/// fmiGet*: converts each value with `to_c` into the host's array `values` of `n_values`
/// elements (FMI 2.0 passes `n_values = nvr`).
///
/// # Safety
/// `handle` as for [`with_instance`]; `vr` and `values` must be NULL or arrays of `nvr` and
/// `n_values` elements.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get<S: System, F: Standard, V: FmiValue, C>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *mut C,
    n_values: usize,
    to_c: fn(V) -> C,
) -> F::Status {
    let args = format_args!("nValueReferences = {nvr}");
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `vr` and `values` are arrays of `nvr` and `n_values` elements (caller).
        let (vrs, out) = unsafe {
            (
                arrays::input(vr, nvr, "valueReferences")?,
                arrays::output(values, n_values, "values")?,
            )
        };
        let mut read = vec![V::from_store(0.0); n_values];
        inst.get_values(vrs, &mut read)?;
        for (slot, value) in out.iter_mut().zip(read) {
            *slot = to_c(value);
        }
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}

/// fmiSet*: converts each of the `n_values` host values with `from_c`.
///
/// # Safety
/// As for [`get`], with `values` readable.
#[allow(clippy::too_many_arguments)]
pub unsafe fn set<S: System, F: Standard, V: FmiValue, C: Copy>(
    handle: *mut c_void,
    function: &str,
    vr: *const u32,
    nvr: usize,
    values: *const C,
    n_values: usize,
    from_c: fn(C) -> V,
) -> F::Status {
    let args = format_args!("nValueReferences = {nvr}");
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `vr` and `values` are arrays of `nvr` and `n_values` elements (caller).
        let (vrs, given) = unsafe {
            (arrays::input(vr, nvr, "valueReferences")?, arrays::input(values, n_values, "values")?)
        };
        let converted: Vec<V> = given.iter().map(|&c| from_c(c)).collect();
        inst.set_values(vrs, &converted)
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}

/// Get or set of a type the model has no variables of (strings, FMI 3.0 Float32, Int8 ...
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
    let args = format_args!("nValueReferences = {nvr}");
    let body = |_: &mut Instance<S>| {
        // SAFETY: `vr` is an array of `nvr` elements (caller).
        let vrs = unsafe { arrays::input(vr, nvr, "valueReferences")? };
        no_variable(vrs, type_name)
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}

fn no_variable(vrs: &[u32], type_name: &str) -> Outcome {
    match vrs.first() {
        None => Ok(()),
        Some(vr) => Err(Problem::error(format!(
            "unknown value reference {vr}: the model has no {type_name} variables"
        ))),
    }
}
