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
///
/// # Safety
/// `handle` must be NULL or the handle the host passed to the FMI call `body` runs, which is
/// not used concurrently (see [`registry::lookup`]).
pub unsafe fn guard<S: System, R: PanicFallback>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fmi2::types::Fmi2Status;
    use crate::instance::lifecycle::Kind;
    use crate::instance::logging::Silent;
    use crate::instance::test_model::Ball;
    use crate::instance::Instance;

    #[test]
    fn a_panic_marks_the_instance_failed_and_returns_the_fallback() {
        let instance = Box::new(Instance::<Ball>::new(
            Kind::ModelExchange,
            Box::new(Silent),
            false,
        ));
        let handle = registry::register(instance, FmiVersion::Fmi2);
        // SAFETY: the handle was registered above and is used by this thread only.
        unsafe {
            let status =
                guard::<Ball, Fmi2Status>(handle, FmiVersion::Fmi2, "fmi2Test", || panic!("boom"));
            assert_eq!(status, Fmi2Status::Error);
            let ok =
                guard::<Ball, Fmi2Status>(handle, FmiVersion::Fmi2, "fmi2Test", || Fmi2Status::Ok);
            assert_eq!(ok, Fmi2Status::Ok, "no panic, no interference");
            let instance = registry::unregister::<Ball>(handle, FmiVersion::Fmi2).unwrap();
            assert!(instance.has_failed());
            let null = guard::<Ball, *mut c_void>(
                std::ptr::null_mut(),
                FmiVersion::Fmi2,
                "fmi2Instantiate",
                || panic!("boom"),
            );
            assert!(null.is_null());
        }
    }

    #[test]
    fn handles_are_only_valid_for_their_version_and_until_freed() {
        let instance = Box::new(Instance::<Ball>::new(
            Kind::CoSimulation,
            Box::new(Silent),
            false,
        ));
        let handle = registry::register(instance, FmiVersion::Fmi3);
        // SAFETY: lookups on a handle this thread owns; unknown handles are never dereferenced.
        unsafe {
            assert!(registry::lookup::<Ball>(handle, FmiVersion::Fmi2).is_none());
            assert!(registry::lookup::<Ball>(handle, FmiVersion::Fmi3).is_some());
            assert!(registry::unregister::<Ball>(handle, FmiVersion::Fmi3).is_some());
            assert!(registry::lookup::<Ball>(handle, FmiVersion::Fmi3).is_none());
            assert!(registry::unregister::<Ball>(handle, FmiVersion::Fmi3).is_none());
        }
    }
}
