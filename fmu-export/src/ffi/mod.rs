//! The plumbing shared by the FMI 2.0 and FMI 3.0 C ABIs: the registry of live instances,
//! checked conversions of C arrays and strings, the panic guard, [`with_instance`], through
//! which every instance function runs, and the implementation of every function the two
//! standards have in common, generic over the [`Standard`] (status and boolean types), so
//! that the `fmi2` and `fmi3` modules only adapt their C signatures to it.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod arrays;
pub mod fmu_state;
pub mod guard;
pub mod lifecycle;
pub mod model_exchange;
pub mod partial_derivatives;
pub mod references;
pub mod registry;
pub mod values;

use std::ffi::{c_void, CString};
use std::fmt;

use crate::instance::logging::Category;
use crate::instance::outcome::{Outcome, Problem, Status};
use crate::instance::Instance;
use crate::system::System;

pub use guard::{guard, PanicFallback};

/// Which standard an instance was created through (an FMI 2.0 handle is not accepted by
/// FMI 3.0 functions and vice versa).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0.
    Fmi2,
    /// FMI 3.0.
    Fmi3,
}

/// What the plumbing shared by both C ABIs needs to know about the standard of a function:
/// implemented by [`crate::fmi2::types::Fmi2`] and [`crate::fmi3::types::Fmi3`].
pub trait Standard {
    /// The tag the registry gives this standard's handles.
    const VERSION: FmiVersion;
    /// The status every instance function returns.
    type Status: From<Status>;
    /// The C boolean type.
    type Boolean: Copy + PartialEq + fmt::Display;
    /// The C value of `false`.
    const FALSE: Self::Boolean;
    /// The C value of `true`.
    const TRUE: Self::Boolean;

    /// `value` as a C boolean.
    fn boolean(value: bool) -> Self::Boolean {
        if value {
            Self::TRUE
        } else {
            Self::FALSE
        }
    }

    /// Whether a C boolean from the host is true (any value other than false is).
    fn is_true(value: Self::Boolean) -> bool {
        value != Self::FALSE
    }
}

/// Whether a function may run on an instance that failed earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Only on a working instance.
    Normal,
    /// Also on a failed instance (reset, FMU-state restore, logging settings).
    Recovery,
}

/// Runs `body` on the instance behind `handle` and turns its outcome into a status, logging
/// the call (category logCalls, with `args`) and any problem. A NULL or unknown handle is an
/// Error (there is no instance to log through).
///
/// # Safety
/// `handle` must be NULL or a pointer the host obtained from this library's instantiate
/// function of standard `F` and has not freed; no other call may use the instance concurrently.
pub unsafe fn with_instance<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    access: Access,
    args: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> F::Status {
    // SAFETY: the caller's contract on `handle`; the registry rejects anything else.
    let Some(instance) = (unsafe { registry::lookup::<S>(handle, F::VERSION) }) else {
        return Status::Error.into();
    };
    if instance.logs(Category::Calls) {
        instance.log(Status::Ok, Category::Calls, &format!("{function}({args})"));
    }
    if access == Access::Normal && instance.has_failed() {
        let outcome = Err(Problem::error(
            "the instance failed in an earlier call; reset it, restore an FMU state or free it",
        ));
        return instance.report(function, outcome).into();
    }
    let outcome = body(instance);
    instance.report(function, outcome).into()
}

/// [`with_instance`] for a function with no argument worth logging besides the handle.
///
/// # Safety
/// As for [`with_instance`].
pub unsafe fn call<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    access: Access,
    body: impl FnOnce(&mut Instance<S>) -> Outcome,
) -> F::Status {
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, access, format_args!(""), body) }
}

/// `text` as a C string (interior NUL bytes, which C cannot carry, become spaces).
pub fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).expect("NUL bytes were replaced")
}
