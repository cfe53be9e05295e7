//! The calls a test makes on an FMI 2.0 or FMI 3.0 instance alike, each asserting that the
//! FMU returned OK (the message names the call and lists what the FMU logged), so that one test
//! body serves both versions.

use std::ffi::c_void;

use fmu_export::fmi2::types::{Fmi2Status, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::Fmi3Status;

use super::model::Model;
use super::{Fmi2, Fmi3, Interface, Values2, Values3};

/// An instance whose calls must succeed.
pub trait Checked<'m>: Sized {
    /// Instantiates `model` for `interface`.
    fn create(model: &'m Model, interface: Interface) -> Self;
    /// Reads real values.
    fn values(&self, vrs: &[u32]) -> Vec<f64>;
    /// Reads 32-bit integer values (FMI 2.0 Integer, FMI 3.0 Int32).
    fn integers(&self, vrs: &[u32]) -> Vec<i32>;
    /// Writes real values.
    fn set_values(&self, vrs: &[u32], values: &[f64]);
    /// Enters and leaves initialization mode (start time 0, no stop time).
    fn initialize_ok(&self);
    /// Model Exchange: completes the event iteration and enters continuous-time mode.
    fn enter_continuous_time(&self);
    /// Model Exchange: sets the time and the continuous states.
    fn set_time_and_states(&self, t: f64, x: &[f64]);
    /// `J seed` by fmiGetDirectionalDerivative.
    fn directional_ok(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64]) -> Vec<f64>;
    /// Co-Simulation: one doStep from `t` over `h`.
    fn step(&self, t: f64, h: f64);
    /// A new FMU state of the instance.
    fn snapshot(&self) -> *mut c_void;
    /// Restores an FMU state.
    fn restore(&self, state: *mut c_void);
    /// Serializes an FMU state.
    fn serialize_state(&self, state: *mut c_void) -> Vec<u8>;
    /// Deserializes an FMU state.
    fn deserialize_state(&self, bytes: &[u8]) -> *mut c_void;
}

/// Panics unless `status` is OK, naming the call and the FMU's log.
fn ok<S: PartialEq + std::fmt::Debug>(status: S, expected: S, call: &str, log: Vec<String>) {
    assert_eq!(status, expected, "{call}: {log:#?}");
}

impl<'m> Checked<'m> for Fmi2<'m> {
    fn create(model: &'m Model, interface: Interface) -> Self {
        let kind = match interface {
            Interface::ModelExchange => FMI2_MODEL_EXCHANGE,
            Interface::CoSimulation => FMI2_CO_SIMULATION,
        };
        Fmi2::instantiate(&model.fmu, kind, model.token())
            .unwrap_or_else(|log| panic!("{} fmi2Instantiate: {log:#?}", model.package))
    }

    fn values(&self, vrs: &[u32]) -> Vec<f64> {
        let (status, values) = self.get_real(vrs);
        ok(status, Fmi2Status::Ok, "fmi2GetReal", self.messages.all());
        values
    }

    fn integers(&self, vrs: &[u32]) -> Vec<i32> {
        let mut values = vec![0; vrs.len()];
        let get = self.fmu.func::<Values2<i32>>("fmi2GetInteger");
        // SAFETY: arrays of `vrs.len()` elements.
        let status = unsafe { get(self.c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        ok(
            status,
            Fmi2Status::Ok,
            "fmi2GetInteger",
            self.messages.all(),
        );
        values
    }

    fn set_values(&self, vrs: &[u32], values: &[f64]) {
        ok(
            self.set_real(vrs, values),
            Fmi2Status::Ok,
            "fmi2SetReal",
            self.messages.all(),
        );
    }

    fn initialize_ok(&self) {
        ok(
            self.initialize(),
            Fmi2Status::Ok,
            "initialization",
            self.messages.all(),
        );
    }

    fn enter_continuous_time(&self) {
        ok(
            self.new_discrete_states().0,
            Fmi2Status::Ok,
            "fmi2NewDiscreteStates",
            self.messages.all(),
        );
        let status = self.unary("fmi2EnterContinuousTimeMode");
        ok(
            status,
            Fmi2Status::Ok,
            "fmi2EnterContinuousTimeMode",
            self.messages.all(),
        );
    }

    fn set_time_and_states(&self, t: f64, x: &[f64]) {
        ok(
            self.set_time(t),
            Fmi2Status::Ok,
            "fmi2SetTime",
            self.messages.all(),
        );
        let status = self.set_states(x);
        ok(
            status,
            Fmi2Status::Ok,
            "fmi2SetContinuousStates",
            self.messages.all(),
        );
    }

    fn directional_ok(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64]) -> Vec<f64> {
        let (status, jw) = self.directional(unknowns, knowns, seed);
        ok(
            status,
            Fmi2Status::Ok,
            "fmi2GetDirectionalDerivative",
            self.messages.all(),
        );
        jw
    }

    fn step(&self, t: f64, h: f64) {
        ok(
            self.do_step(t, h),
            Fmi2Status::Ok,
            "fmi2DoStep",
            self.messages.all(),
        );
    }

    fn snapshot(&self) -> *mut c_void {
        self.get_state()
    }

    fn restore(&self, state: *mut c_void) {
        ok(
            self.set_state(state),
            Fmi2Status::Ok,
            "fmi2SetFMUstate",
            self.messages.all(),
        );
    }

    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }

    fn deserialize_state(&self, bytes: &[u8]) -> *mut c_void {
        let (status, state) = self.deserialize(bytes);
        ok(
            status,
            Fmi2Status::Ok,
            "fmi2DeSerializeFMUstate",
            self.messages.all(),
        );
        state
    }
}

impl<'m> Checked<'m> for Fmi3<'m> {
    fn create(model: &'m Model, interface: Interface) -> Self {
        Fmi3::instantiate(&model.fmu, interface, model.token()).unwrap_or_else(|log| {
            panic!("{} fmi3Instantiate{interface:?}: {log:#?}", model.package)
        })
    }

    fn values(&self, vrs: &[u32]) -> Vec<f64> {
        let (status, values) = self.get_float64(vrs);
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3GetFloat64",
            self.messages.all(),
        );
        values
    }

    fn integers(&self, vrs: &[u32]) -> Vec<i32> {
        let mut values = vec![0; vrs.len()];
        let get = self.fmu.func::<Values3<i32>>("fmi3GetInt32");
        // SAFETY: arrays of `vrs.len()` elements.
        let status = unsafe {
            get(
                self.i,
                vrs.as_ptr(),
                vrs.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        };
        ok(status, Fmi3Status::Ok, "fmi3GetInt32", self.messages.all());
        values
    }

    fn set_values(&self, vrs: &[u32], values: &[f64]) {
        ok(
            self.set_float64(vrs, values),
            Fmi3Status::Ok,
            "fmi3SetFloat64",
            self.messages.all(),
        );
    }

    fn initialize_ok(&self) {
        ok(
            self.initialize(),
            Fmi3Status::Ok,
            "initialization",
            self.messages.all(),
        );
    }

    fn enter_continuous_time(&self) {
        let status = self.update_discrete_states().0;
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3UpdateDiscreteStates",
            self.messages.all(),
        );
        let status = self.unary("fmi3EnterContinuousTimeMode");
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3EnterContinuousTimeMode",
            self.messages.all(),
        );
    }

    fn set_time_and_states(&self, t: f64, x: &[f64]) {
        ok(
            self.set_time(t),
            Fmi3Status::Ok,
            "fmi3SetTime",
            self.messages.all(),
        );
        let status = self.set_states(x);
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3SetContinuousStates",
            self.messages.all(),
        );
    }

    fn directional_ok(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64]) -> Vec<f64> {
        let (status, jw) = self.product(false, unknowns, knowns, seed);
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3GetDirectionalDerivative",
            self.messages.all(),
        );
        jw
    }

    fn step(&self, t: f64, h: f64) {
        ok(
            self.do_step(t, h).0,
            Fmi3Status::Ok,
            "fmi3DoStep",
            self.messages.all(),
        );
    }

    fn snapshot(&self) -> *mut c_void {
        self.get_state()
    }

    fn restore(&self, state: *mut c_void) {
        ok(
            self.set_state(state),
            Fmi3Status::Ok,
            "fmi3SetFMUState",
            self.messages.all(),
        );
    }

    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }

    fn deserialize_state(&self, bytes: &[u8]) -> *mut c_void {
        let (status, state) = self.deserialize(bytes);
        ok(
            status,
            Fmi3Status::Ok,
            "fmi3DeserializeFMUState",
            self.messages.all(),
        );
        state
    }
}
