//! A layer over any [`FmuInstance`] that counts the FMU calls made through it, so that run
//! summaries report the work done by the FMUs without counters in the simulation loops.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::crash;
use super::{
    CoSimulationInstance, Common, EventUpdate, FmuInstance, FmuState, FmuStates,
    IntegratorStepOutcome, ModelExchangeInstance, PartialDerivatives, StepDerivatives, StepOutcome,
};
use crate::error::Result;
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};

/// Generates the list of counted calls: an enum for the call sites and the names.
macro_rules! calls {
    ($($call:ident),* $(,)?) => {
        /// An FMU call that is counted, named after the [`FmuInstance`] method that makes it.
        #[derive(Clone, Copy)]
        enum Call {
            $($call),*
        }

        /// The names of [`Call`]s (without the `fmi2`/`fmi3` prefix), in declaration order.
        const NAMES: &[&str] = &[$(stringify!($call)),*];
    };
}

calls!(
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    GetReal,
    SetReal,
    GetInteger,
    SetInteger,
    GetBoolean,
    SetBoolean,
    GetString,
    SetString,
    GetValues,
    SetValues,
    EnterConfigurationMode,
    ExitConfigurationMode,
    DoStep,
    EnterEventMode,
    UpdateDiscreteStates,
    EnterContinuousTimeMode,
    CompletedIntegratorStep,
    SetTime,
    SetContinuousStates,
    GetContinuousStates,
    GetDerivatives,
    GetEventIndicators,
    GetNominalsOfContinuousStates,
    GetDirectionalDerivative,
    GetAdjointDerivative,
    GetJacobianAdjointDerivative,
    GetFMUState,
    SetFMUState,
    FreeFMUState,
    SerializeFMUState,
    DeserializeFMUState,
);

/// Call counts by FMI function (named without the `fmi2`/`fmi3` prefix), shared between a
/// [`CountingInstance`] and whoever reads them (also from another thread). One relaxed atomic
/// increment per call: no lock and no look-up in the stepping loops.
#[derive(Debug, Clone)]
pub struct CallCounter {
    counts: Arc<[AtomicU64]>,
}

impl Default for CallCounter {
    fn default() -> Self {
        CallCounter {
            counts: NAMES.iter().map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl CallCounter {
    fn add(&self, call: Call) {
        self.counts[call as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// All calls so far.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    /// Calls so far per function called at least once, by name.
    pub fn by_function(&self) -> Vec<(&'static str, u64)> {
        let mut counts: Vec<(&'static str, u64)> = NAMES
            .iter()
            .zip(self.counts.iter())
            .map(|(&name, n)| (name, n.load(Ordering::Relaxed)))
            .filter(|&(_, n)| n > 0)
            .collect();
        counts.sort_unstable();
        counts
    }
}

/// An instance that counts every call reaching the FMU (one per [`FmuInstance`] method; the
/// accessors of cached facts such as [`Common::name`] are not FMU calls), and notes each
/// call for the crash report (see [`super::crash`]) with the simulation time last given to
/// the FMU.
pub struct CountingInstance {
    inner: Box<dyn FmuInstance>,
    counter: CallCounter,
    /// The instance name, kept apart from `inner` so a call can borrow both.
    name: String,
    time: f64,
}

impl CountingInstance {
    /// Wraps `inner` with a fresh counter.
    pub fn new(inner: Box<dyn FmuInstance>) -> Self {
        CountingInstance {
            name: inner.name().to_string(),
            inner,
            counter: CallCounter::default(),
            time: 0.0,
        }
    }

    /// A handle on the counts, which stays valid after the instance moved or was dropped.
    pub fn counter(&self) -> CallCounter {
        self.counter.clone()
    }

    /// Counts one `call` and makes it on the wrapped instance, noted for the crash report.
    fn call<T>(&mut self, call: Call, make: impl FnOnce(&mut dyn FmuInstance) -> T) -> T {
        self.counter.add(call);
        let inner = self.inner.as_mut();
        crash::guarded(&self.name, NAMES[call as usize], self.time, || make(inner))
    }
}

impl Common for CountingInstance {
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
        self.time = start_time;
        self.call(Call::EnterInitializationMode, |i| {
            i.enter_initialization_mode(tolerance, start_time, stop_time)
        })
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.call(Call::ExitInitializationMode, |i| {
            i.exit_initialization_mode()
        })
    }

    fn terminate(&mut self) -> Result<()> {
        self.call(Call::Terminate, |i| i.terminate())
    }

    fn reset(&mut self) -> Result<()> {
        self.call(Call::Reset, |i| i.reset())
    }

    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        self.call(Call::GetReal, |i| i.get_real(references, values))
    }

    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        self.call(Call::SetReal, |i| i.set_real(references, values))
    }

    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()> {
        self.call(Call::GetInteger, |i| i.get_integer(references, values))
    }

    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()> {
        self.call(Call::SetInteger, |i| i.set_integer(references, values))
    }

    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()> {
        self.call(Call::GetBoolean, |i| i.get_boolean(references, values))
    }

    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        self.call(Call::SetBoolean, |i| i.set_boolean(references, values))
    }

    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>> {
        self.call(Call::GetString, |i| i.get_string(references))
    }

    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()> {
        self.call(Call::SetString, |i| i.set_string(references, values))
    }

    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        self.call(Call::GetValues, |i| i.get_values(ty, references))
    }

    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        self.call(Call::SetValues, |i| i.set_values(ty, references, values))
    }

    fn get_elements(
        &mut self,
        ty: VariableType,
        references: &[u32],
        count: usize,
    ) -> Result<Values> {
        self.call(Call::GetValues, |i| i.get_elements(ty, references, count))
    }

    fn enter_configuration_mode(&mut self) -> Result<()> {
        self.call(Call::EnterConfigurationMode, |i| {
            i.enter_configuration_mode()
        })
    }

    fn exit_configuration_mode(&mut self) -> Result<()> {
        self.call(Call::ExitConfigurationMode, |i| i.exit_configuration_mode())
    }

    fn enter_event_mode(&mut self) -> Result<()> {
        self.call(Call::EnterEventMode, |i| i.enter_event_mode())
    }

    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        self.call(Call::UpdateDiscreteStates, |i| i.update_discrete_states())
    }
}

impl CoSimulationInstance for CountingInstance {
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        self.time = time;
        self.call(Call::DoStep, |i| i.do_step(time, step))
    }
}

impl ModelExchangeInstance for CountingInstance {
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        self.call(Call::EnterContinuousTimeMode, |i| {
            i.enter_continuous_time_mode()
        })
    }

    fn completed_integrator_step(
        &mut self,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome> {
        self.call(Call::CompletedIntegratorStep, |i| {
            i.completed_integrator_step(no_set_state_prior)
        })
    }

    fn set_time(&mut self, time: f64) -> Result<()> {
        self.time = time;
        self.call(Call::SetTime, |i| i.set_time(time))
    }

    fn set_continuous_states(&mut self, states: &[f64]) -> Result<()> {
        self.call(Call::SetContinuousStates, |i| {
            i.set_continuous_states(states)
        })
    }

    fn get_continuous_states(&mut self, states: &mut [f64]) -> Result<()> {
        self.call(Call::GetContinuousStates, |i| {
            i.get_continuous_states(states)
        })
    }

    fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<()> {
        self.call(Call::GetDerivatives, |i| i.get_derivatives(derivatives))
    }

    fn get_event_indicators(&mut self, indicators: &mut [f64]) -> Result<()> {
        self.call(Call::GetEventIndicators, |i| {
            i.get_event_indicators(indicators)
        })
    }

    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
        self.call(Call::GetNominalsOfContinuousStates, |i| {
            i.get_nominals_of_continuous_states(nominals)
        })
    }

    fn number_of_continuous_states(&self) -> usize {
        self.inner.number_of_continuous_states()
    }

    fn number_of_event_indicators(&self) -> usize {
        self.inner.number_of_event_indicators()
    }
}

impl PartialDerivatives for CountingInstance {
    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.call(Call::GetDirectionalDerivative, |i| {
            i.get_directional_derivative(unknowns, knowns, seed, sensitivity)
        })
    }

    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.call(Call::GetAdjointDerivative, |i| {
            i.get_adjoint_derivative(unknowns, knowns, seed, sensitivity)
        })
    }

    fn provides_jacobian_adjoint_derivative(&self) -> bool {
        self.inner.provides_jacobian_adjoint_derivative()
    }

    fn get_jacobian_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.call(Call::GetJacobianAdjointDerivative, |i| {
            i.get_jacobian_adjoint_derivative(unknowns, knowns, seed, sensitivity)
        })
    }

    /// The wrapped instance's step derivatives; their calls are not counted (they belong to a
    /// gradient's reverse pass, not to a run).
    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        self.inner.step_derivatives()
    }
}

impl FmuStates for CountingInstance {
    fn get_fmu_state(&mut self) -> Result<FmuState> {
        self.call(Call::GetFMUState, |i| i.get_fmu_state())
    }

    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        self.call(Call::SetFMUState, |i| i.set_fmu_state(state))
    }

    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        self.call(Call::FreeFMUState, |i| i.free_fmu_state(state))
    }

    fn serialize_fmu_state(&mut self, state: &FmuState) -> Result<Vec<u8>> {
        self.call(Call::SerializeFMUState, |i| i.serialize_fmu_state(state))
    }

    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuState> {
        self.call(Call::DeserializeFMUState, |i| {
            i.deserialize_fmu_state(bytes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_shared_and_grouped_by_function() {
        let counter = CallCounter::default();
        let reader = counter.clone();
        counter.add(Call::GetDerivatives);
        counter.add(Call::SetTime);
        counter.add(Call::GetDerivatives);
        assert_eq!(reader.total(), 3);
        assert_eq!(
            reader.by_function(),
            [("GetDerivatives", 2), ("SetTime", 1)]
        );
    }
}
