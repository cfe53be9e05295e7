//! [`HeldInputStep`] as an [`FmuInstance`] of the Co-Simulation interface: variable access and
//! partial derivatives go to the FMU, steps to the solver, and FMU states hold both. The Model
//! Exchange calls belong to the solver and are not available from outside.

use std::ffi::c_void;

use super::{HeldInputStep, Saved};
use crate::error::Error;
use fmi_host::instance::{
    EventUpdate, FmuInstance, FmuState, IntegratorStepOutcome, StepDerivatives, StepOutcome,
};
use fmi_host::model_description::{FmiVersion, InterfaceType, Values, VariableType};
use fmi_host::Result;

impl HeldInputStep {
    /// The error of a call the held step does not offer.
    fn unsupported(&self, function: &'static str) -> fmi_host::Error {
        fmi_host::Error::Unsupported {
            instance: self.name.clone(),
            function,
        }
    }
}

impl FmuInstance for HeldInputStep {
    fn name(&self) -> &str {
        &self.name
    }

    fn fmi_version(&self) -> FmiVersion {
        self.fmi_version
    }

    fn interface(&self) -> InterfaceType {
        InterfaceType::CoSimulation
    }

    /// The FMU gets the solver's tolerance whatever the caller gives: it is the one it is
    /// integrated with.
    fn enter_initialization_mode(
        &mut self,
        _tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<()> {
        self.start_time = start_time;
        let tolerance = Some(self.stepper.relative_tolerance());
        self.fmu_instance()
            .enter_initialization_mode(tolerance, start_time, stop_time)
    }

    /// Leaves initialization mode and settles the initial discrete states, ready to step.
    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.fmu_instance().exit_initialization_mode()?;
        if self.stepper.start(self.start_time, &mut super::hold)? {
            return Err(Error::Simulation {
                time: self.start_time,
                message: format!(
                    "instance {}: the FMU asked to terminate when leaving initialization",
                    self.name
                ),
            }
            .into());
        }
        Ok(())
    }

    fn terminate(&mut self) -> Result<()> {
        self.fmu_instance().terminate()
    }

    fn reset(&mut self) -> Result<()> {
        Err(self.unsupported("Reset"))
    }

    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        self.fmu_instance().get_real(references, values)
    }

    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        self.fmu_instance().set_real(references, values)
    }

    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()> {
        self.fmu_instance().get_integer(references, values)
    }

    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()> {
        self.fmu_instance().set_integer(references, values)
    }

    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()> {
        self.fmu_instance().get_boolean(references, values)
    }

    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        self.fmu_instance().set_boolean(references, values)
    }

    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>> {
        self.fmu_instance().get_string(references)
    }

    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()> {
        self.fmu_instance().set_string(references, values)
    }

    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        self.fmu_instance().get_values(ty, references)
    }

    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        self.fmu_instance().set_values(ty, references, values)
    }

    fn get_elements(
        &mut self,
        ty: VariableType,
        references: &[u32],
        count: usize,
    ) -> Result<Values> {
        self.fmu_instance().get_elements(ty, references, count)
    }

    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        Ok(self.advance(time, step)?)
    }

    fn enter_event_mode(&mut self) -> Result<()> {
        Err(self.unsupported("EnterEventMode"))
    }

    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        Err(self.unsupported("UpdateDiscreteStates"))
    }

    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        Err(self.unsupported("EnterContinuousTimeMode"))
    }

    fn completed_integrator_step(&mut self, _: bool) -> Result<IntegratorStepOutcome> {
        Err(self.unsupported("CompletedIntegratorStep"))
    }

    fn set_time(&mut self, _: f64) -> Result<()> {
        Err(self.unsupported("SetTime"))
    }

    fn set_continuous_states(&mut self, _: &[f64]) -> Result<()> {
        Err(self.unsupported("SetContinuousStates"))
    }

    fn get_continuous_states(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("GetContinuousStates"))
    }

    fn get_derivatives(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("GetDerivatives"))
    }

    fn get_event_indicators(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("GetEventIndicators"))
    }

    fn get_nominals_of_continuous_states(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("GetNominalsOfContinuousStates"))
    }

    /// None from outside: the solver owns them.
    fn number_of_continuous_states(&self) -> usize {
        0
    }

    fn number_of_event_indicators(&self) -> usize {
        0
    }

    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.fmu_instance()
            .get_directional_derivative(unknowns, knowns, seed, sensitivity)
    }

    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.fmu_instance()
            .get_adjoint_derivative(unknowns, knowns, seed, sensitivity)
    }

    fn get_fmu_state(&mut self) -> Result<FmuState> {
        let saved = self.save()?;
        let slot = match self.saved.iter().position(Option::is_none) {
            Some(free) => {
                self.saved[free] = Some(saved);
                free
            }
            None => {
                self.saved.push(Some(saved));
                self.saved.len() - 1
            }
        };
        // The handle is the slot's index plus one, never null.
        Ok(FmuState::from_raw((slot + 1) as *mut c_void, self.owner))
    }

    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        let index = self.slot_of(state)?;
        let saved = self.saved[index].take().expect("slot_of checked it");
        let restored = self.restore(&saved);
        self.saved[index] = Some(saved);
        Ok(restored?)
    }

    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        let index = self.slot_of(&state)?;
        let Saved { fmu, .. } = self.saved[index].take().expect("slot_of checked it");
        self.fmu_instance().free_fmu_state(fmu)
    }

    fn serialize_fmu_state(&mut self, _: &FmuState) -> Result<Vec<u8>> {
        Err(self.unsupported("SerializeFMUState"))
    }

    fn deserialize_fmu_state(&mut self, _: &[u8]) -> Result<FmuState> {
        Err(self.unsupported("DeserializeFMUState"))
    }

    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        Some(self)
    }
}
