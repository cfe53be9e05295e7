//! FMU-state functions through C pointers, shared by FMI 2.0 and FMI 3.0.

use std::ffi::c_void;
use std::fmt;

use crate::ffi::{arrays, call, with_instance, Access, Standard};
use crate::instance::outcome::Outcome;
use crate::instance::snapshot::FmuStateHandle;
use crate::instance::Instance;
use crate::system::System;

/// fmiGetFMUState: `*state` is NULL (new state) or a state of this instance to overwrite.
///
/// # Safety
/// `handle` as for [`with_instance`]; `state` NULL or a valid pointer to a handle.
pub unsafe fn get<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    state: *mut FmuStateHandle,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `state` points to a handle (caller).
        let slot = unsafe { arrays::out_param(state, "FMUState")? };
        *slot = inst.get_fmu_state(*slot)?;
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { call::<S, F>(handle, function, Access::Normal, body) }
}

/// fmiSetFMUState (also restores a failed instance).
///
/// # Safety
/// `handle` as for [`with_instance`].
pub unsafe fn set<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    state: FmuStateHandle,
) -> F::Status {
    let body = |inst: &mut Instance<S>| inst.set_fmu_state(state);
    // SAFETY: the caller's contract on `handle`.
    unsafe { recovering::<S, F>(handle, function, format_args!("FMUState = {state:p}"), body) }
}

/// fmiFreeFMUState: frees `*state` and sets it to NULL.
///
/// # Safety
/// `handle` as for [`with_instance`]; `state` NULL or a valid pointer to a handle.
pub unsafe fn free<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    state: *mut FmuStateHandle,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `state` points to a handle (caller).
        let slot = unsafe { arrays::out_param(state, "FMUState")? };
        inst.free_fmu_state(*slot)?;
        *slot = std::ptr::null_mut();
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { recovering::<S, F>(handle, function, format_args!(""), body) }
}

/// fmiSerializedFMUStateSize.
///
/// # Safety
/// `handle` as for [`with_instance`]; `size` NULL or a valid pointer.
pub unsafe fn size<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    state: FmuStateHandle,
    size: *mut usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `size` points to a size_t (caller).
        let slot = unsafe { arrays::out_param(size, "size")? };
        *slot = inst.serialized_fmu_state_size(state)?;
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { recovering::<S, F>(handle, function, format_args!("FMUState = {state:p}"), body) }
}

/// fmiSerializeFMUState into the host's buffer of `size` bytes.
///
/// # Safety
/// `handle` as for [`with_instance`]; `bytes` NULL or a writable buffer of `size` bytes.
pub unsafe fn serialize<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    state: FmuStateHandle,
    bytes: *mut u8,
    size: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `bytes` is a buffer of `size` bytes (caller).
        let out = unsafe { arrays::output(bytes, size, "serializedState")? };
        inst.serialize_fmu_state(state, out)
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { recovering::<S, F>(handle, function, format_args!("size = {size}"), body) }
}

/// fmiDeSerializeFMUState: a new state of this instance from `size` bytes.
///
/// # Safety
/// `handle` as for [`with_instance`]; `bytes` NULL or `size` readable bytes; `state` NULL or
/// a valid pointer to a handle.
pub unsafe fn deserialize<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    bytes: *const u8,
    size: usize,
    state: *mut FmuStateHandle,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `bytes` holds `size` bytes and `state` points to a handle (caller).
        let (input, slot) = unsafe {
            (
                arrays::input(bytes, size, "serializedState")?,
                arrays::out_param(state, "FMUState")?,
            )
        };
        *slot = inst.deserialize_fmu_state(input)?;
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { recovering::<S, F>(handle, function, format_args!("size = {size}"), body) }
}

/// Defines a standard's six FMU-state functions over the ones of this module, given the
/// standard, its handle, FMU-state, byte and status types, and the C names.
macro_rules! fmu_state_functions {
    (
        $standard:ident($handle:ty, $state:ty, $byte:ty) -> $status:ty;
        get_fmu_state = $get:literal;
        set_fmu_state = $set:literal;
        free_fmu_state = $free:literal;
        serialized_fmu_state_size = $size:literal;
        serialize_fmu_state = $serialize:literal;
        deserialize_fmu_state = $deserialize:literal;
    ) => {
        #[doc = concat!($get, ".")]
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function; `state` a valid
        /// pointer.
        pub unsafe fn get_fmu_state<S: System>(handle: $handle, state: *mut $state) -> $status {
            // SAFETY: the standard's contract.
            unsafe { fmu_state::get::<S, $standard>(handle, $get, state) }
        }

        #[doc = concat!($set, ".")]
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function.
        pub unsafe fn set_fmu_state<S: System>(handle: $handle, state: $state) -> $status {
            // SAFETY: the standard's contract.
            unsafe { fmu_state::set::<S, $standard>(handle, $set, state) }
        }

        #[doc = concat!($free, ".")]
        ///
        /// # Safety
        /// As for [`get_fmu_state`].
        pub unsafe fn free_fmu_state<S: System>(handle: $handle, state: *mut $state) -> $status {
            // SAFETY: the standard's contract.
            unsafe { fmu_state::free::<S, $standard>(handle, $free, state) }
        }

        #[doc = concat!($size, ".")]
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function; `size` a valid
        /// pointer.
        pub unsafe fn serialized_fmu_state_size<S: System>(
            handle: $handle,
            state: $state,
            size: *mut usize,
        ) -> $status {
            // SAFETY: the standard's contract.
            unsafe { fmu_state::size::<S, $standard>(handle, $size, state, size) }
        }

        #[doc = concat!($serialize, ".")]
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function; `bytes` a writable
        /// buffer of `size` bytes.
        pub unsafe fn serialize_fmu_state<S: System>(
            handle: $handle,
            state: $state,
            bytes: *mut $byte,
            size: usize,
        ) -> $status {
            let bytes = bytes.cast();
            // SAFETY: the standard's contract.
            unsafe { fmu_state::serialize::<S, $standard>(handle, $serialize, state, bytes, size) }
        }

        #[doc = concat!($deserialize, ".")]
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function; `bytes` `size`
        /// readable bytes; `state` a valid pointer.
        pub unsafe fn deserialize_fmu_state<S: System>(
            handle: $handle,
            bytes: *const $byte,
            size: usize,
            state: *mut $state,
        ) -> $status {
            let (function, bytes) = ($deserialize, bytes.cast());
            // SAFETY: the standard's contract.
            unsafe { fmu_state::deserialize::<S, $standard>(handle, function, bytes, size, state) }
        }
    };
}
pub(crate) use fmu_state_functions;

/// [`with_instance`] for the functions that also run on a failed instance, which restoring
/// an FMU state recovers.
///
/// # Safety
/// As for [`with_instance`].
unsafe fn recovering<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    args: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> F::Status {
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Recovery, args, body) }
}
