//! Calls into a model's shared library through its FMI 2.0 and FMI 3.0 C ABI (libloading),
//! with a logger that records what the FMU reports.

#![allow(dead_code)] // each test binary uses a part of these helpers

pub mod adjoint;
pub mod checked;
pub mod linked;
pub mod model;

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::Mutex;

use fmu_export::fmi2::types::*;
use fmu_export::fmi3::types::*;
use libloading::Library;

/// A loaded model library.
pub struct Fmu {
    lib: Library,
}

impl Fmu {
    /// Builds (once) and loads `lib<package>.so`.
    pub fn load(package: &str) -> Fmu {
        let path = tandem_tests::cdylib::cdylib(package);
        // SAFETY: the library is a Tandem model whose initializers only set up Rust statics.
        let lib = unsafe { Library::new(&path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
        Fmu { lib }
    }

    /// Whether the library exports `name`.
    pub fn exports(&self, name: &str) -> bool {
        // SAFETY: only the symbol's presence is checked; it is not called.
        unsafe { self.lib.get::<*const c_void>(name.as_bytes()) }.is_ok()
    }

    /// The exported function `name`, with the function-pointer type `F` the caller states.
    pub fn func<F: Copy>(&self, name: &str) -> F {
        // SAFETY: the callers give the C signature of the FMI function `name`.
        unsafe {
            *self
                .lib
                .get::<F>(name.as_bytes())
                .unwrap_or_else(|e| panic!("{name} is not exported: {e}"))
        }
    }
}

/// What the FMU logged: "category: message" lines.
#[derive(Default)]
pub struct Messages(Mutex<Vec<String>>);

impl Messages {
    /// Every line so far.
    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Whether some line contains `text`.
    pub fn contains(&self, text: &str) -> bool {
        self.all().iter().any(|m| m.contains(text))
    }

    fn push(&self, category: *const c_char, message: *const c_char) {
        // SAFETY: the FMU passes NUL-terminated strings valid during the callback.
        let (category, message) = unsafe { (CStr::from_ptr(category), CStr::from_ptr(message)) };
        self.0.lock().unwrap().push(format!(
            "{}: {}",
            category.to_string_lossy(),
            message.to_string_lossy()
        ));
    }
}

/// The FMI 2.0 logger, declared without the variadic part: Tandem FMUs pass a preformatted
/// message and no variadic arguments, and on the C ABIs Linux uses such a call passes the
/// five arguments exactly like a call of this non-variadic function.
unsafe extern "C" fn log2(
    env: *mut c_void,
    _name: Fmi2String,
    _status: Fmi2Status,
    category: Fmi2String,
    message: Fmi2String,
) {
    // SAFETY: `env` is the `Messages` the test registered, alive as long as the instance.
    unsafe { &*(env as *const Messages) }.push(category, message);
}

unsafe extern "C" fn log3(
    env: *mut c_void,
    _status: Fmi3Status,
    category: Fmi3String,
    message: Fmi3String,
) {
    // SAFETY: as in `log2`.
    unsafe { &*(env as *const Messages) }.push(category, message);
}

/// FMI 2.0 callbacks that log into `messages`.
pub fn fmi2_callbacks(messages: &Messages) -> Fmi2CallbackFunctions {
    type Logger = unsafe extern "C" fn(*mut c_void, Fmi2String, Fmi2Status, Fmi2String, Fmi2String);
    // SAFETY: see `log2` for why the non-variadic function serves as the variadic logger.
    let logger = unsafe {
        std::mem::transmute::<
            Logger,
            unsafe extern "C" fn(*mut c_void, Fmi2String, Fmi2Status, Fmi2String, Fmi2String, ...),
        >(log2)
    };
    Fmi2CallbackFunctions {
        logger: Some(logger),
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: messages as *const Messages as *mut c_void,
    }
}

pub type Unary2 = unsafe extern "C" fn(Fmi2Component) -> Fmi2Status;
pub type Values2<T> = unsafe extern "C" fn(Fmi2Component, *const u32, usize, *mut T) -> Fmi2Status;
pub type SetValues2<T> =
    unsafe extern "C" fn(Fmi2Component, *const u32, usize, *const T) -> Fmi2Status;
pub type Array2 = unsafe extern "C" fn(Fmi2Component, *mut f64, usize) -> Fmi2Status;
pub type Instantiate2 = unsafe extern "C" fn(
    Fmi2String,
    Fmi2Type,
    Fmi2String,
    Fmi2String,
    *const Fmi2CallbackFunctions,
    Fmi2Boolean,
    Fmi2Boolean,
) -> Fmi2Component;
pub type State2 = unsafe extern "C" fn(Fmi2Component, *mut Fmi2FmuState) -> Fmi2Status;
pub type Directional2 = unsafe extern "C" fn(
    Fmi2Component,
    *const u32,
    usize,
    *const u32,
    usize,
    *const f64,
    *mut f64,
) -> Fmi2Status;

/// An FMI 2.0 instance, freed on drop.
pub struct Fmi2<'a> {
    pub fmu: &'a Fmu,
    pub c: Fmi2Component,
    pub messages: Box<Messages>,
    callbacks: Box<Fmi2CallbackFunctions>,
}

impl<'a> Fmi2<'a> {
    /// fmi2Instantiate with `guid`; `Err` holds what was logged when it returned NULL.
    pub fn instantiate(fmu: &'a Fmu, kind: Fmi2Type, guid: &str) -> Result<Self, Vec<String>> {
        let messages = Box::new(Messages::default());
        let callbacks = Box::new(fmi2_callbacks(&messages));
        let (name, guid) = (
            CString::new("instance").unwrap(),
            CString::new(guid).unwrap(),
        );
        let instantiate: Instantiate2 = fmu.func("fmi2Instantiate");
        // SAFETY: valid strings and callbacks that outlive the instance.
        let c = unsafe {
            instantiate(
                name.as_ptr(),
                kind,
                guid.as_ptr(),
                std::ptr::null(),
                &*callbacks,
                0,
                0,
            )
        };
        if c.is_null() {
            return Err(messages.all());
        }
        Ok(Fmi2 {
            fmu,
            c,
            messages,
            callbacks,
        })
    }

    /// A function taking only the instance.
    pub fn unary(&self, name: &str) -> Fmi2Status {
        // SAFETY: `name` is an FMI 2.0 function of this signature.
        unsafe { self.fmu.func::<Unary2>(name)(self.c) }
    }

    /// fmi2SetupExperiment(start 0, no stop), fmi2EnterInitializationMode, fmi2ExitInitializationMode.
    pub fn initialize(&self) -> Fmi2Status {
        type Setup = unsafe extern "C" fn(
            Fmi2Component,
            Fmi2Boolean,
            f64,
            f64,
            Fmi2Boolean,
            f64,
        ) -> Fmi2Status;
        // SAFETY: the FMI 2.0 signature.
        let setup =
            unsafe { self.fmu.func::<Setup>("fmi2SetupExperiment")(self.c, 0, 0.0, 0.0, 0, 0.0) };
        assert_eq!(setup, Fmi2Status::Ok);
        assert_eq!(self.unary("fmi2EnterInitializationMode"), Fmi2Status::Ok);
        self.unary("fmi2ExitInitializationMode")
    }

    /// fmi2GetReal.
    pub fn get_real(&self, vrs: &[u32]) -> (Fmi2Status, Vec<f64>) {
        let mut values = vec![f64::NAN; vrs.len()];
        // SAFETY: arrays of `vrs.len()` elements.
        let status = unsafe {
            self.fmu.func::<Values2<f64>>("fmi2GetReal")(
                self.c,
                vrs.as_ptr(),
                vrs.len(),
                values.as_mut_ptr(),
            )
        };
        (status, values)
    }

    /// fmi2SetReal.
    pub fn set_real(&self, vrs: &[u32], values: &[f64]) -> Fmi2Status {
        assert_eq!(vrs.len(), values.len());
        // SAFETY: arrays of `vrs.len()` elements.
        unsafe {
            self.fmu.func::<SetValues2<f64>>("fmi2SetReal")(
                self.c,
                vrs.as_ptr(),
                vrs.len(),
                values.as_ptr(),
            )
        }
    }

    /// fmi2SetTime.
    pub fn set_time(&self, t: f64) -> Fmi2Status {
        // SAFETY: the FMI 2.0 signature.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi2Component, f64) -> Fmi2Status>("fmi2SetTime")(
                self.c, t,
            )
        }
    }

    /// fmi2SetContinuousStates.
    pub fn set_states(&self, x: &[f64]) -> Fmi2Status {
        type Set = unsafe extern "C" fn(Fmi2Component, *const f64, usize) -> Fmi2Status;
        // SAFETY: an array of `x.len()` reals.
        unsafe { self.fmu.func::<Set>("fmi2SetContinuousStates")(self.c, x.as_ptr(), x.len()) }
    }

    /// One of the getters that fill an array of `n` reals (derivatives, states, ...).
    pub fn array(&self, name: &str, n: usize) -> (Fmi2Status, Vec<f64>) {
        let mut values = vec![f64::NAN; n];
        // SAFETY: an array of `n` reals.
        let status = unsafe { self.fmu.func::<Array2>(name)(self.c, values.as_mut_ptr(), n) };
        (status, values)
    }

    /// fmi2GetDirectionalDerivative.
    pub fn directional(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
    ) -> (Fmi2Status, Vec<f64>) {
        let mut out = vec![f64::NAN; unknowns.len()];
        let f = self
            .fmu
            .func::<Directional2>("fmi2GetDirectionalDerivative");
        // SAFETY: arrays of the stated lengths.
        let status = unsafe {
            f(
                self.c,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        (status, out)
    }

    /// fmi2NewDiscreteStates.
    pub fn new_discrete_states(&self) -> (Fmi2Status, Fmi2EventInfo) {
        let mut info = Fmi2EventInfo {
            new_discrete_states_needed: 0,
            terminate_simulation: 0,
            nominals_of_continuous_states_changed: 0,
            values_of_continuous_states_changed: 0,
            next_event_time_defined: 0,
            next_event_time: 0.0,
        };
        type New = unsafe extern "C" fn(Fmi2Component, *mut Fmi2EventInfo) -> Fmi2Status;
        // SAFETY: a valid event-info struct.
        let status = unsafe { self.fmu.func::<New>("fmi2NewDiscreteStates")(self.c, &mut info) };
        (status, info)
    }

    /// fmi2GetFMUstate into a new state.
    pub fn get_state(&self) -> Fmi2FmuState {
        let mut state = std::ptr::null_mut();
        assert_eq!(
            // SAFETY: a valid state slot.
            unsafe { self.fmu.func::<State2>("fmi2GetFMUstate")(self.c, &mut state) },
            Fmi2Status::Ok
        );
        state
    }

    /// fmi2SetFMUstate.
    pub fn set_state(&self, state: Fmi2FmuState) -> Fmi2Status {
        // SAFETY: the FMI 2.0 signature.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi2Component, Fmi2FmuState) -> Fmi2Status>(
                    "fmi2SetFMUstate",
                )(self.c, state)
        }
    }

    /// fmi2SerializedFMUstateSize + fmi2SerializeFMUstate.
    pub fn serialize(&self, state: Fmi2FmuState) -> Vec<u8> {
        type Size = unsafe extern "C" fn(Fmi2Component, Fmi2FmuState, *mut usize) -> Fmi2Status;
        type Serialize =
            unsafe extern "C" fn(Fmi2Component, Fmi2FmuState, *mut Fmi2Byte, usize) -> Fmi2Status;
        let mut size = 0;
        // SAFETY: a valid size slot, then a buffer of that size.
        unsafe {
            assert_eq!(
                self.fmu.func::<Size>("fmi2SerializedFMUstateSize")(self.c, state, &mut size),
                Fmi2Status::Ok
            );
            let mut bytes = vec![0u8; size];
            assert_eq!(
                self.fmu.func::<Serialize>("fmi2SerializeFMUstate")(
                    self.c,
                    state,
                    bytes.as_mut_ptr().cast(),
                    size
                ),
                Fmi2Status::Ok
            );
            bytes
        }
    }

    /// fmi2DeSerializeFMUstate.
    pub fn deserialize(&self, bytes: &[u8]) -> (Fmi2Status, Fmi2FmuState) {
        type Deserialize = unsafe extern "C" fn(
            Fmi2Component,
            *const Fmi2Byte,
            usize,
            *mut Fmi2FmuState,
        ) -> Fmi2Status;
        let mut state = std::ptr::null_mut();
        // SAFETY: a buffer of `bytes.len()` bytes and a valid state slot.
        let status = unsafe {
            self.fmu.func::<Deserialize>("fmi2DeSerializeFMUstate")(
                self.c,
                bytes.as_ptr().cast(),
                bytes.len(),
                &mut state,
            )
        };
        (status, state)
    }

    /// fmi2DoStep.
    pub fn do_step(&self, t: f64, h: f64) -> Fmi2Status {
        type DoStep = unsafe extern "C" fn(Fmi2Component, f64, f64, Fmi2Boolean) -> Fmi2Status;
        // SAFETY: the FMI 2.0 signature.
        unsafe { self.fmu.func::<DoStep>("fmi2DoStep")(self.c, t, h, 1) }
    }
}

impl Drop for Fmi2<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance is live and dropped once.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi2Component)>("fmi2FreeInstance")(self.c)
        }
    }
}

pub type Unary3 = unsafe extern "C" fn(Fmi3Instance) -> Fmi3Status;
pub type Values3<T> =
    unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *mut T, usize) -> Fmi3Status;
pub type SetValues3<T> =
    unsafe extern "C" fn(Fmi3Instance, *const u32, usize, *const T, usize) -> Fmi3Status;
pub type Product3 = unsafe extern "C" fn(
    Fmi3Instance,
    *const u32,
    usize,
    *const u32,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
) -> Fmi3Status;
pub type InstantiateMe3 = unsafe extern "C" fn(
    Fmi3String,
    Fmi3String,
    Fmi3String,
    Fmi3Boolean,
    Fmi3Boolean,
    Fmi3InstanceEnvironment,
    Fmi3LogMessageCallback,
) -> Fmi3Instance;
pub type InstantiateCs3 = unsafe extern "C" fn(
    Fmi3String,
    Fmi3String,
    Fmi3String,
    Fmi3Boolean,
    Fmi3Boolean,
    Fmi3Boolean,
    Fmi3Boolean,
    *const u32,
    usize,
    Fmi3InstanceEnvironment,
    Fmi3LogMessageCallback,
    Fmi3IntermediateUpdateCallback,
) -> Fmi3Instance;

/// Which FMI 3.0 interface to instantiate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    /// fmi3InstantiateModelExchange.
    ModelExchange,
    /// fmi3InstantiateCoSimulation (without event mode).
    CoSimulation,
}

/// An FMI 3.0 instance, freed on drop.
pub struct Fmi3<'a> {
    pub fmu: &'a Fmu,
    pub i: Fmi3Instance,
    pub messages: Box<Messages>,
}

impl<'a> Fmi3<'a> {
    /// Instantiates with `token`; `Err` holds what was logged when it returned NULL.
    pub fn instantiate(
        fmu: &'a Fmu,
        interface: Interface,
        token: &str,
    ) -> Result<Self, Vec<String>> {
        let messages = Box::new(Messages::default());
        let (name, token) = (
            CString::new("instance").unwrap(),
            CString::new(token).unwrap(),
        );
        let env = &*messages as *const Messages as *mut c_void;
        let log: Fmi3LogMessageCallback = Some(log3);
        // SAFETY: valid strings; the environment outlives the instance.
        let i = unsafe {
            match interface {
                Interface::ModelExchange => fmu
                    .func::<InstantiateMe3>("fmi3InstantiateModelExchange")(
                    name.as_ptr(),
                    token.as_ptr(),
                    std::ptr::null(),
                    0,
                    0,
                    env,
                    log,
                ),
                Interface::CoSimulation => fmu
                    .func::<InstantiateCs3>("fmi3InstantiateCoSimulation")(
                    name.as_ptr(),
                    token.as_ptr(),
                    std::ptr::null(),
                    0,
                    0,
                    0,
                    0,
                    std::ptr::null(),
                    0,
                    env,
                    log,
                    None,
                ),
            }
        };
        if i.is_null() {
            return Err(messages.all());
        }
        Ok(Fmi3 { fmu, i, messages })
    }

    /// A function taking only the instance.
    pub fn unary(&self, name: &str) -> Fmi3Status {
        // SAFETY: `name` is an FMI 3.0 function of this signature.
        unsafe { self.fmu.func::<Unary3>(name)(self.i) }
    }

    /// fmi3EnterInitializationMode (start 0, no stop) and fmi3ExitInitializationMode.
    pub fn initialize(&self) -> Fmi3Status {
        type Enter = unsafe extern "C" fn(
            Fmi3Instance,
            Fmi3Boolean,
            f64,
            f64,
            Fmi3Boolean,
            f64,
        ) -> Fmi3Status;
        // SAFETY: the FMI 3.0 signature.
        let enter = unsafe {
            self.fmu.func::<Enter>("fmi3EnterInitializationMode")(self.i, 0, 0.0, 0.0, 0, 0.0)
        };
        assert_eq!(enter, Fmi3Status::Ok);
        self.unary("fmi3ExitInitializationMode")
    }

    /// fmi3GetFloat64 of scalar variables.
    pub fn get_float64(&self, vrs: &[u32]) -> (Fmi3Status, Vec<f64>) {
        self.get_float64_values(vrs, vrs.len())
    }

    /// fmi3GetFloat64 into `n` values (arrays have one per element).
    pub fn get_float64_values(&self, vrs: &[u32], n: usize) -> (Fmi3Status, Vec<f64>) {
        let mut values = vec![f64::NAN; n];
        // SAFETY: arrays of `vrs.len()` elements.
        let status = unsafe {
            self.fmu.func::<Values3<f64>>("fmi3GetFloat64")(
                self.i,
                vrs.as_ptr(),
                vrs.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        };
        (status, values)
    }

    /// fmi3SetFloat64.
    pub fn set_float64(&self, vrs: &[u32], values: &[f64]) -> Fmi3Status {
        // SAFETY: arrays of the stated lengths.
        unsafe {
            self.fmu.func::<SetValues3<f64>>("fmi3SetFloat64")(
                self.i,
                vrs.as_ptr(),
                vrs.len(),
                values.as_ptr(),
                values.len(),
            )
        }
    }

    /// fmi3SetTime.
    pub fn set_time(&self, t: f64) -> Fmi3Status {
        // SAFETY: the FMI 3.0 signature.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi3Instance, f64) -> Fmi3Status>("fmi3SetTime")(
                self.i, t,
            )
        }
    }

    /// fmi3SetContinuousStates.
    pub fn set_states(&self, x: &[f64]) -> Fmi3Status {
        type Set = unsafe extern "C" fn(Fmi3Instance, *const f64, usize) -> Fmi3Status;
        // SAFETY: an array of `x.len()` reals.
        unsafe { self.fmu.func::<Set>("fmi3SetContinuousStates")(self.i, x.as_ptr(), x.len()) }
    }

    /// One of the getters that fill an array of `n` reals.
    pub fn array(&self, name: &str, n: usize) -> (Fmi3Status, Vec<f64>) {
        let mut values = vec![f64::NAN; n];
        type Get = unsafe extern "C" fn(Fmi3Instance, *mut f64, usize) -> Fmi3Status;
        // SAFETY: an array of `n` reals.
        let status = unsafe { self.fmu.func::<Get>(name)(self.i, values.as_mut_ptr(), n) };
        (status, values)
    }

    /// fmi3GetDirectionalDerivative (`adjoint = false`) or fmi3GetAdjointDerivative of scalar
    /// variables.
    pub fn product(
        &self,
        adjoint: bool,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
    ) -> (Fmi3Status, Vec<f64>) {
        let n_out = if adjoint {
            knowns.len()
        } else {
            unknowns.len()
        };
        self.product_values(adjoint, unknowns, knowns, seed, n_out)
    }

    /// [`Fmi3::product`] with `n_out` sensitivities (arrays have one per element).
    pub fn product_values(
        &self,
        adjoint: bool,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        n_out: usize,
    ) -> (Fmi3Status, Vec<f64>) {
        let mut out = vec![f64::NAN; n_out];
        let name = if adjoint {
            "fmi3GetAdjointDerivative"
        } else {
            "fmi3GetDirectionalDerivative"
        };
        // SAFETY: arrays of the stated lengths.
        let status = unsafe {
            self.fmu.func::<Product3>(name)(
                self.i,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                seed.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        (status, out)
    }

    /// fmi3UpdateDiscreteStates, returning the status and whether the states changed.
    pub fn update_discrete_states(&self) -> (Fmi3Status, bool) {
        type Update = unsafe extern "C" fn(
            Fmi3Instance,
            *mut u8,
            *mut u8,
            *mut u8,
            *mut u8,
            *mut u8,
            *mut f64,
        ) -> Fmi3Status;
        let (mut a, mut b, mut c, mut d, mut e, mut t) = (9u8, 9u8, 9u8, 9u8, 9u8, 0.0);
        // SAFETY: valid out-pointers.
        let status = unsafe {
            self.fmu.func::<Update>("fmi3UpdateDiscreteStates")(
                self.i, &mut a, &mut b, &mut c, &mut d, &mut e, &mut t,
            )
        };
        (status, d == 1)
    }

    /// fmi3GetFMUState into a new state.
    pub fn get_state(&self) -> Fmi3FmuState {
        let mut state = std::ptr::null_mut();
        type Get = unsafe extern "C" fn(Fmi3Instance, *mut Fmi3FmuState) -> Fmi3Status;
        assert_eq!(
            // SAFETY: a valid state slot.
            unsafe { self.fmu.func::<Get>("fmi3GetFMUState")(self.i, &mut state) },
            Fmi3Status::Ok
        );
        state
    }

    /// fmi3SetFMUState.
    pub fn set_state(&self, state: Fmi3FmuState) -> Fmi3Status {
        // SAFETY: the FMI 3.0 signature.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi3Instance, Fmi3FmuState) -> Fmi3Status>(
                    "fmi3SetFMUState",
                )(self.i, state)
        }
    }

    /// fmi3SerializedFMUStateSize + fmi3SerializeFMUState.
    pub fn serialize(&self, state: Fmi3FmuState) -> Vec<u8> {
        type Size = unsafe extern "C" fn(Fmi3Instance, Fmi3FmuState, *mut usize) -> Fmi3Status;
        type Serialize =
            unsafe extern "C" fn(Fmi3Instance, Fmi3FmuState, *mut u8, usize) -> Fmi3Status;
        let mut size = 0;
        // SAFETY: a valid size slot, then a buffer of that size.
        unsafe {
            assert_eq!(
                self.fmu.func::<Size>("fmi3SerializedFMUStateSize")(self.i, state, &mut size),
                Fmi3Status::Ok
            );
            let mut bytes = vec![0u8; size];
            assert_eq!(
                self.fmu.func::<Serialize>("fmi3SerializeFMUState")(
                    self.i,
                    state,
                    bytes.as_mut_ptr(),
                    size
                ),
                Fmi3Status::Ok
            );
            bytes
        }
    }

    /// fmi3DeserializeFMUState.
    pub fn deserialize(&self, bytes: &[u8]) -> (Fmi3Status, Fmi3FmuState) {
        type Deserialize =
            unsafe extern "C" fn(Fmi3Instance, *const u8, usize, *mut Fmi3FmuState) -> Fmi3Status;
        let mut state = std::ptr::null_mut();
        // SAFETY: a buffer of `bytes.len()` bytes and a valid state slot.
        let status = unsafe {
            self.fmu.func::<Deserialize>("fmi3DeserializeFMUState")(
                self.i,
                bytes.as_ptr(),
                bytes.len(),
                &mut state,
            )
        };
        (status, state)
    }

    /// fmi3DoStep, returning the status and lastSuccessfulTime.
    pub fn do_step(&self, t: f64, h: f64) -> (Fmi3Status, f64) {
        type DoStep = unsafe extern "C" fn(
            Fmi3Instance,
            f64,
            f64,
            Fmi3Boolean,
            *mut u8,
            *mut u8,
            *mut u8,
            *mut f64,
        ) -> Fmi3Status;
        let (mut event, mut terminate, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
        // SAFETY: valid out-pointers.
        let status = unsafe {
            self.fmu.func::<DoStep>("fmi3DoStep")(
                self.i,
                t,
                h,
                1,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            )
        };
        (status, last)
    }
}

impl Drop for Fmi3<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance is live and dropped once.
        unsafe {
            self.fmu
                .func::<unsafe extern "C" fn(Fmi3Instance)>("fmi3FreeInstance")(self.i)
        }
    }
}

/// Deterministic pseudo-random numbers in [-1, 1).
pub fn randoms(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}
