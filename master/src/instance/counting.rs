//! A layer over any [`FmuInstance`] that counts the FMU calls made through it, so that run
//! summaries report the work done by the FMUs without counters in the simulation loops.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::{EventUpdate, FmuInstance, FmuState, IntegratorStepOutcome, StepOutcome};
use crate::error::Result;
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};

/// Call counts by FMI function (named without the `fmi2`/`fmi3` prefix), shared between a
/// [`CountingInstance`] and whoever reads them (also from another thread).
#[derive(Debug, Clone, Default)]
pub struct CallCounter {
    counts: Arc<Mutex<BTreeMap<&'static str, u64>>>,
}

impl CallCounter {
    fn add(&self, function: &'static str) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        *counts.entry(function).or_insert(0) += 1;
    }

    /// All calls so far.
    pub fn total(&self) -> u64 {
        self.by_function().iter().map(|(_, n)| n).sum()
    }

    /// Calls so far per function, by name.
    pub fn by_function(&self) -> Vec<(&'static str, u64)> {
        let counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.iter().map(|(&f, &n)| (f, n)).collect()
    }
}

/// An instance that counts every call reaching the FMU (one per [`FmuInstance`] method; the
/// accessors of cached facts such as [`FmuInstance::name`] are not FMU calls).
pub struct CountingInstance {
    inner: Box<dyn FmuInstance>,
    counter: CallCounter,
}

impl CountingInstance {
    /// Wraps `inner` with a fresh counter.
    pub fn new(inner: Box<dyn FmuInstance>) -> Self {
        CountingInstance {
            inner,
            counter: CallCounter::default(),
        }
    }

    /// A handle on the counts, which stays valid after the instance moved or was dropped.
    pub fn counter(&self) -> CallCounter {
        self.counter.clone()
    }

    /// Counts one call of `function` and hands out the wrapped instance to make it.
    fn call(&mut self, function: &'static str) -> &mut dyn FmuInstance {
        self.counter.add(function);
        self.inner.as_mut()
    }
}

impl FmuInstance for CountingInstance {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn fmi_version(&self) -> FmiVersion {
        self.inner.fmi_version()
    }

    fn interface(&self) -> InterfaceType {
        self.inner.interface()
    }

    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<()> {
        self.call("EnterInitializationMode")
            .enter_initialization_mode(tolerance, start_time, stop_time)
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.call("ExitInitializationMode")
            .exit_initialization_mode()
    }

    fn terminate(&mut self) -> Result<()> {
        self.call("Terminate").terminate()
    }

    fn reset(&mut self) -> Result<()> {
        self.call("Reset").reset()
    }

    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        self.call("GetReal").get_real(references, values)
    }

    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        self.call("SetReal").set_real(references, values)
    }

    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()> {
        self.call("GetInteger").get_integer(references, values)
    }

    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()> {
        self.call("SetInteger").set_integer(references, values)
    }

    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()> {
        self.call("GetBoolean").get_boolean(references, values)
    }

    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        self.call("SetBoolean").set_boolean(references, values)
    }

    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>> {
        self.call("GetString").get_string(references)
    }

    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()> {
        self.call("SetString").set_string(references, values)
    }

    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        self.call("GetValues").get_values(ty, references)
    }

    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        self.call("SetValues").set_values(ty, references, values)
    }

    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        self.call("DoStep").do_step(time, step)
    }

    fn enter_event_mode(&mut self) -> Result<()> {
        self.call("EnterEventMode").enter_event_mode()
    }

    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        self.call("UpdateDiscreteStates").update_discrete_states()
    }

    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        self.call("EnterContinuousTimeMode")
            .enter_continuous_time_mode()
    }

    fn completed_integrator_step(
        &mut self,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome> {
        self.call("CompletedIntegratorStep")
            .completed_integrator_step(no_set_state_prior)
    }

    fn set_time(&mut self, time: f64) -> Result<()> {
        self.call("SetTime").set_time(time)
    }

    fn set_continuous_states(&mut self, states: &[f64]) -> Result<()> {
        self.call("SetContinuousStates")
            .set_continuous_states(states)
    }

    fn get_continuous_states(&mut self, states: &mut [f64]) -> Result<()> {
        self.call("GetContinuousStates")
            .get_continuous_states(states)
    }

    fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<()> {
        self.call("GetDerivatives").get_derivatives(derivatives)
    }

    fn get_event_indicators(&mut self, indicators: &mut [f64]) -> Result<()> {
        self.call("GetEventIndicators")
            .get_event_indicators(indicators)
    }

    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
        self.call("GetNominalsOfContinuousStates")
            .get_nominals_of_continuous_states(nominals)
    }

    fn number_of_continuous_states(&self) -> usize {
        self.inner.number_of_continuous_states()
    }

    fn number_of_event_indicators(&self) -> usize {
        self.inner.number_of_event_indicators()
    }

    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.call("GetDirectionalDerivative")
            .get_directional_derivative(unknowns, knowns, seed, sensitivity)
    }

    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.call("GetAdjointDerivative").get_adjoint_derivative(
            unknowns,
            knowns,
            seed,
            sensitivity,
        )
    }

    fn get_fmu_state(&mut self) -> Result<FmuState> {
        self.call("GetFMUState").get_fmu_state()
    }

    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        self.call("SetFMUState").set_fmu_state(state)
    }

    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        self.call("FreeFMUState").free_fmu_state(state)
    }

    fn serialize_fmu_state(&mut self, state: &FmuState) -> Result<Vec<u8>> {
        self.call("SerializeFMUState").serialize_fmu_state(state)
    }

    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuState> {
        self.call("DeserializeFMUState")
            .deserialize_fmu_state(bytes)
    }

    /// The wrapped instance's step derivatives; their calls are not counted (they belong to a
    /// gradient's reverse pass, not to a run).
    fn step_derivatives(&mut self) -> Option<&mut dyn crate::gradient::StepDerivatives> {
        self.inner.step_derivatives()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_shared_and_grouped_by_function() {
        let counter = CallCounter::default();
        let reader = counter.clone();
        counter.add("GetDerivatives");
        counter.add("SetTime");
        counter.add("GetDerivatives");
        assert_eq!(reader.total(), 3);
        assert_eq!(
            reader.by_function(),
            [("GetDerivatives", 2), ("SetTime", 1)]
        );
    }
}
