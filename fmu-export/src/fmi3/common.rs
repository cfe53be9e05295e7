//! FMI 3.0 functions common to Model Exchange and Co-Simulation: version, logging,
//! instantiation, the initialization/termination sequence and event mode.

use std::ffi::c_char;

use crate::ffi::{arrays, call, lifecycle, Access, Standard};
use crate::fmi3::logger::Fmi3Logger;
use crate::fmi3::types::*;
use crate::instance::lifecycle::Kind;
use crate::instance::logging::{Category, Logger};
use crate::instance::outcome::Status;
use crate::instance::Instance;
use crate::system::System;

/// fmi3GetVersion.
pub fn get_version<S: System>() -> *const c_char {
    c"3.0".as_ptr()
}

/// fmi3SetDebugLogging.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `categories` an array of
/// `n` C strings.
pub unsafe fn set_debug_logging<S: System>(
    instance: Fmi3Instance,
    logging_on: Fmi3Boolean,
    n: usize,
    categories: *const Fmi3String,
) -> Fmi3Status {
    let function = "fmi3SetDebugLogging";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        lifecycle::set_debug_logging::<S, Fmi3>(instance, function, logging_on, n, categories)
    }
}

/// The checks both instantiate functions share.
///
/// # Safety
/// `name` and `token` NULL or NUL-terminated.
unsafe fn instantiate<S: System>(
    function: &str,
    name: Fmi3String,
    token: Fmi3String,
    kind: Kind,
    logging_on: Fmi3Boolean,
    logger: Fmi3Logger,
    configure: impl FnOnce(&mut Instance<S>),
) -> Fmi3Instance {
    // SAFETY: NULL or NUL-terminated (caller).
    let (name, token) = unsafe {
        (
            arrays::string(name, "instanceName"),
            arrays::string(token, "instantiationToken"),
        )
    };
    lifecycle::instantiate::<S, Fmi3>(
        function,
        name,
        token,
        kind,
        Box::new(logger),
        logging_on,
        configure,
    )
}

/// fmi3InstantiateModelExchange.
///
/// # Safety
/// FMI 3.0 contract: strings NULL or NUL-terminated; callbacks valid or NULL.
pub unsafe fn instantiate_model_exchange<S: System>(
    instance_name: Fmi3String,
    instantiation_token: Fmi3String,
    _resource_path: Fmi3String,
    _visible: Fmi3Boolean,
    logging_on: Fmi3Boolean,
    environment: Fmi3InstanceEnvironment,
    log_message: Fmi3LogMessageCallback,
) -> Fmi3Instance {
    let logger = Fmi3Logger::new(log_message, environment);
    let function = "fmi3InstantiateModelExchange";
    // SAFETY: the FMI 3.0 contract on the strings.
    unsafe {
        instantiate::<S>(
            function,
            instance_name,
            instantiation_token,
            Kind::ModelExchange,
            logging_on,
            logger,
            |_| (),
        )
    }
}

/// fmi3InstantiateCoSimulation. Early return and intermediate update are not provided:
/// `earlyReturnAllowed`, the required intermediate variables and the intermediateUpdate
/// callback are accepted and not used. With `eventModeUsed` the instance enters event mode
/// after initialization; events inside a step are still handled by the integrator.
///
/// # Safety
/// FMI 3.0 contract: strings NULL or NUL-terminated; callbacks valid or NULL.
#[allow(clippy::too_many_arguments)]
pub unsafe fn instantiate_co_simulation<S: System>(
    instance_name: Fmi3String,
    instantiation_token: Fmi3String,
    _resource_path: Fmi3String,
    _visible: Fmi3Boolean,
    logging_on: Fmi3Boolean,
    event_mode_used: Fmi3Boolean,
    _early_return_allowed: Fmi3Boolean,
    _required_intermediate_variables: *const Fmi3ValueReference,
    _n_required_intermediate_variables: usize,
    environment: Fmi3InstanceEnvironment,
    log_message: Fmi3LogMessageCallback,
    _intermediate_update: Fmi3IntermediateUpdateCallback,
) -> Fmi3Instance {
    let logger = Fmi3Logger::new(log_message, environment);
    let configure =
        |inst: &mut Instance<S>| inst.set_event_mode_used(Fmi3::is_true(event_mode_used));
    let function = "fmi3InstantiateCoSimulation";
    // SAFETY: the FMI 3.0 contract on the strings.
    unsafe {
        instantiate::<S>(
            function,
            instance_name,
            instantiation_token,
            Kind::CoSimulation,
            logging_on,
            logger,
            configure,
        )
    }
}

/// fmi3InstantiateScheduledExecution: not provided by Tandem's FMUs (NULL, with a log message).
#[allow(clippy::too_many_arguments)]
pub fn instantiate_scheduled_execution<S: System>(
    _instance_name: Fmi3String,
    _instantiation_token: Fmi3String,
    _resource_path: Fmi3String,
    _visible: Fmi3Boolean,
    _logging_on: Fmi3Boolean,
    environment: Fmi3InstanceEnvironment,
    log_message: Fmi3LogMessageCallback,
    _clock_update: Fmi3ClockUpdateCallback,
    _lock_preemption: Fmi3PreemptionCallback,
    _unlock_preemption: Fmi3PreemptionCallback,
) -> Fmi3Instance {
    let message =
        "fmi3InstantiateScheduledExecution: this FMU does not provide Scheduled Execution \
                   (only Model Exchange and Co-Simulation)";
    Fmi3Logger::new(log_message, environment).log(Status::Error, Category::StatusError, message);
    std::ptr::null_mut()
}

/// fmi3FreeInstance (NULL and unknown handles are ignored).
///
/// # Safety
/// FMI 3.0 contract: `instance` NULL or from an fmi3Instantiate function, not used concurrently.
pub unsafe fn free_instance<S: System>(instance: Fmi3Instance) {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { lifecycle::free_instance::<S, Fmi3>(instance) }
}

/// fmi3EnterInitializationMode (with the experiment setup of FMI 2.0's setupExperiment).
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn enter_initialization_mode<S: System>(
    instance: Fmi3Instance,
    tolerance_defined: Fmi3Boolean,
    tolerance: Fmi3Float64,
    start_time: Fmi3Float64,
    stop_time_defined: Fmi3Boolean,
    stop_time: Fmi3Float64,
) -> Fmi3Status {
    let (function, then) = (
        "fmi3EnterInitializationMode",
        Instance::enter_initialization_mode,
    );
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        lifecycle::setup_experiment::<S, Fmi3>(
            instance,
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

/// fmi3ExitInitializationMode.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn exit_initialization_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        call::<S, Fmi3>(
            instance,
            "fmi3ExitInitializationMode",
            Access::Normal,
            Instance::exit_initialization_mode,
        )
    }
}

/// fmi3EnterEventMode.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn enter_event_mode<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        call::<S, Fmi3>(
            instance,
            "fmi3EnterEventMode",
            Access::Normal,
            Instance::enter_event_mode,
        )
    }
}

/// fmi3Terminate.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn terminate<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe {
        call::<S, Fmi3>(
            instance,
            "fmi3Terminate",
            Access::Normal,
            Instance::terminate,
        )
    }
}

/// fmi3Reset (also on a failed instance).
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn reset<S: System>(instance: Fmi3Instance) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { lifecycle::reset::<S, Fmi3>(instance, "fmi3Reset") }
}

/// fmi3UpdateDiscreteStates.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; out-pointers valid.
pub unsafe fn update_discrete_states<S: System>(
    instance: Fmi3Instance,
    discrete_states_need_update: *mut Fmi3Boolean,
    terminate_simulation: *mut Fmi3Boolean,
    nominals_changed: *mut Fmi3Boolean,
    values_changed: *mut Fmi3Boolean,
    next_event_time_defined: *mut Fmi3Boolean,
    next_event_time: *mut Fmi3Float64,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: all out-pointers point to the host's variables (FMI 3.0 contract).
        let slots = unsafe {
            (
                arrays::out_param(discrete_states_need_update, "discreteStatesNeedUpdate")?,
                arrays::out_param(terminate_simulation, "terminateSimulation")?,
                arrays::out_param(nominals_changed, "nominalsOfContinuousStatesChanged")?,
                arrays::out_param(values_changed, "valuesOfContinuousStatesChanged")?,
                arrays::out_param(next_event_time_defined, "nextEventTimeDefined")?,
                arrays::out_param(next_event_time, "nextEventTime")?,
            )
        };
        let info = inst.update_discrete_states()?;
        *slots.0 = Fmi3::boolean(info.discrete_states_need_update);
        *slots.1 = Fmi3::boolean(info.terminate_simulation);
        *slots.2 = Fmi3::boolean(info.nominals_changed);
        *slots.3 = Fmi3::boolean(info.values_changed);
        *slots.4 = Fmi3::boolean(info.next_event_time.is_some());
        *slots.5 = info.next_event_time.unwrap_or(0.0);
        Ok(())
    };
    // SAFETY: the FMI 3.0 contract on `instance`.
    unsafe { call::<S, Fmi3>(instance, "fmi3UpdateDiscreteStates", Access::Normal, body) }
}
