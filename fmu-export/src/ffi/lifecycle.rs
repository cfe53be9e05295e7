//! Creating, configuring, resetting and freeing instances, shared by FMI 2.0 and FMI 3.0.

use std::ffi::{c_char, c_void};

use crate::ffi::{arrays, call, registry, with_instance, Access, Standard};
use crate::instance::lifecycle::Kind;
use crate::instance::logging::{Category, Logger};
use crate::instance::outcome::{Outcome, Problem, Status};
use crate::instance::Instance;
use crate::system::System;

/// Creates and registers an instance after checking the instance name and the
/// instantiation token (GUID); on failure logs the reason through `logger` and returns NULL.
pub fn instantiate<S: System, F: Standard>(
    function: &str,
    name: Outcome<&str>,
    token: Outcome<&str>,
    kind: Kind,
    logger: Box<dyn Logger>,
    logging_on: F::Boolean,
    configure: impl FnOnce(&mut Instance<S>),
) -> *mut c_void {
    let checked = name.and_then(|name| match name {
        "" => Err(Problem::error("instanceName is empty")),
        _ => token,
    });
    let token = match checked {
        Ok(token) => token,
        Err(problem) => {
            logger.log(
                Status::Error,
                Category::StatusError,
                &format!("{function}: {problem}"),
            );
            return std::ptr::null_mut();
        }
    };
    let mut instance = Instance::<S>::new(kind, logger, F::is_true(logging_on));
    if token != instance.token() {
        let problem = Problem::error(format!(
            "instantiation token {token} does not match this binary's {} (a model description of another build?)",
            instance.token()
        ));
        instance.report(function, Err(problem));
        return std::ptr::null_mut();
    }
    configure(&mut instance);
    registry::register(Box::new(instance), F::VERSION)
}

/// fmiFreeInstance (NULL and unknown handles are ignored).
///
/// # Safety
/// `handle` NULL or from this library's instantiate function of `F`, not used concurrently.
pub unsafe fn free_instance<S: System, F: Standard>(handle: *mut c_void) {
    // SAFETY: the caller's contract on `handle`; the registry ignores unknown handles.
    drop(unsafe { registry::unregister::<S>(handle, F::VERSION) });
}

/// fmiSetDebugLogging (also on a failed instance).
///
/// # Safety
/// `handle` as for [`with_instance`]; `categories` NULL or an array of `n` C strings.
pub unsafe fn set_debug_logging<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    logging_on: F::Boolean,
    n: usize,
    categories: *const *const c_char,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: `categories` is an array of `n` C strings (caller).
        let pointers = unsafe { arrays::input(categories, n, "categories")? };
        let names = pointers
            .iter()
            // SAFETY: each entry is a NUL-terminated string (caller).
            .map(|&p| unsafe { arrays::string(p, "categories[i]") })
            .collect::<Outcome<Vec<_>>>()?;
        inst.set_debug_logging(F::is_true(logging_on), &names)
    };
    let args = format_args!("loggingOn = {logging_on}, nCategories = {n}");
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Recovery, args, body) }
}

/// fmi2SetupExperiment and fmi3EnterInitializationMode: sets up the experiment, then runs
/// `then` (which enters initialization mode in FMI 3.0).
///
/// # Safety
/// `handle` as for [`with_instance`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn setup_experiment<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    tolerance_defined: F::Boolean,
    tolerance: f64,
    start_time: f64,
    stop_time_defined: F::Boolean,
    stop_time: f64,
    then: fn(&mut Instance<S>) -> Outcome,
) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        let tolerance = F::is_true(tolerance_defined).then_some(tolerance);
        let stop = F::is_true(stop_time_defined).then_some(stop_time);
        inst.setup_experiment(tolerance, start_time, stop)?;
        then(inst)
    };
    let args =
        format_args!("tolerance = {tolerance}, startTime = {start_time}, stopTime = {stop_time}");
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}

/// fmiReset (also on a failed instance).
///
/// # Safety
/// `handle` as for [`with_instance`].
pub unsafe fn reset<S: System, F: Standard>(handle: *mut c_void, function: &str) -> F::Status {
    let body = |inst: &mut Instance<S>| {
        inst.reset();
        Ok(())
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { call::<S, F>(handle, function, Access::Recovery, body) }
}
