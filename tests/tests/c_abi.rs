//! End-to-end checks of the oscillator's FMI 2.0 and FMI 3.0 C ABI, through the shared
//! library loaded with libloading: model equations, exact derivatives against finite
//! differences, FMU state, and bad calls that must return Error without aborting.

mod common;

use std::sync::LazyLock;

use common::linked::Linked;
use common::{randoms, Fmi2, Fmi3, Fmu, Interface};
use fmu_export::fmi2::types::{Fmi2Status, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::Fmi3Status;
use fmu_export::MechanicalModel;
use oscillator::Oscillator;

/// The linked oscillator.
static MODEL: LazyLock<Linked> = LazyLock::new(|| Linked::new(Oscillator.declaration()));

fn fmu() -> Fmu {
    Fmu::load("oscillator")
}

/// The oscillator's right-hand side `(v, (-c x - d v + F) / m)`.
fn rhs(x: f64, v: f64, f: f64, m: f64, c: f64, d: f64) -> [f64; 2] {
    [v, (-c * x - d * v + f) / m]
}

const FMI2_FUNCTIONS: [&str; 44] = [
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
];

const FMI3_FUNCTIONS: [&str; 75] = [
    "fmi3GetVersion",
    "fmi3SetDebugLogging",
    "fmi3InstantiateModelExchange",
    "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3EnterEventMode",
    "fmi3Terminate",
    "fmi3Reset",
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetUInt8",
    "fmi3GetInt16",
    "fmi3GetUInt16",
    "fmi3GetInt32",
    "fmi3GetUInt32",
    "fmi3GetInt64",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
    "fmi3GetBinary",
    "fmi3GetClock",
    "fmi3SetFloat32",
    "fmi3SetFloat64",
    "fmi3SetInt8",
    "fmi3SetUInt8",
    "fmi3SetInt16",
    "fmi3SetUInt16",
    "fmi3SetInt32",
    "fmi3SetUInt32",
    "fmi3SetInt64",
    "fmi3SetUInt64",
    "fmi3SetBoolean",
    "fmi3SetString",
    "fmi3SetBinary",
    "fmi3SetClock",
    "fmi3GetNumberOfVariableDependencies",
    "fmi3GetVariableDependencies",
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
    "fmi3GetDirectionalDerivative",
    "fmi3GetAdjointDerivative",
    "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode",
    "fmi3GetIntervalDecimal",
    "fmi3GetIntervalFraction",
    "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction",
    "fmi3SetIntervalDecimal",
    "fmi3SetIntervalFraction",
    "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction",
    "fmi3EvaluateDiscreteStates",
    "fmi3UpdateDiscreteStates",
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetContinuousStates",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetNumberOfContinuousStates",
    "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives",
    "fmi3DoStep",
    "fmi3ActivateModelPartition",
];

#[test]
fn every_fmi2_and_fmi3_function_is_exported() {
    let fmu = fmu();
    let missing: Vec<_> = FMI2_FUNCTIONS
        .iter()
        .chain(&FMI3_FUNCTIONS)
        .filter(|name| !fmu.exports(name))
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    type Text = unsafe extern "C" fn() -> *const std::ffi::c_char;
    let text = |name: &str| {
        // SAFETY: these functions return static NUL-terminated strings.
        unsafe { std::ffi::CStr::from_ptr(fmu.func::<Text>(name)()) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(text("fmi2GetVersion"), "2.0");
    assert_eq!(text("fmi2GetTypesPlatform"), "default");
    assert_eq!(text("fmi3GetVersion"), "3.0");
}

#[test]
fn fmi2_model_exchange_derivatives_and_outputs_follow_the_model_equations() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    let (m, c, d, f) = (1.5, 250.0, 4.0, 0.7);
    assert_eq!(inst.set_real(&[MODEL.vr("m")], &[m]), Fmi2Status::Ok);
    assert_eq!(inst.initialize(), Fmi2Status::Ok);
    assert_eq!(
        inst.set_real(&[MODEL.vr("c"), MODEL.vr("d"), MODEL.vr("F")], &[c, d, f]),
        Fmi2Status::Ok
    );
    assert_eq!(inst.new_discrete_states().0, Fmi2Status::Ok);
    assert_eq!(inst.unary("fmi2EnterContinuousTimeMode"), Fmi2Status::Ok);
    for (x, v) in [(0.01, 0.0), (-0.3, 2.0), (1e-3, -4.5)] {
        assert_eq!(inst.set_time(0.1), Fmi2Status::Ok);
        assert_eq!(inst.set_states(&[x, v]), Fmi2Status::Ok);
        let (status, dx) = inst.array("fmi2GetDerivatives", 2);
        assert_eq!(status, Fmi2Status::Ok);
        let expected = rhs(x, v, f, m, c, d);
        assert_eq!(dx[0], expected[0]);
        assert!(
            (dx[1] - expected[1]).abs() <= 1e-14 * expected[1].abs().max(1.0),
            "{dx:?} vs {expected:?}"
        );
        let (status, y) = inst.get_real(&[
            MODEL.vr("position"),
            MODEL.vr("velocity"),
            MODEL.vr("acceleration"),
            MODEL.vr("der(v)"),
        ]);
        assert_eq!(status, Fmi2Status::Ok);
        assert_eq!(&y[..2], &[x, v]);
        assert_eq!(y[2], dx[1]);
        assert_eq!(y[3], dx[1]);
    }
    let (status, nominals) = inst.array("fmi2GetNominalsOfContinuousStates", 2);
    assert_eq!((status, nominals), (Fmi2Status::Ok, vec![1.0, 1.0]));
}

#[test]
fn fmi3_model_exchange_derivatives_follow_the_model_equations() {
    let fmu = fmu();
    let inst = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    assert_eq!(inst.update_discrete_states().0, Fmi3Status::Ok);
    assert_eq!(inst.unary("fmi3EnterContinuousTimeMode"), Fmi3Status::Ok);
    assert_eq!(inst.set_float64(&[MODEL.vr("F")], &[-2.0]), Fmi3Status::Ok);
    assert_eq!(inst.set_states(&[0.2, -0.4]), Fmi3Status::Ok);
    let (status, dx) = inst.array("fmi3GetContinuousStateDerivatives", 2);
    assert_eq!(status, Fmi3Status::Ok);
    let expected = rhs(0.2, -0.4, -2.0, 2.0, 400.0, 3.0);
    assert_eq!(dx[0], expected[0]);
    assert!(
        (dx[1] - expected[1]).abs() <= 1e-14 * expected[1].abs(),
        "{dx:?} vs {expected:?}"
    );
}

/// Unknowns and knowns of the partial-derivative checks.
fn unknowns() -> Vec<u32> {
    ["der(x)", "der(v)", "position", "velocity", "acceleration"]
        .map(|name| MODEL.vr(name))
        .to_vec()
}

fn knowns() -> Vec<u32> {
    ["x", "v", "F", "c", "d"]
        .map(|name| MODEL.vr(name))
        .to_vec()
}

/// An FMI 2.0 ME instance in continuous-time mode at a generic point.
fn fmi2_at_generic_point(fmu: &Fmu) -> Fmi2<'_> {
    let inst = Fmi2::instantiate(fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi2Status::Ok);
    assert_eq!(
        inst.set_real(
            &[MODEL.vr("c"), MODEL.vr("d"), MODEL.vr("F")],
            &[310.0, 2.5, 0.3]
        ),
        Fmi2Status::Ok
    );
    assert_eq!(inst.new_discrete_states().0, Fmi2Status::Ok);
    assert_eq!(inst.unary("fmi2EnterContinuousTimeMode"), Fmi2Status::Ok);
    assert_eq!(inst.set_states(&[0.04, -0.7]), Fmi2Status::Ok);
    inst
}

/// Sets one known through the C ABI the way a host must: states in continuous-time mode,
/// tunable parameters in event mode.
fn set_known(inst: &Fmi2, known: u32, value: f64) {
    if known == MODEL.vr("x") || known == MODEL.vr("v") {
        let (_, mut x) = inst.array("fmi2GetContinuousStates", 2);
        x[(known - MODEL.vr("x")) as usize] = value;
        assert_eq!(inst.set_states(&x), Fmi2Status::Ok);
    } else if known == MODEL.vr("F") {
        assert_eq!(inst.set_real(&[known], &[value]), Fmi2Status::Ok);
    } else {
        assert_eq!(inst.unary("fmi2EnterEventMode"), Fmi2Status::Ok);
        assert_eq!(inst.set_real(&[known], &[value]), Fmi2Status::Ok);
        assert_eq!(inst.new_discrete_states().0, Fmi2Status::Ok);
        assert_eq!(inst.unary("fmi2EnterContinuousTimeMode"), Fmi2Status::Ok);
    }
}

#[test]
fn fmi2_directional_derivatives_match_central_differences() {
    let fmu = fmu();
    let inst = fmi2_at_generic_point(&fmu);
    let (unknowns, knowns) = (unknowns(), knowns());
    for (j, &known) in knowns.iter().enumerate() {
        let mut seed = vec![0.0; knowns.len()];
        seed[j] = 1.0;
        let (status, column) = inst.directional(&unknowns, &knowns, &seed);
        assert_eq!(status, Fmi2Status::Ok);
        let base = inst.get_real(&[known]).1[0];
        let delta = 1e-6 * base.abs().max(1.0);
        set_known(&inst, known, base + delta);
        let plus = inst.get_real(&unknowns).1;
        set_known(&inst, known, base - delta);
        let minus = inst.get_real(&unknowns).1;
        set_known(&inst, known, base);
        for i in 0..unknowns.len() {
            let fd = (plus[i] - minus[i]) / (2.0 * delta);
            assert!(
                (column[i] - fd).abs() <= 1e-6 * column[i].abs().max(1.0),
                "d(vr {})/d(vr {known}): exact {} vs FD {fd}",
                unknowns[i],
                column[i]
            );
        }
    }
    // The fixed mass: d acceleration / d m = -acceleration / m, exactly.
    let (_, a) = inst.get_real(&[MODEL.vr("acceleration")]);
    let (status, da) = inst.directional(&[MODEL.vr("acceleration")], &[MODEL.vr("m")], &[1.0]);
    assert_eq!(status, Fmi2Status::Ok);
    assert!((da[0] + a[0] / 2.0).abs() <= 1e-14 * a[0].abs());
}

#[test]
fn fmi3_adjoint_derivatives_are_transposed_directional_derivatives() {
    let fmu = fmu();
    let inst = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    assert_eq!(
        inst.set_float64(&[MODEL.vr("c"), MODEL.vr("F")], &[123.0, 0.9]),
        Fmi3Status::Ok
    );
    assert_eq!(inst.update_discrete_states().0, Fmi3Status::Ok);
    assert_eq!(inst.unary("fmi3EnterContinuousTimeMode"), Fmi3Status::Ok);
    assert_eq!(inst.set_states(&[0.3, 1.7]), Fmi3Status::Ok);
    let (unknowns, knowns) = (unknowns(), [knowns(), vec![MODEL.vr("m")]].concat());
    for seed in 1..8 {
        let w = randoms(seed, knowns.len());
        let v = randoms(seed + 1000, unknowns.len());
        let (status, jw) = inst.product(false, &unknowns, &knowns, &w);
        assert_eq!(status, Fmi3Status::Ok);
        let (status, jtv) = inst.product(true, &unknowns, &knowns, &v);
        assert_eq!(status, Fmi3Status::Ok);
        let lhs: f64 = v.iter().zip(&jw).map(|(a, b)| a * b).sum();
        let rhs: f64 = jtv.iter().zip(&w).map(|(a, b)| a * b).sum();
        assert!(
            (lhs - rhs).abs() <= 1e-12 * lhs.abs().max(rhs.abs()),
            "v.(Jw) = {lhs}, (J^T v).w = {rhs}"
        );
    }
    let (status, _) = inst.product(true, &unknowns, &knowns, &[1.0; 2]);
    assert_eq!(
        status,
        Fmi3Status::Error,
        "seed length must equal nUnknowns"
    );
    assert!(inst
        .messages
        .contains("seed has 2 entries but there are 5 unknowns"));
}

/// A few explicit Euler steps through the ME interface; returns time and states after them.
fn euler_steps_fmi2(inst: &Fmi2, t0: f64, steps: usize) -> (f64, Vec<f64>) {
    let (h, mut t) = (1e-3, t0);
    for _ in 0..steps {
        let (_, x) = inst.array("fmi2GetContinuousStates", 2);
        let (_, dx) = inst.array("fmi2GetDerivatives", 2);
        t += h;
        assert_eq!(inst.set_time(t), Fmi2Status::Ok);
        assert_eq!(
            inst.set_states(&[x[0] + h * dx[0], x[1] + h * dx[1]]),
            Fmi2Status::Ok
        );
    }
    (t, inst.array("fmi2GetContinuousStates", 2).1)
}

#[test]
fn fmi2_fmu_state_restores_model_exchange_bit_identically() {
    let fmu = fmu();
    let inst = fmi2_at_generic_point(&fmu);
    let state = inst.get_state();
    let first = euler_steps_fmi2(&inst, 0.0, 25);
    assert_eq!(inst.set_state(state), Fmi2Status::Ok);
    assert_eq!(inst.array("fmi2GetContinuousStates", 2).1, vec![0.04, -0.7]);
    let second = euler_steps_fmi2(&inst, 0.0, 25);
    assert_eq!(first, second);

    let bytes = inst.serialize(state);
    let fresh = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    let (status, copy) = fresh.deserialize(&bytes);
    assert_eq!(status, Fmi2Status::Ok);
    assert_eq!(fresh.set_state(copy), Fmi2Status::Ok);
    assert_eq!(inst.set_state(state), Fmi2Status::Ok);
    assert_eq!(fresh.get_real(&unknowns()), inst.get_real(&unknowns()));
    assert_eq!(euler_steps_fmi2(&fresh, 0.0, 25), first);
}

#[test]
fn fmi3_fmu_state_survives_serialization_into_a_fresh_instance() {
    let fmu = fmu();
    let inst = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    assert_eq!(inst.set_float64(&[MODEL.vr("d")], &[7.0]), Fmi3Status::Ok);
    assert_eq!(inst.update_discrete_states().0, Fmi3Status::Ok);
    assert_eq!(inst.unary("fmi3EnterContinuousTimeMode"), Fmi3Status::Ok);
    assert_eq!(inst.set_time(0.25), Fmi3Status::Ok);
    assert_eq!(inst.set_states(&[-0.02, 0.6]), Fmi3Status::Ok);
    let state = inst.get_state();
    let bytes = inst.serialize(state);
    let fresh = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    let (status, copy) = fresh.deserialize(&bytes);
    assert_eq!(status, Fmi3Status::Ok);
    assert_eq!(fresh.set_state(copy), Fmi3Status::Ok);
    let all = MODEL.model_exchange_variables();
    assert_eq!(fresh.get_float64(&all), inst.get_float64(&all));
    assert_eq!(
        fresh.set_time(0.3),
        Fmi3Status::Ok,
        "restored into continuous-time mode"
    );
}

#[test]
fn unknown_value_references_and_types_are_errors() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    assert_eq!(inst.get_real(&[999]).0, Fmi2Status::Error);
    assert!(inst.messages.contains("unknown value reference 999"));
    assert_eq!(
        inst.set_real(&[MODEL.vr("position")], &[1.0]),
        Fmi2Status::Error
    );
    assert!(inst
        .messages
        .contains("position is calculated by the model"));
    let mut int = [0i32];
    let get_integer = fmu.func::<common::Values2<i32>>("fmi2GetInteger");
    assert_eq!(
        // SAFETY: arrays of one element.
        unsafe { get_integer(inst.c, [MODEL.vr("m")].as_ptr(), 1, int.as_mut_ptr()) },
        Fmi2Status::Error
    );
    let get_string = fmu.func::<common::Values2<*const i8>>("fmi2GetString");
    let mut text = [std::ptr::null::<i8>()];
    // SAFETY: arrays of the given lengths (empty first).
    unsafe {
        assert_eq!(
            get_string(inst.c, std::ptr::null(), 0, std::ptr::null_mut()),
            Fmi2Status::Ok
        );
        assert_eq!(
            get_string(inst.c, [1u32].as_ptr(), 1, text.as_mut_ptr()),
            Fmi2Status::Error
        );
    }
    assert!(
        inst.messages.contains("is a Real variable, not String"),
        "{:?}",
        inst.messages.all()
    );

    let inst3 = Fmi3::instantiate(&fmu, Interface::ModelExchange, &MODEL.token()).unwrap();
    let get_float32 = fmu.func::<common::Values3<f32>>("fmi3GetFloat32");
    let mut value = [0f32];
    // SAFETY: arrays of the given lengths.
    unsafe {
        assert_eq!(
            get_float32(inst3.i, std::ptr::null(), 0, std::ptr::null_mut(), 0),
            Fmi3Status::Ok
        );
        assert_eq!(
            get_float32(inst3.i, [MODEL.vr("x")].as_ptr(), 1, value.as_mut_ptr(), 1),
            Fmi3Status::Error
        );
    }
    let get_float64 = fmu.func::<common::Values3<f64>>("fmi3GetFloat64");
    let mut two = [0.0; 2];
    // SAFETY: arrays of the given lengths.
    let status = unsafe { get_float64(inst3.i, [MODEL.vr("x")].as_ptr(), 1, two.as_mut_ptr(), 2) };
    assert_eq!(
        status,
        Fmi3Status::Error,
        "nValues must equal nValueReferences"
    );
    assert!(inst3.messages.contains("2 values for 1 value references"));
}

#[test]
fn null_pointers_and_foreign_handles_are_errors() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    let get_real = fmu.func::<common::Values2<f64>>("fmi2GetReal");
    // SAFETY: deliberately NULL arrays; the FMU must reject them before reading.
    unsafe {
        assert_eq!(
            get_real(inst.c, [MODEL.vr("x")].as_ptr(), 1, std::ptr::null_mut()),
            Fmi2Status::Error
        );
        assert_eq!(
            get_real(inst.c, std::ptr::null(), 1, [0.0].as_mut_ptr()),
            Fmi2Status::Error
        );
        assert_eq!(
            get_real(
                std::ptr::null_mut(),
                [MODEL.vr("x")].as_ptr(),
                1,
                [0.0].as_mut_ptr()
            ),
            Fmi2Status::Error
        );
    }
    assert!(inst.messages.contains("argument values is NULL"));
    let get_state = fmu.func::<common::State2>("fmi2GetFMUstate");
    assert_eq!(
        // SAFETY: a deliberately NULL state slot.
        unsafe { get_state(inst.c, std::ptr::null_mut()) },
        Fmi2Status::Error
    );
    let bogus = 0x1234usize as *mut std::ffi::c_void;
    assert_eq!(inst.set_state(bogus), Fmi2Status::Error);
    assert!(inst.messages.contains("was not created by this instance"));
    let mut foreign = 0xdead_beef_usize as *mut std::ffi::c_void;
    let free_state = fmu.func::<common::State2>("fmi2FreeFMUstate");
    assert_eq!(
        // SAFETY: the FMU only compares the handle with the ones it issued.
        unsafe { free_state(inst.c, &mut foreign) },
        Fmi2Status::Error
    );
    // An FMI 2.0 handle is no FMI 3.0 instance, and a made-up handle is no instance at all.
    let exit3 = fmu.func::<common::Unary3>("fmi3ExitInitializationMode");
    let exit2 = fmu.func::<common::Unary2>("fmi2ExitInitializationMode");
    // SAFETY: the FMU looks the handles up in its registry and never dereferences unknown ones.
    unsafe {
        assert_eq!(exit3(inst.c), Fmi3Status::Error);
        assert_eq!(exit2(bogus), Fmi2Status::Error);
    }
}

#[test]
fn instantiation_refuses_a_wrong_guid_or_interface() {
    let fmu = fmu();
    let messages = Fmi2::instantiate(
        &fmu,
        FMI2_MODEL_EXCHANGE,
        "{00000000-0000-0000-0000-000000000000}",
    )
    .err()
    .unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("does not match this binary's")),
        "{messages:?}"
    );
    let messages = Fmi2::instantiate(&fmu, 7, &MODEL.token()).err().unwrap();
    assert!(
        messages.iter().any(|m| m.contains("fmuType 7")),
        "{messages:?}"
    );
    let messages = Fmi3::instantiate(&fmu, Interface::CoSimulation, "wrong")
        .err()
        .unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("instantiation token wrong")),
        "{messages:?}"
    );
    type Instantiate2 = common::Instantiate2;
    let instantiate = fmu.func::<Instantiate2>("fmi2Instantiate");
    let (name, guid) = (c"x", std::ffi::CString::new(MODEL.token()).unwrap());
    // SAFETY: NULL callbacks, which the FMU must refuse.
    let c = unsafe {
        instantiate(
            name.as_ptr(),
            FMI2_MODEL_EXCHANGE,
            guid.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            0,
        )
    };
    assert!(c.is_null());
}

#[test]
fn garbage_serialized_states_are_refused() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    for garbage in [&b""[..], b"not a state at all", &[0xff; 300]] {
        let (status, state) = inst.deserialize(garbage);
        assert_eq!(status, Fmi2Status::Error);
        assert!(state.is_null());
    }
    assert!(inst
        .messages
        .contains("not a serialized FMU state of this model"));
    let mut bytes = inst.serialize(inst.get_state());
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    assert_eq!(
        inst.deserialize(&bytes).0,
        Fmi2Status::Error,
        "a flipped bit"
    );
    let cs = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    bytes[middle] ^= 1;
    assert_eq!(
        cs.deserialize(&bytes).0,
        Fmi2Status::Error,
        "a Model Exchange state in a Co-Simulation instance"
    );
    assert!(cs.messages.contains("it is a Model Exchange state"));
}

#[test]
fn calls_in_the_wrong_state_are_errors_with_a_log_line() {
    let fmu = fmu();
    let cs = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    assert_eq!(cs.do_step(0.0, 0.01), Fmi2Status::Error);
    assert!(
        cs.messages
            .contains("fmi2DoStep: not allowed in instantiated"),
        "{:?}",
        cs.messages.all()
    );
    assert_eq!(cs.array("fmi2GetDerivatives", 2).0, Fmi2Status::Error);
    assert!(cs
        .messages
        .contains("fmi2GetDerivatives: is a Model Exchange function"));

    let me = Fmi2::instantiate(&fmu, FMI2_MODEL_EXCHANGE, &MODEL.token()).unwrap();
    assert_eq!(me.set_time(1.0), Fmi2Status::Error);
    assert_eq!(me.initialize(), Fmi2Status::Ok);
    assert_eq!(me.set_real(&[MODEL.vr("m")], &[3.0]), Fmi2Status::Error);
    assert!(me
        .messages
        .contains("m is a fixed parameter and cannot be set in event mode"));
    assert_eq!(me.do_step(0.0, 0.01), Fmi2Status::Error);
    assert_eq!(
        me.set_real(&[MODEL.vr("c")], &[-1.0]),
        Fmi2Status::Ok,
        "tunable parameters may change at events"
    );
    assert_eq!(me.unary("fmi2EnterContinuousTimeMode"), Fmi2Status::Ok);
    assert_eq!(
        me.set_real(&[MODEL.vr("c")], &[1.0]),
        Fmi2Status::Error,
        "but not in continuous-time mode"
    );
}

#[test]
fn fmi3_features_that_are_not_provided_are_errors() {
    let fmu = fmu();
    let inst = Fmi3::instantiate(&fmu, Interface::CoSimulation, &MODEL.token()).unwrap();
    assert_eq!(inst.unary("fmi3EnterConfigurationMode"), Fmi3Status::Error);
    assert_eq!(inst.unary("fmi3EvaluateDiscreteStates"), Fmi3Status::Error);
    type Shift = unsafe extern "C" fn(
        fmu_export::fmi3::types::Fmi3Instance,
        *const u32,
        usize,
        *const f64,
    ) -> Fmi3Status;
    // SAFETY: the FMU rejects the call before looking at the arrays.
    let status = unsafe {
        fmu.func::<Shift>("fmi3SetShiftDecimal")(inst.i, [0].as_ptr(), 1, [0.0].as_ptr())
    };
    assert_eq!(status, Fmi3Status::Error);
    assert!(inst
        .messages
        .contains("fmi3SetShiftDecimal: the model declares no clocks"));
    type Scheduled = unsafe extern "C" fn(
        *const i8,
        *const i8,
        *const i8,
        u8,
        u8,
        *mut std::ffi::c_void,
        fmu_export::fmi3::types::Fmi3LogMessageCallback,
        Option<unsafe extern "C" fn(*mut std::ffi::c_void)>,
        Option<unsafe extern "C" fn()>,
        Option<unsafe extern "C" fn()>,
    ) -> *mut std::ffi::c_void;
    let token = std::ffi::CString::new(MODEL.token()).unwrap();
    // SAFETY: valid strings; NULL callbacks are allowed.
    let handle = unsafe {
        fmu.func::<Scheduled>("fmi3InstantiateScheduledExecution")(
            c"se".as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            0,
            0,
            std::ptr::null_mut(),
            None,
            None,
            None,
            None,
        )
    };
    assert!(handle.is_null());
}

/// The analytic solution of `m x'' + d x' + c x = 0` from `x(0) = x0`, `v(0) = 0`.
fn damped(t: f64, x0: f64, m: f64, c: f64, d: f64) -> f64 {
    let (w0, zeta) = ((c / m).sqrt(), d / (2.0 * (c * m).sqrt()));
    let wd = w0 * (1.0 - zeta * zeta).sqrt();
    x0 * (-zeta * w0 * t).exp() * ((wd * t).cos() + zeta * w0 / wd * (wd * t).sin())
}

#[test]
fn fmi2_cosimulation_follows_the_analytic_solution_and_repeats_from_fmu_state() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi2Status::Ok);
    let h = 0.01;
    for k in 0..10 {
        assert_eq!(inst.do_step(k as f64 * h, h), Fmi2Status::Ok);
    }
    let state = inst.get_state();
    let mut first = Vec::new();
    for k in 10..50 {
        assert_eq!(inst.do_step(k as f64 * h, h), Fmi2Status::Ok);
        first.push(
            inst.get_real(&[MODEL.vr("x"), MODEL.vr("v"), MODEL.vr("acceleration")])
                .1,
        );
    }
    let x = first.last().unwrap()[0];
    let exact = damped(0.5, 0.01, 2.0, 400.0, 3.0);
    assert!(
        (x - exact).abs() <= 1e-3 * 0.01,
        "x(0.5) = {x}, analytic {exact}"
    );
    assert_eq!(inst.set_state(state), Fmi2Status::Ok);
    let bytes = inst.serialize(state);
    let fresh = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    let (status, copy) = fresh.deserialize(&bytes);
    assert_eq!(status, Fmi2Status::Ok);
    assert_eq!(fresh.set_state(copy), Fmi2Status::Ok);
    for (k, expected) in (10..50).zip(&first) {
        assert_eq!(inst.do_step(k as f64 * h, h), Fmi2Status::Ok);
        assert_eq!(fresh.do_step(k as f64 * h, h), Fmi2Status::Ok);
        assert_eq!(
            &inst
                .get_real(&[MODEL.vr("x"), MODEL.vr("v"), MODEL.vr("acceleration")])
                .1,
            expected
        );
        assert_eq!(
            &fresh
                .get_real(&[MODEL.vr("x"), MODEL.vr("v"), MODEL.vr("acceleration")])
                .1,
            expected
        );
    }
}

#[test]
fn fmi2_output_derivatives_are_exact() {
    let fmu = fmu();
    let inst = Fmi2::instantiate(&fmu, FMI2_CO_SIMULATION, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi2Status::Ok);
    assert_eq!(inst.do_step(0.0, 0.01), Fmi2Status::Ok);
    type OutputDerivatives = unsafe extern "C" fn(
        *mut std::ffi::c_void,
        *const u32,
        usize,
        *const i32,
        *mut f64,
    ) -> Fmi2Status;
    let mut rates = [f64::NAN; 2];
    // SAFETY: arrays of two elements.
    let status = unsafe {
        fmu.func::<OutputDerivatives>("fmi2GetRealOutputDerivatives")(
            inst.c,
            [MODEL.vr("position"), MODEL.vr("velocity")].as_ptr(),
            2,
            [1, 1].as_ptr(),
            rates.as_mut_ptr(),
        )
    };
    assert_eq!(status, Fmi2Status::Ok);
    let values = inst
        .get_real(&[MODEL.vr("x"), MODEL.vr("v"), MODEL.vr("F")])
        .1;
    assert_eq!(rates[0], values[1], "d position / dt = velocity");
    let expected = rhs(values[0], values[1], values[2], 2.0, 400.0, 3.0)[1];
    assert!((rates[1] - expected).abs() <= 1e-14 * expected.abs().max(1.0));
}

#[test]
fn fmi3_cosimulation_steps_and_reports_the_last_successful_time() {
    let fmu = fmu();
    let inst = Fmi3::instantiate(&fmu, Interface::CoSimulation, &MODEL.token()).unwrap();
    assert_eq!(inst.initialize(), Fmi3Status::Ok);
    let state = inst.get_state();
    assert_eq!(inst.do_step(0.0, 0.05), (Fmi3Status::Ok, 0.05));
    let after = inst.get_float64(&[MODEL.vr("x"), MODEL.vr("v")]);
    assert_eq!(inst.set_state(state), Fmi3Status::Ok);
    assert_eq!(inst.do_step(0.0, 0.05), (Fmi3Status::Ok, 0.05));
    assert_eq!(inst.get_float64(&[MODEL.vr("x"), MODEL.vr("v")]), after);
    assert_eq!(
        inst.do_step(0.3, 0.05).0,
        Fmi3Status::Error,
        "communication point differs from the FMU's time"
    );
}
