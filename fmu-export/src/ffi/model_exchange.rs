//! Model Exchange functions through C pointers, shared by FMI 2.0 and FMI 3.0.

use std::ffi::c_void;

use crate::ffi::{arrays, call, with_instance, Access, Standard};
use crate::instance::lifecycle::Kind;
use crate::instance::outcome::Outcome;
use crate::instance::Instance;
use crate::system::System;

/// fmiSetTime.
///
/// # Safety
/// `handle` as for [`with_instance`].
pub unsafe fn set_time<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    time: f64,
) -> F::Status {
    let args = format_args!("time = {time}");
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, |i| i.set_time(time)) }
}

/// fmiSetContinuousStates from the host's array `x` of `nx` reals (named `x_name` in the
/// standard's header).
///
/// # Safety
/// `handle` as for [`with_instance`]; `x` NULL or an array of `nx` reals.
pub unsafe fn set_continuous_states<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    x: *const f64,
    x_name: &str,
    nx: usize,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `x` holds `nx` reals (caller).
        inst.set_continuous_states(unsafe { arrays::input(x, nx, x_name)? })
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe {
        with_instance::<S, F>(
            handle,
            function,
            Access::Normal,
            format_args!("nx = {nx}"),
            body,
        )
    }
}

/// Runs a Model Exchange getter that fills the host's array of `n` reals.
///
/// # Safety
/// `handle` as for [`with_instance`]; `out` NULL or an array of `n` writable reals.
pub unsafe fn fill_reals<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    out: *mut f64,
    n: usize,
    getter: fn(&mut Instance<S>, &mut [f64]) -> Outcome,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        inst.expect_kind(Kind::ModelExchange)?;
        // SAFETY: `out` holds `n` reals (caller).
        getter(inst, unsafe { arrays::output(out, n, "values")? })
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe {
        with_instance::<S, F>(
            handle,
            function,
            Access::Normal,
            format_args!("n = {n}"),
            body,
        )
    }
}

/// Defines Model Exchange getters of standard `$standard` that fill the host's array of `n`
/// reals through an [`Instance`] method.
macro_rules! real_getters {
    ($standard:ident, $handle:ty, $status:ty; $(
        $(#[$doc:meta])* $name:ident = $c_name:literal, $getter:path;
    )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// The standard's contract: `handle` from its instantiate function; `values` an array of
        /// `n` writable elements.
        pub unsafe fn $name<S: $crate::system::System>(
            handle: $handle,
            values: *mut f64,
            n: usize,
        ) -> $status {
            use $crate::ffi::model_exchange::fill_reals;
            // SAFETY: the standard's contract.
            unsafe { fill_reals::<S, $standard>(handle, $c_name, values, n, $getter) }
        }
    )*};
}
pub(crate) use real_getters;

/// fmiCompletedIntegratorStep (the model never asks to terminate).
///
/// # Safety
/// `handle` as for [`with_instance`]; both out-pointers NULL or valid.
pub unsafe fn completed_integrator_step<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    enter_event_mode: *mut F::Boolean,
    terminate_simulation: *mut F::Boolean,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: both point to the host's booleans (caller).
        let (enter, terminate) = unsafe {
            (
                arrays::out_param(enter_event_mode, "enterEventMode")?,
                arrays::out_param(terminate_simulation, "terminateSimulation")?,
            )
        };
        *enter = F::boolean(inst.completed_integrator_step()?);
        *terminate = F::FALSE;
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { call::<S, F>(handle, function, Access::Normal, body) }
}
