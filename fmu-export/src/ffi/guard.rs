//! The panic guard around every exported function: a panic (in model code, an integrator or
//! this library) must not unwind into C. It is caught, logged through the instance's logger,
//! the instance is marked failed, and the function returns its Error value.

use std::any::Any;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::{registry, FmiVersion};
use crate::system::System;

/// What an exported function returns when its body panicked.
pub trait PanicFallback {
    /// The Error value (Error status, NULL handle, nothing).
    fn on_panic() -> Self;
}

impl PanicFallback for () {
    fn on_panic() -> Self {}
}

impl PanicFallback for *mut c_void {
    fn on_panic() -> Self {
        std::ptr::null_mut()
    }
}

impl PanicFallback for *const c_char {
    fn on_panic() -> Self {
        std::ptr::null()
    }
}

/// Runs `body`; on a panic, logs it on the instance behind `handle` (if that is a live
/// instance), marks the instance failed and returns `R::on_panic()`.
pub fn guard<S: System, R: PanicFallback>(
    handle: *mut c_void,
    version: FmiVersion,
    function: &str,
    body: impl FnOnce() -> R,
) -> R {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(payload) => {
            let reason = format!("{function}: panic: {}", panic_message(payload.as_ref()));
            // Logging goes through host code and formatting; nothing of it may unwind either.
            let _ = catch_unwind(AssertUnwindSafe(move || {
                drop(payload);
                // SAFETY: `handle` is the one the host passed to this very call, which held the
                // only reference to the instance; that reference ended with the panic.
                if let Some(instance) = unsafe { registry::lookup::<S>(handle, version) } {
                    instance.fail(&reason);
                }
            }));
            R::on_panic()
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}
