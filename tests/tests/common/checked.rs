//! The calls a test makes on an FMI 2.0 or FMI 3.0 instance alike, each asserting that the
//! FMU returned OK (the message names the call and lists what the FMU logged), so that one test
//! body serves both versions.

use std::ffi::c_void;

use fmu_export::fmi2::types::{Fmi2Status, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::Fmi3Status;

use super::model::Model;
use super::{Fmi2, Fmi3, Interface, Messages, Values2, Values3};

/// An instance whose calls must succeed.
pub trait Checked<'m>: Sized {
    /// Instantiates `model` for `interface`.
    fn create(model: &'m Model, interface: Interface) -> Self;
    /// Reads the values of scalar real variables.
    fn values(&self, vrs: &[u32]) -> Vec<f64> {
        self.values_of(vrs, vrs.len())
    }
    /// Reads the `n` values of real variables (FMI 3.0 arrays have one per element).
    fn values_of(&self, vrs: &[u32], n: usize) -> Vec<f64>;
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

/// A status type of one FMI version, with its OK value.
trait Status: PartialEq + std::fmt::Debug {
    /// The status of a successful call.
    const OK: Self;
}

impl Status for Fmi2Status {
    const OK: Self = Fmi2Status::Ok;
}

impl Status for Fmi3Status {
    const OK: Self = Fmi3Status::Ok;
}

/// Panics unless `status` is OK, naming the call and the FMU's log.
fn ok<S: Status>(status: S, call: &str, messages: &Messages) {
    assert_eq!(status, S::OK, "{call}: {:#?}", messages.all());
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

    fn values_of(&self, vrs: &[u32], n: usize) -> Vec<f64> {
        assert_eq!(n, vrs.len(), "FMI 2.0 has scalar variables only");
        let (status, values) = self.get_real(vrs);
        ok(status, "fmi2GetReal", &self.messages);
        values
    }

    fn integers(&self, vrs: &[u32]) -> Vec<i32> {
        let mut values = vec![0; vrs.len()];
        let get = self.fmu.func::<Values2<i32>>("fmi2GetInteger");
        // SAFETY: arrays of `vrs.len()` elements.
        let status = unsafe { get(self.c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        ok(status, "fmi2GetInteger", &self.messages);
        values
    }

    fn set_values(&self, vrs: &[u32], values: &[f64]) {
        ok(self.set_real(vrs, values), "fmi2SetReal", &self.messages);
    }

    fn initialize_ok(&self) {
        ok(self.initialize(), "initialization", &self.messages);
    }

    fn enter_continuous_time(&self) {
        ok(
            self.new_discrete_states().0,
            "fmi2NewDiscreteStates",
            &self.messages,
        );
        let status = self.unary("fmi2EnterContinuousTimeMode");
        ok(status, "fmi2EnterContinuousTimeMode", &self.messages);
    }

    fn set_time_and_states(&self, t: f64, x: &[f64]) {
        ok(self.set_time(t), "fmi2SetTime", &self.messages);
        let status = self.set_states(x);
        ok(status, "fmi2SetContinuousStates", &self.messages);
    }

    fn directional_ok(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64]) -> Vec<f64> {
        let (status, jw) = self.directional(unknowns, knowns, seed);
        ok(status, "fmi2GetDirectionalDerivative", &self.messages);
        jw
    }

    fn step(&self, t: f64, h: f64) {
        ok(self.do_step(t, h), "fmi2DoStep", &self.messages);
    }

    fn snapshot(&self) -> *mut c_void {
        self.get_state()
    }

    fn restore(&self, state: *mut c_void) {
        ok(self.set_state(state), "fmi2SetFMUstate", &self.messages);
    }

    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }

    fn deserialize_state(&self, bytes: &[u8]) -> *mut c_void {
        let (status, state) = self.deserialize(bytes);
        ok(status, "fmi2DeSerializeFMUstate", &self.messages);
        state
    }
}

impl<'m> Checked<'m> for Fmi3<'m> {
    fn create(model: &'m Model, interface: Interface) -> Self {
        Fmi3::instantiate(&model.fmu, interface, model.token()).unwrap_or_else(|log| {
            panic!("{} fmi3Instantiate{interface:?}: {log:#?}", model.package)
        })
    }

    fn values_of(&self, vrs: &[u32], n: usize) -> Vec<f64> {
        let (status, values) = self.get_float64_values(vrs, n);
        ok(status, "fmi3GetFloat64", &self.messages);
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
        ok(status, "fmi3GetInt32", &self.messages);
        values
    }

    fn set_values(&self, vrs: &[u32], values: &[f64]) {
        ok(
            self.set_float64(vrs, values),
            "fmi3SetFloat64",
            &self.messages,
        );
    }

    fn initialize_ok(&self) {
        ok(self.initialize(), "initialization", &self.messages);
    }

    fn enter_continuous_time(&self) {
        let status = self.update_discrete_states().0;
        ok(status, "fmi3UpdateDiscreteStates", &self.messages);
        let status = self.unary("fmi3EnterContinuousTimeMode");
        ok(status, "fmi3EnterContinuousTimeMode", &self.messages);
    }

    fn set_time_and_states(&self, t: f64, x: &[f64]) {
        ok(self.set_time(t), "fmi3SetTime", &self.messages);
        let status = self.set_states(x);
        ok(status, "fmi3SetContinuousStates", &self.messages);
    }

    fn directional_ok(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64]) -> Vec<f64> {
        let (status, jw) = self.product(false, unknowns, knowns, seed);
        ok(status, "fmi3GetDirectionalDerivative", &self.messages);
        jw
    }

    fn step(&self, t: f64, h: f64) {
        ok(self.do_step(t, h).0, "fmi3DoStep", &self.messages);
    }

    fn snapshot(&self) -> *mut c_void {
        self.get_state()
    }

    fn restore(&self, state: *mut c_void) {
        ok(self.set_state(state), "fmi3SetFMUState", &self.messages);
    }

    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }

    fn deserialize_state(&self, bytes: &[u8]) -> *mut c_void {
        let (status, state) = self.deserialize(bytes);
        ok(status, "fmi3DeserializeFMUState", &self.messages);
        state
    }
}
