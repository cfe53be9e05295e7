//! The library API over real FMU instances, in-process: value access, initialization,
//! stepping, Model Exchange calls, FMU state round trips, moving instances across threads
//! and the log callback. The pythonfmu FMUs need the Python runtime's symbols, so the test
//! process loads libpython globally first.

mod common;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use common::pythonfmu::{build, libpython};
use fmi_host::Error;
use tandem::instance::prelude::*;
use tandem::instance::{LogLevel, LogMessage, LogSettings};
use tandem::model_description::{InterfaceType, Values, VariableType};
use tandem::Fmu;

/// Makes the Python runtime's symbols global and serializes the tests (one embedded
/// interpreter per process).
fn python_runtime() -> MutexGuard<'static, ()> {
    static RUNTIME: OnceLock<libloading::os::unix::Library> = OnceLock::new();
    static SERIAL: Mutex<()> = Mutex::new(());
    RUNTIME.get_or_init(|| {
        // SAFETY: loading libpython runs no code that depends on this process's state.
        unsafe {
            libloading::os::unix::Library::open(
                Some(libpython()),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
            )
        }
        .expect("load libpython")
    });
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn reference(fmu: &Fmu, name: &str) -> u32 {
    fmu.model_description()
        .variable(name)
        .unwrap_or_else(|| panic!("variable {name}"))
        .value_reference
}

fn quiet() -> LogSettings {
    LogSettings {
        level: LogLevel::Off,
        ..LogSettings::default()
    }
}

fn read(instance: &mut dyn FmuInstance, vr: u32) -> f64 {
    let mut value = [0.0];
    instance.get_real(&[vr], &mut value).unwrap();
    value[0]
}

#[test]
fn fmi2_co_simulation_with_state_round_trips_and_threads() {
    let _runtime = python_runtime();
    let fmu = Fmu::open(build("pythonfmu", "linear_decay_fmi2", "LinearDecay")).unwrap();
    assert!(
        fmu.model_description()
            .co_simulation
            .as_ref()
            .unwrap()
            .capabilities
            .can_get_and_set_fmu_state
    );
    let (k, x) = (reference(&fmu, "k"), reference(&fmu, "x"));
    let mut instance = fmu
        .instantiate(InterfaceType::CoSimulation, "decay", quiet())
        .unwrap();
    instance.set_real(&[k], &[1.0]).unwrap();
    instance
        .enter_initialization_mode(None, 0.0, Some(2.0))
        .unwrap();
    instance.exit_initialization_mode().unwrap();
    let mut time = 0.0;
    let mut advance = |instance: &mut dyn FmuInstance, steps: usize| {
        for _ in 0..steps {
            let outcome = instance.do_step(time, 0.1).unwrap();
            assert!(!outcome.terminate && !outcome.partial);
            time += 0.1;
        }
    };
    advance(instance.as_mut(), 5);
    let saved = instance.get_fmu_state().unwrap();
    let at_half = read(instance.as_mut(), x);
    assert!(
        (at_half - 2.0 * (-0.5f64).exp()).abs() < 1e-12,
        "x(0.5) = {at_half}"
    );
    advance(instance.as_mut(), 5);
    let at_one = read(instance.as_mut(), x);
    instance.set_fmu_state(&saved).unwrap();
    assert_eq!(
        read(instance.as_mut(), x),
        at_half,
        "restoring the state restores x"
    );
    let bytes = instance.serialize_fmu_state(&saved).unwrap();
    assert!(!bytes.is_empty());
    instance.free_fmu_state(saved).unwrap();
    // Continue on another thread: instances are Send.
    let mut instance = std::thread::spawn(move || {
        for k in 5..10 {
            instance.do_step(0.1 * k as f64, 0.1).unwrap();
        }
        instance
    })
    .join()
    .unwrap();
    assert!(
        (read(instance.as_mut(), x) - at_one).abs() < 1e-15,
        "the repeated steps give the same x(1)"
    );
    let restored = instance.deserialize_fmu_state(&bytes).unwrap();
    instance.set_fmu_state(&restored).unwrap();
    assert_eq!(
        read(instance.as_mut(), x),
        at_half,
        "a deserialized state restores x(0.5)"
    );
    instance.free_fmu_state(restored).unwrap();
    instance.terminate().unwrap();
}

#[test]
fn fmu_states_belong_to_their_instance() {
    let _runtime = python_runtime();
    let fmu = Fmu::open(build("pythonfmu", "linear_decay_fmi2", "LinearDecay")).unwrap();
    let mut first = fmu
        .instantiate(InterfaceType::CoSimulation, "first", quiet())
        .unwrap();
    let mut second = fmu
        .instantiate(InterfaceType::CoSimulation, "second", quiet())
        .unwrap();
    for instance in [&mut first, &mut second] {
        instance.enter_initialization_mode(None, 0.0, None).unwrap();
        instance.exit_initialization_mode().unwrap();
    }
    let state = first.get_fmu_state().unwrap();
    let error = second.set_fmu_state(&state).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("instance second: the FMU state was created by another instance"),
        "{error}"
    );
    first.free_fmu_state(state).unwrap();
}

#[test]
fn fmi3_model_exchange_calls_and_typed_access() {
    let _runtime = python_runtime();
    let fmu = Fmu::open(build("pythonfmu3", "decay_me_fmi3", "Decay")).unwrap();
    let (k, x) = (reference(&fmu, "k"), reference(&fmu, "x"));
    let mut instance = fmu
        .instantiate_fmi3(InterfaceType::ModelExchange, "decay", quiet())
        .unwrap();
    instance.set_float64(&[k], &[3.0]).unwrap();
    instance
        .enter_initialization_mode(Some(1e-6), 0.0, None)
        .unwrap();
    instance.exit_initialization_mode().unwrap();
    let update = instance.update_discrete_states().unwrap();
    assert!(
        !update.discrete_states_need_update
            && !update.terminate
            && update.next_event_time.is_none()
    );
    instance.enter_continuous_time_mode().unwrap();
    assert_eq!(instance.number_of_continuous_states(), 1);
    assert_eq!(instance.number_of_event_indicators(), 0);
    let mut states = [0.0];
    instance.get_continuous_states(&mut states).unwrap();
    assert_eq!(states, [1.0], "the start value");
    instance.set_time(0.25).unwrap();
    instance.set_continuous_states(&[2.0]).unwrap();
    let mut derivatives = [0.0];
    instance.get_derivatives(&mut derivatives).unwrap();
    assert_eq!(derivatives, [-6.0], "x' = -k x");
    let mut nominals = [0.0];
    instance
        .get_nominals_of_continuous_states(&mut nominals)
        .unwrap();
    assert_eq!(nominals, [1.0]);
    assert_eq!(
        instance.get_values(VariableType::Float64, &[x]).unwrap(),
        Values::Float(vec![2.0])
    );
    let step = instance.completed_integrator_step(true).unwrap();
    assert!(!step.enter_event_mode && !step.terminate);
    let error = instance.do_step(0.0, 0.1).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Unsupported {
                function: "fmi3DoStep",
                ..
            }
        ),
        "{error}"
    );
    instance.terminate().unwrap();
}

#[test]
fn the_log_callback_reaches_the_user_and_explains_failures() {
    let _runtime = python_runtime();
    let fmu = Fmu::open(build("pythonfmu", "failing_fmi2", "Failing")).unwrap();
    let messages: Arc<Mutex<Vec<LogMessage>>> = Arc::default();
    let sink = messages.clone();
    let settings = LogSettings {
        level: LogLevel::Info,
        logger: Arc::new(move |m: &LogMessage| sink.lock().unwrap().push(m.clone())),
    };
    let mut instance = fmu
        .instantiate(InterfaceType::CoSimulation, "breaking", settings)
        .unwrap();
    instance.enter_initialization_mode(None, 0.0, None).unwrap();
    instance.exit_initialization_mode().unwrap();
    instance.do_step(0.0, 0.25).unwrap();
    let error = instance.do_step(0.5, 0.25).unwrap_err().to_string();
    assert!(
        error.starts_with("instance breaking: fmi2DoStep returned"),
        "{error}"
    );
    assert!(
        error.contains("the slave breaks at t = 0.5"),
        "the FMU's message explains the failure: {error}"
    );
    let messages = messages.lock().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m.instance == "breaking" && m.message.contains("the slave breaks")),
        "{messages:?}"
    );
}
