//! FMI 2.0 functions common to Model Exchange and Co-Simulation: version, logging,
//! instantiation and the initialization/termination sequence.

use std::ffi::c_char;

use crate::ffi::{arrays, call, lifecycle, Access};
use crate::fmi2::logger::Fmi2Logger;
use crate::fmi2::types::*;
use crate::instance::lifecycle::Kind;
use crate::instance::logging::{Category, Logger};
use crate::instance::outcome::Status;
use crate::instance::Instance;
use crate::system::System;

/// fmi2GetTypesPlatform.
pub fn get_types_platform<S: System>() -> *const c_char {
    c"default".as_ptr()
}

/// fmi2GetVersion.
pub fn get_version<S: System>() -> *const c_char {
    c"2.0".as_ptr()
}

/// fmi2SetDebugLogging.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `categories` an array of `n` C strings.
pub unsafe fn set_debug_logging<S: System>(
    c: Fmi2Component,
    logging_on: Fmi2Boolean,
    n: usize,
    categories: *const Fmi2String,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        lifecycle::set_debug_logging::<S, Fmi2>(c, "fmi2SetDebugLogging", logging_on, n, categories)
    }
}

/// fmi2Instantiate: NULL (with a log message where possible) for a NULL or empty instance
/// name, NULL callbacks or logger, an unknown fmuType, or a GUID of another model.
///
/// # Safety
/// FMI 2.0 contract: strings NULL or NUL-terminated; `functions` NULL or valid.
pub unsafe fn instantiate<S: System>(
    instance_name: Fmi2String,
    fmu_type: Fmi2Type,
    guid: Fmi2String,
    _resource_location: Fmi2String,
    functions: *const Fmi2CallbackFunctions,
    _visible: Fmi2Boolean,
    logging_on: Fmi2Boolean,
) -> Fmi2Component {
    // SAFETY: `functions` is NULL or points to the host's callback struct (FMI 2.0 contract).
    let Some(callbacks) = (unsafe { functions.as_ref() }).copied() else {
        return std::ptr::null_mut();
    };
    if callbacks.logger.is_none() {
        return std::ptr::null_mut();
    }
    // SAFETY: NUL-terminated or NULL (FMI 2.0 contract).
    let (name, guid) = unsafe {
        (
            arrays::string(instance_name, "instanceName"),
            arrays::string(guid, "fmuGUID"),
        )
    };
    let logger = Fmi2Logger::new(
        callbacks.logger,
        callbacks.component_environment,
        name.as_deref().unwrap_or(""),
    );
    let kind = match fmu_type {
        FMI2_MODEL_EXCHANGE => Kind::ModelExchange,
        FMI2_CO_SIMULATION => Kind::CoSimulation,
        other => {
            let why = format!("fmi2Instantiate: fmuType {other} is neither fmi2ModelExchange (0) nor fmi2CoSimulation (1)");
            logger.log(Status::Error, Category::StatusError, &why);
            return std::ptr::null_mut();
        }
    };
    lifecycle::instantiate::<S, Fmi2>(
        "fmi2Instantiate",
        name,
        guid,
        kind,
        Box::new(logger),
        logging_on,
        |_| (),
    )
}

/// fmi2FreeInstance (NULL and unknown handles are ignored).
///
/// # Safety
/// FMI 2.0 contract: `c` NULL or from fmi2Instantiate, not used concurrently.
pub unsafe fn free_instance<S: System>(c: Fmi2Component) {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { lifecycle::free_instance::<S, Fmi2>(c) }
}

/// fmi2SetupExperiment.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn setup_experiment<S: System>(
    c: Fmi2Component,
    tolerance_defined: Fmi2Boolean,
    tolerance: Fmi2Real,
    start_time: Fmi2Real,
    stop_time_defined: Fmi2Boolean,
    stop_time: Fmi2Real,
) -> Fmi2Status {
    let (function, then) = ("fmi2SetupExperiment", |_: &mut Instance<S>| Ok(()));
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        lifecycle::setup_experiment::<S, Fmi2>(
            c,
            function,
            tolerance_defined,
            tolerance,
            start_time,
            stop_time_defined,
            stop_time,
            then,
        )
    }
}

/// fmi2EnterInitializationMode.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn enter_initialization_mode<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        call::<S, Fmi2>(
            c,
            "fmi2EnterInitializationMode",
            Access::Normal,
            Instance::enter_initialization_mode,
        )
    }
}

/// fmi2ExitInitializationMode.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn exit_initialization_mode<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe {
        call::<S, Fmi2>(
            c,
            "fmi2ExitInitializationMode",
            Access::Normal,
            Instance::exit_initialization_mode,
        )
    }
}

/// fmi2Terminate.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn terminate<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { call::<S, Fmi2>(c, "fmi2Terminate", Access::Normal, Instance::terminate) }
}

/// fmi2Reset (also on a failed instance).
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn reset<S: System>(c: Fmi2Component) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract on `c`.
    unsafe { lifecycle::reset::<S, Fmi2>(c, "fmi2Reset") }
}
