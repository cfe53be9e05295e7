//! Random sequences of FMI 3.0 and FMI 2.0 calls on Tandem's FMUs, in process through the C
//! ABI: calls in any order, unknown value references and value references of the wrong type,
//! NaN, infinite and huge values, wrong array lengths, NULL arrays and handles, FMU states
//! taken, restored, freed twice and forged, serialized bytes damaged. Every call must return a
//! status (never abort the process or unwind through the boundary), Error and Discard come
//! with a log line, no call returns OK with a non-finite value, and after any sequence the
//! instance resets and simulates again.
//!
//! The generator is deterministic: a failure names its model, version, sequence and call.
//! `TANDEM_CALL_SEQUENCES` sets the sequences per model and version (default 30; `cargo xtask
//! fuzz fmi-calls --runs N` runs N in release).

mod common;

use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};

use common::model::{size, Model};
use common::{Fmi2, Fmi3, Interface};
use fmu_export::fmi2::types::{Fmi2Component, Fmi2Status, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::{Fmi3Instance, Fmi3Status};
use tandem_tests::fmus::FmiVersion;

/// The models whose FMUs get the full number of sequences (every other Tandem FMU gets a
/// fifth): mechanical with a constraint, mechanical with an input, and hybrid with events and
/// String variables.
const MODELS: [&str; 3] = ["oscillator", "engine-mount", "bouncing-ball"];

/// Calls per sequence.
const CALLS: usize = 40;

fn sequences() -> u64 {
    std::env::var("TANDEM_CALL_SEQUENCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(30)
}

/// Sequences for the FMU of `package`: every Tandem FMU gets some, the three of [`MODELS`]
/// the full number.
fn sequences_for(package: &str) -> u64 {
    if MODELS.contains(&package) {
        sequences()
    } else {
        sequences().div_ceil(5)
    }
}

/// A xorshift generator: the sequences must not depend on anything but their number.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// A value at the edges of what an FMU must handle, or an ordinary one.
    fn value(&mut self) -> f64 {
        if self.chance(40) {
            self.edge()
        } else {
            (self.next() % 2001) as f64 / 100.0 - 10.0
        }
    }

    fn edge(&mut self) -> f64 {
        const EDGES: [f64; 10] = [
            0.0,
            -0.0,
            1e-3,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e308,
            -1e308,
            5e-324,
        ];
        EDGES[self.below(EDGES.len())]
    }

    /// A step size: mostly ordinary (short, so that debug builds stay fast), sometimes an
    /// edge value.
    fn step(&mut self) -> f64 {
        if self.chance(75) {
            [1e-3, 1e-2, 0.05][self.below(3)]
        } else {
            self.edge()
        }
    }

    /// 0 to 3 value references: mostly the model's, sometimes unknown ones.
    fn references(&mut self, model: &Model) -> Vec<u32> {
        let n = self.below(4);
        (0..n)
            .map(|_| {
                if self.chance(85) {
                    let variables = &model.description.variables;
                    variables[self.below(variables.len())].value_reference
                } else {
                    [u32::MAX, variables_count(model), 1 << 20][self.below(3)]
                }
            })
            .collect()
    }

    /// An array length: usually `n`, sometimes off by one or zero.
    fn length(&mut self, n: usize) -> usize {
        match self.below(10) {
            0 => n + 1,
            1 => n.saturating_sub(1),
            2 => 0,
            _ => n,
        }
    }
}

fn variables_count(model: &Model) -> u32 {
    model.description.variables.len() as u32
}

/// The number of values `vrs` name: one per element of an array, one for any other value
/// reference (unknown ones included).
fn values_count(model: &Model, vrs: &[u32]) -> usize {
    vrs.iter()
        .map(|&vr| {
            let variables = &model.description.variables;
            variables
                .iter()
                .find(|v| v.value_reference == vr)
                .map_or(1, size)
        })
        .sum()
}

/// A handle no FMU issued.
const FORGED: *mut c_void = 0x1234usize as *mut c_void;

/// What a sequence checks after every call.
struct Check<'a> {
    label: String,
    messages: &'a common::Messages,
    seen: usize,
}

impl Check<'_> {
    /// Error and Discard of an instance's call are logged; OK values are finite.
    fn call(&mut self, what: &str, error_or_discard: bool, fatal: bool, ok_values: Option<&[f64]>) {
        assert!(!fatal, "{}: {what} returned Fatal", self.label);
        let now = self.messages.all().len();
        if error_or_discard {
            assert!(
                now > self.seen,
                "{}: {what} failed without a log message",
                self.label
            );
        }
        self.seen = now;
        if let Some(values) = ok_values {
            assert!(
                values.iter().all(|v| v.is_finite()),
                "{}: {what} returned OK with non-finite values {values:?}",
                self.label
            );
        }
    }
}

type Enter3 = unsafe extern "C" fn(Fmi3Instance, u8, f64, f64, u8, f64) -> Fmi3Status;
type DoStep3 = unsafe extern "C" fn(
    Fmi3Instance,
    f64,
    f64,
    u8,
    *mut u8,
    *mut u8,
    *mut u8,
    *mut f64,
) -> Fmi3Status;
type Values3 = unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *mut f64, usize) -> Fmi3Status;
type SetValues3 =
    unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *const f64, usize) -> Fmi3Status;
type Ints3 = unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *mut i32, usize) -> Fmi3Status;
type Strings3 =
    unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *mut *const c_char, usize) -> Fmi3Status;
type SetStrings3 = unsafe extern "C" fn(
    Fmi3Instance,
    *const u32,
    usize,
    *const *const c_char,
    usize,
) -> Fmi3Status;
type Update3 = unsafe extern "C" fn(
    Fmi3Instance,
    *mut u8,
    *mut u8,
    *mut u8,
    *mut u8,
    *mut u8,
    *mut f64,
) -> Fmi3Status;
type Time3 = unsafe extern "C" fn(Fmi3Instance, f64) -> Fmi3Status;
type Array3 = unsafe extern "C" fn(Fmi3Instance, *mut f64, usize) -> Fmi3Status;
type SetArray3 = unsafe extern "C" fn(Fmi3Instance, *const f64, usize) -> Fmi3Status;
type Completed3 = unsafe extern "C" fn(Fmi3Instance, u8, *mut u8, *mut u8) -> Fmi3Status;
type State3 = unsafe extern "C" fn(Fmi3Instance, *mut *mut c_void) -> Fmi3Status;
type UseState3 = unsafe extern "C" fn(Fmi3Instance, *mut c_void) -> Fmi3Status;
type FreeState3 = unsafe extern "C" fn(Fmi3Instance, *mut *mut c_void) -> Fmi3Status;
type Size3 = unsafe extern "C" fn(Fmi3Instance, *mut c_void, *mut usize) -> Fmi3Status;
type Serialize3 = unsafe extern "C" fn(Fmi3Instance, *mut c_void, *mut u8, usize) -> Fmi3Status;
type Deserialize3 =
    unsafe extern "C" fn(Fmi3Instance, *const u8, usize, *mut *mut c_void) -> Fmi3Status;

/// One random FMI 3.0 sequence on a fresh instance of `model`.
fn fmi3_sequence(model: &Model, interface: Interface, number: u64) {
    let mut rng = Rng::new(number);
    let inst = Fmi3::instantiate(&model.fmu, interface, model.token()).expect("instantiate");
    let f = &model.fmu;
    let label = format!("{} fmi3 {interface:?} sequence {number}", model.package);
    let mut check = Check {
        label: label.clone(),
        messages: &inst.messages,
        seen: 0,
    };
    let n = model.states().len();
    let indicators = model.description.number_of_event_indicators();
    let mut states: Vec<*mut c_void> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut t = 0.0;
    for call in 0..CALLS {
        // A NULL or forged instance now and then: rejected without any instance to log through.
        let (i, own) = match rng.below(40) {
            0 => (null_mut(), false),
            1 => (FORGED, false),
            _ => (inst.i, true),
        };
        let what = format!("call {call}");
        let mut values: Option<Vec<f64>> = None;
        let op = rng.below(22);
        // SAFETY: every pointer below is NULL, forged (both rejected by the FMU unread), or an
        // array of at least the length passed with it; the signatures are FMI 3.0's.
        let status = unsafe {
            match op {
                0 => f.func::<Enter3>("fmi3EnterInitializationMode")(
                    i,
                    rng.below(2) as u8,
                    rng.value(),
                    rng.value(),
                    rng.below(2) as u8,
                    rng.value(),
                ),
                1 => f.func::<common::Unary3>("fmi3ExitInitializationMode")(i),
                2 | 3 => {
                    let h = rng.step();
                    let (mut a, mut b, mut c, mut last) = (0, 0, 0, 0.0);
                    let s = f.func::<DoStep3>("fmi3DoStep")(
                        i, t, h, 1, &mut a, &mut b, &mut c, &mut last,
                    );
                    if s == Fmi3Status::Ok {
                        t += h;
                    }
                    s
                }
                4 | 5 => {
                    let vrs = rng.references(model);
                    let len = rng.length(values_count(model, &vrs));
                    let mut out = vec![0.0; len];
                    let s = f.func::<Values3>("fmi3GetFloat64")(
                        i,
                        vrs.as_ptr(),
                        vrs.len(),
                        out.as_mut_ptr(),
                        len,
                    );
                    values = Some(out);
                    s
                }
                6 | 7 => {
                    let vrs = rng.references(model);
                    let len = rng.length(values_count(model, &vrs));
                    let given: Vec<f64> = (0..len).map(|_| rng.value()).collect();
                    let ptr = if rng.chance(5) {
                        null()
                    } else {
                        given.as_ptr()
                    };
                    f.func::<SetValues3>("fmi3SetFloat64")(i, vrs.as_ptr(), vrs.len(), ptr, len)
                }
                8 => {
                    let vrs = rng.references(model);
                    let mut out = vec![0; vrs.len()];
                    let name = if rng.chance(50) {
                        "fmi3GetInt32"
                    } else {
                        "fmi3GetBoolean"
                    };
                    f.func::<Ints3>(name)(i, vrs.as_ptr(), vrs.len(), out.as_mut_ptr(), vrs.len())
                }
                9 => {
                    let vrs = rng.references(model);
                    let mut out = vec![null(); vrs.len()];
                    f.func::<Strings3>("fmi3GetString")(
                        i,
                        vrs.as_ptr(),
                        vrs.len(),
                        out.as_mut_ptr(),
                        vrs.len(),
                    )
                }
                10 => {
                    let vrs = rng.references(model);
                    let text = CString::new("floor").unwrap();
                    let given: Vec<*const c_char> = vrs
                        .iter()
                        .map(|_| {
                            if rng.chance(20) {
                                null()
                            } else {
                                text.as_ptr()
                            }
                        })
                        .collect();
                    f.func::<SetStrings3>("fmi3SetString")(
                        i,
                        vrs.as_ptr(),
                        vrs.len(),
                        given.as_ptr(),
                        vrs.len(),
                    )
                }
                11 => f.func::<common::Unary3>(
                    [
                        "fmi3EnterEventMode",
                        "fmi3EnterContinuousTimeMode",
                        "fmi3Terminate",
                        "fmi3Reset",
                    ][rng.below(4)],
                )(i),
                12 => {
                    let mut flags = [0u8; 5];
                    let mut next = 0.0;
                    let [a, b, c, d, e] = &mut flags;
                    f.func::<Update3>("fmi3UpdateDiscreteStates")(i, a, b, c, d, e, &mut next)
                }
                13 => f.func::<Time3>("fmi3SetTime")(i, rng.value()),
                14 => {
                    let given: Vec<f64> = (0..rng.length(n)).map(|_| rng.value()).collect();
                    f.func::<SetArray3>("fmi3SetContinuousStates")(i, given.as_ptr(), given.len())
                }
                15 => {
                    let (name, count) = [
                        ("fmi3GetContinuousStates", n),
                        ("fmi3GetContinuousStateDerivatives", n),
                        ("fmi3GetEventIndicators", indicators),
                        ("fmi3GetNominalsOfContinuousStates", n),
                    ][rng.below(4)];
                    let mut out = vec![0.0; rng.length(count)];
                    let s = f.func::<Array3>(name)(i, out.as_mut_ptr(), out.len());
                    values = Some(out);
                    s
                }
                16 => {
                    let (mut enter, mut terminate) = (0, 0);
                    f.func::<Completed3>("fmi3CompletedIntegratorStep")(
                        i,
                        1,
                        &mut enter,
                        &mut terminate,
                    )
                }
                17 => {
                    // A new state, or one of ours overwritten.
                    let mut state = if !states.is_empty() && rng.chance(30) {
                        states[rng.below(states.len())]
                    } else {
                        null_mut()
                    };
                    let s = f.func::<State3>("fmi3GetFMUState")(i, &mut state);
                    if s == Fmi3Status::Ok && !states.contains(&state) {
                        states.push(state);
                    }
                    s
                }
                18 => {
                    let state = match rng.below(4) {
                        0 => null_mut(),
                        1 => FORGED,
                        _ if !states.is_empty() => states[rng.below(states.len())],
                        _ => FORGED,
                    };
                    f.func::<UseState3>("fmi3SetFMUState")(i, state)
                }
                19 => {
                    // Freed states stay in the list: later calls use them after the free.
                    let mut state = if !states.is_empty() && rng.chance(80) {
                        states[rng.below(states.len())]
                    } else {
                        FORGED
                    };
                    f.func::<FreeState3>("fmi3FreeFMUState")(i, &mut state)
                }
                20 => {
                    let state = if !states.is_empty() {
                        states[rng.below(states.len())]
                    } else {
                        FORGED
                    };
                    let mut size = 0;
                    let s = f.func::<Size3>("fmi3SerializedFMUStateSize")(i, state, &mut size);
                    if s != Fmi3Status::Ok {
                        s
                    } else {
                        let mut out = vec![0u8; rng.length(size)];
                        let s = f.func::<Serialize3>("fmi3SerializeFMUState")(
                            i,
                            state,
                            out.as_mut_ptr(),
                            out.len(),
                        );
                        if s == Fmi3Status::Ok {
                            bytes = out;
                        }
                        s
                    }
                }
                _ => {
                    let mut given = bytes.clone();
                    if !given.is_empty() && rng.chance(50) {
                        let k = rng.below(given.len());
                        given[k] ^= 1 << rng.below(8);
                    }
                    if rng.chance(20) {
                        given.truncate(rng.below(given.len() + 1));
                    }
                    let mut state = null_mut();
                    let s = f.func::<Deserialize3>("fmi3DeserializeFMUState")(
                        i,
                        given.as_ptr(),
                        given.len(),
                        &mut state,
                    );
                    if s == Fmi3Status::Ok {
                        states.push(state);
                    }
                    s
                }
            }
        };
        let what = format!("{what} (operation {op})");
        if !own {
            assert_eq!(
                status,
                Fmi3Status::Error,
                "{label}: {what} on a NULL or forged instance"
            );
            continue;
        }
        let ok_values = (status == Fmi3Status::Ok)
            .then_some(values.as_deref())
            .flatten();
        check.call(
            &what,
            matches!(status, Fmi3Status::Error | Fmi3Status::Discard),
            status == Fmi3Status::Fatal,
            ok_values,
        );
    }
    // Whatever happened, the instance resets and simulates again.
    assert_eq!(
        inst.unary("fmi3Reset"),
        Fmi3Status::Ok,
        "{label}: reset {:#?}",
        inst.messages.all()
    );
    assert_eq!(
        inst.initialize(),
        Fmi3Status::Ok,
        "{label}: initialize after reset"
    );
    if interface == Interface::CoSimulation {
        assert_eq!(
            inst.do_step(0.0, 1e-3).0,
            Fmi3Status::Ok,
            "{label}: step after reset"
        );
    }
}

type Setup2 = unsafe extern "C" fn(Fmi2Component, i32, f64, f64, i32, f64) -> Fmi2Status;
type DoStep2 = unsafe extern "C" fn(Fmi2Component, f64, f64, i32) -> Fmi2Status;
type Values2 = unsafe extern "C" fn(Fmi2Component, *const u32, usize, *mut f64) -> Fmi2Status;
type SetValues2 = unsafe extern "C" fn(Fmi2Component, *const u32, usize, *const f64) -> Fmi2Status;
type Strings2 =
    unsafe extern "C" fn(Fmi2Component, *const u32, usize, *mut *const c_char) -> Fmi2Status;
type Array2 = unsafe extern "C" fn(Fmi2Component, *mut f64, usize) -> Fmi2Status;
type SetArray2 = unsafe extern "C" fn(Fmi2Component, *const f64, usize) -> Fmi2Status;
type State2 = unsafe extern "C" fn(Fmi2Component, *mut *mut c_void) -> Fmi2Status;
type UseState2 = unsafe extern "C" fn(Fmi2Component, *mut c_void) -> Fmi2Status;
type Time2 = unsafe extern "C" fn(Fmi2Component, f64) -> Fmi2Status;

/// One random FMI 2.0 sequence on a fresh instance of `model` (`kind`: ME or CS).
fn fmi2_sequence(model: &Model, kind: i32, number: u64) {
    let mut rng = Rng::new(number ^ 0x5eed);
    let inst = Fmi2::instantiate(&model.fmu, kind, model.token()).expect("instantiate");
    let f = &model.fmu;
    let label = format!("{} fmi2 type {kind} sequence {number}", model.package);
    let mut check = Check {
        label: label.clone(),
        messages: &inst.messages,
        seen: 0,
    };
    let n = model.states().len();
    let mut states: Vec<*mut c_void> = Vec::new();
    let mut t = 0.0;
    for call in 0..CALLS {
        let (c, own) = match rng.below(40) {
            0 => (null_mut(), false),
            1 => (FORGED, false),
            _ => (inst.c, true),
        };
        let mut values: Option<Vec<f64>> = None;
        let op = rng.below(14);
        // SAFETY: as in `fmi3_sequence`, with FMI 2.0 signatures.
        let status = unsafe {
            match op {
                0 => f.func::<Setup2>("fmi2SetupExperiment")(
                    c,
                    rng.below(2) as i32,
                    rng.value(),
                    rng.value(),
                    rng.below(2) as i32,
                    rng.value(),
                ),
                1 => f.func::<common::Unary2>(
                    [
                        "fmi2EnterInitializationMode",
                        "fmi2ExitInitializationMode",
                        "fmi2EnterEventMode",
                        "fmi2EnterContinuousTimeMode",
                        "fmi2Terminate",
                        "fmi2Reset",
                    ][rng.below(6)],
                )(c),
                2 | 3 => {
                    let h = rng.step();
                    let s = f.func::<DoStep2>("fmi2DoStep")(c, t, h, 1);
                    if s == Fmi2Status::Ok {
                        t += h;
                    }
                    s
                }
                4 | 5 => {
                    let vrs = rng.references(model);
                    let mut out = vec![0.0; vrs.len()];
                    let s = f.func::<Values2>("fmi2GetReal")(
                        c,
                        vrs.as_ptr(),
                        vrs.len(),
                        out.as_mut_ptr(),
                    );
                    values = Some(out);
                    s
                }
                6 | 7 => {
                    let vrs = rng.references(model);
                    let given: Vec<f64> = vrs.iter().map(|_| rng.value()).collect();
                    f.func::<SetValues2>("fmi2SetReal")(c, vrs.as_ptr(), vrs.len(), given.as_ptr())
                }
                8 => {
                    let vrs = rng.references(model);
                    let mut out = vec![null(); vrs.len()];
                    f.func::<Strings2>("fmi2GetString")(
                        c,
                        vrs.as_ptr(),
                        vrs.len(),
                        out.as_mut_ptr(),
                    )
                }
                9 => f.func::<Time2>("fmi2SetTime")(c, rng.value()),
                10 => {
                    let given: Vec<f64> = (0..rng.length(n)).map(|_| rng.value()).collect();
                    f.func::<SetArray2>("fmi2SetContinuousStates")(c, given.as_ptr(), given.len())
                }
                11 => {
                    let name = ["fmi2GetContinuousStates", "fmi2GetDerivatives"][rng.below(2)];
                    let mut out = vec![0.0; rng.length(n)];
                    let s = f.func::<Array2>(name)(c, out.as_mut_ptr(), out.len());
                    values = Some(out);
                    s
                }
                12 => {
                    let mut state = null_mut();
                    let s = f.func::<State2>("fmi2GetFMUstate")(c, &mut state);
                    if s == Fmi2Status::Ok {
                        states.push(state);
                    }
                    s
                }
                _ => {
                    let state = match rng.below(3) {
                        0 => FORGED,
                        _ if !states.is_empty() => states[rng.below(states.len())],
                        _ => null_mut(),
                    };
                    let name = if rng.chance(50) {
                        "fmi2SetFMUstate"
                    } else {
                        "fmi2FreeFMUstate"
                    };
                    if name == "fmi2FreeFMUstate" {
                        let mut state = state;
                        f.func::<State2>(name)(c, &mut state)
                    } else {
                        f.func::<UseState2>(name)(c, state)
                    }
                }
            }
        };
        let what = format!("call {call} (operation {op})");
        if !own {
            assert_eq!(
                status,
                Fmi2Status::Error,
                "{label}: {what} on a NULL or forged instance"
            );
            continue;
        }
        let ok_values = (status == Fmi2Status::Ok)
            .then_some(values.as_deref())
            .flatten();
        check.call(
            &what,
            matches!(status, Fmi2Status::Error | Fmi2Status::Discard),
            status == Fmi2Status::Fatal,
            ok_values,
        );
    }
    assert_eq!(
        inst.unary("fmi2Reset"),
        Fmi2Status::Ok,
        "{label}: reset {:#?}",
        inst.messages.all()
    );
    assert_eq!(
        inst.initialize(),
        Fmi2Status::Ok,
        "{label}: initialize after reset"
    );
    if kind == FMI2_CO_SIMULATION {
        assert_eq!(
            inst.do_step(0.0, 1e-3),
            Fmi2Status::Ok,
            "{label}: step after reset"
        );
    }
}

#[test]
fn random_fmi3_call_sequences_never_crash_and_leave_the_instance_usable() {
    for model in Model::all(FmiVersion::Fmi3) {
        for number in 0..sequences_for(&model.package) {
            let interface = if number % 2 == 0 {
                Interface::CoSimulation
            } else {
                Interface::ModelExchange
            };
            fmi3_sequence(&model, interface, number);
        }
    }
}

#[test]
fn random_fmi2_call_sequences_never_crash_and_leave_the_instance_usable() {
    for model in Model::all(FmiVersion::Fmi2) {
        for number in 0..sequences_for(&model.package) {
            let kind = if number % 2 == 0 {
                FMI2_CO_SIMULATION
            } else {
                FMI2_MODEL_EXCHANGE
            };
            fmi2_sequence(&model, kind, number);
        }
    }
}

#[test]
fn an_instance_freed_twice_is_ignored_the_second_time() {
    let model = Model::named("oscillator", FmiVersion::Fmi3);
    let inst = Fmi3::instantiate(&model.fmu, Interface::CoSimulation, model.token()).unwrap();
    let free = model
        .fmu
        .func::<unsafe extern "C" fn(Fmi3Instance)>("fmi3FreeInstance");
    let handle = inst.i;
    // SAFETY: the first call frees the live instance; the second passes the same, now unknown,
    // handle, which the FMU must recognize as not its own and ignore. `inst` is not dropped
    // (its drop would free a third time).
    unsafe {
        free(handle);
        free(handle);
    }
    std::mem::forget(inst);
    let again = Fmi3::instantiate(&model.fmu, Interface::CoSimulation, model.token()).unwrap();
    assert_eq!(again.initialize(), Fmi3Status::Ok);
}
