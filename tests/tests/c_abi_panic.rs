//! A panic inside model code, behind the C ABI, must become an Error status with a log
//! message, mark the instance failed, and leave the host process running. Uses the fixture
//! model of `tests/fixtures/panicking-model`, whose derivative panics when `panic = 1`.
//! (A separate test binary from `c_abi.rs`: two model crates cannot be linked into one
//! binary, since each exports the same fmi* symbols.)

mod common;

use std::sync::LazyLock;

use common::linked::Linked;
use common::{Fmi2, Fmi3, Fmu, Interface};
use fmu_export::fmi2::types::{Fmi2Status, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::Fmi3Status;
use fmu_export::OdeModel;
use panicking_model::PanickingModel;

/// The linked panicking model.
static MODEL: LazyLock<Linked> = LazyLock::new(|| Linked::new(PanickingModel.declaration()));

const PANIC_MESSAGE: &str = "deliberate test panic";

#[test]
fn a_panic_becomes_an_error_and_reset_recovers_the_instance() {
    let fmu = Fmu::load("panicking-model");
    let inst = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    assert_eq!(inst.set_real(&[MODEL.vr("panic")], &[1.0]), Fmi2Status::Ok);
    assert_eq!(
        inst.initialize(),
        Fmi2Status::Error,
        "exitInitializationMode evaluates the derivative"
    );
    assert!(
        inst.messages
            .contains("fmi2ExitInitializationMode: panic: "),
        "{:?}",
        inst.messages.all()
    );
    assert!(inst.messages.contains(PANIC_MESSAGE));
    assert_eq!(
        inst.get_real(&[MODEL.vr("x")]).0,
        Fmi2Status::Error,
        "the instance is marked failed"
    );
    assert!(inst.messages.contains("failed in an earlier call"));
    assert_eq!(inst.unary("fmi2Reset"), Fmi2Status::Ok);
    assert_eq!(
        inst.initialize(),
        Fmi2Status::Ok,
        "reset restored panic = 0"
    );
    assert_eq!(inst.new_discrete_states().0, Fmi2Status::Ok);
    assert_eq!(inst.unary("fmi2EnterContinuousTimeMode"), Fmi2Status::Ok);
    assert_eq!(
        inst.array("fmi2GetDerivatives", 1),
        (Fmi2Status::Ok, vec![-1.0])
    );
}

#[test]
fn an_fmu_state_restores_an_instance_that_panicked() {
    let fmu = Fmu::load("panicking-model");
    let inst = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    let healthy = inst.get_state();
    assert_eq!(
        inst.set_float64(&[MODEL.vr("panic")], &[1.0]),
        Fmi3Status::Ok
    );
    let (status, dx) = inst.array("fmi3GetContinuousStateDerivatives", 1);
    assert_eq!(status, Fmi3Status::Error);
    assert!(dx[0].is_nan(), "nothing was written");
    assert!(
        inst.messages.contains(PANIC_MESSAGE),
        "{:?}",
        inst.messages.all()
    );
    assert_eq!(inst.get_float64(&[MODEL.vr("x")]).0, Fmi3Status::Error);
    assert_eq!(inst.set_state(healthy), Fmi3Status::Ok);
    assert_eq!(
        inst.array("fmi3GetContinuousStateDerivatives", 1),
        (Fmi3Status::Ok, vec![-1.0])
    );
}

#[test]
fn a_panic_in_a_directional_derivative_is_an_error() {
    let fmu = Fmu::load("panicking-model");
    let inst = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    assert_eq!(
        inst.set_float64(&[MODEL.vr("panic")], &[1.0]),
        Fmi3Status::Ok
    );
    let (status, _) = inst.product(true, &[MODEL.vr("der(x)")], &[MODEL.vr("x")], &[1.0]);
    assert_eq!(status, Fmi3Status::Error);
    assert!(
        inst.messages.contains("fmi3GetAdjointDerivative: panic: "),
        "{:?}",
        inst.messages.all()
    );
}

/// Co-Simulation: the panic happens wherever the derivative is first evaluated — in the
/// integrator's initialization or in the first doStep (or, while the integrators are still
/// placeholders, in their unimplemented code). Either way the call returns Error.
#[test]
fn a_panic_during_cosimulation_is_an_error() {
    let fmu = Fmu::load("panicking-model");
    let inst = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    assert_eq!(inst.set_real(&[MODEL.vr("panic")], &[1.0]), Fmi2Status::Ok);
    match inst.initialize() {
        Fmi2Status::Error => assert!(
            inst.messages
                .contains("fmi2ExitInitializationMode: panic: "),
            "{:?}",
            inst.messages.all()
        ),
        Fmi2Status::Ok => {
            assert_eq!(inst.do_step(0.0, 0.1), Fmi2Status::Error);
            assert!(
                inst.messages.contains(PANIC_MESSAGE),
                "{:?}",
                inst.messages.all()
            );
        }
        other => panic!("exitInitializationMode returned {other:?}"),
    }
    assert_eq!(
        inst.do_step(0.0, 0.1),
        Fmi2Status::Error,
        "the instance is marked failed"
    );
}

/// FMI 3.0 Co-Simulation: the panic surfaces in exitInitializationMode or the first doStep,
/// as an Error with the panic's message; afterwards every call on the instance is an Error
/// until fmi3Reset, and the process keeps running.
#[test]
fn a_panic_during_fmi3_cosimulation_is_an_error() {
    let fmu = Fmu::load("panicking-model");
    let inst = Fmi3::instantiate(&fmu, Interface::CoSimulation, &MODEL.token()).unwrap();
    assert_eq!(
        inst.set_float64(&[MODEL.vr("panic")], &[1.0]),
        Fmi3Status::Ok
    );
    match inst.initialize() {
        Fmi3Status::Error => {}
        Fmi3Status::Ok => assert_eq!(inst.do_step(0.0, 0.1).0, Fmi3Status::Error),
        other => panic!("exitInitializationMode returned {other:?}"),
    }
    assert!(
        inst.messages.contains(": panic: "),
        "{:?}",
        inst.messages.all()
    );
    assert!(
        inst.messages.contains(PANIC_MESSAGE),
        "{:?}",
        inst.messages.all()
    );
    assert_eq!(
        inst.do_step(0.0, 0.1).0,
        Fmi3Status::Error,
        "the instance is marked failed"
    );
    assert_eq!(inst.get_float64(&[MODEL.vr("x")]).0, Fmi3Status::Error);
    assert_eq!(inst.unary("fmi3Reset"), Fmi3Status::Ok);
    assert_eq!(
        inst.initialize(),
        Fmi3Status::Ok,
        "reset restored panic = 0"
    );
    assert_eq!(inst.do_step(0.0, 0.1).0, Fmi3Status::Ok);
}
