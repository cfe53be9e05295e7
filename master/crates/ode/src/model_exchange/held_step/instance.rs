//! [`HeldInputStep`] as an [`FmuInstance`](fmi_host::instance::FmuInstance) of the
//! Co-Simulation interface: variable access and partial derivatives go to the FMU, steps to
//! the solver, and FMU states hold both. The Model Exchange calls belong to the solver and
//! are not available from outside.

use std::ffi::c_void;

use super::{HeldInputStep, Saved};
use crate::error::Error;
use fmi_host::instance::prelude::*;
use fmi_host::instance::{FmuState, StepDerivatives, StepOutcome};
use fmi_host::model_description::{FmiVersion, InterfaceType, Values, VariableType};
use fmi_host::Result;

/// Variable access goes to the FMU. The reset, the configuration mode and the event mode,
/// which a co-simulation step without event mode does not offer, keep their defaults
/// (unsupported, as `Reset`, `fmi3EnterConfigurationMode`, `EnterEventMode`, ...).
impl Common for HeldInputStep {
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
}

impl CoSimulationInstance for HeldInputStep {
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        Ok(self.advance(time, step)?)
    }
}

/// The held step is a Co-Simulation view of a Model Exchange FMU: the FMU's Model Exchange
/// calls belong to the solver that integrates it, so from outside every one of them is
/// unsupported and there are no continuous states or event indicators (the trait's defaults).
impl ModelExchangeInstance for HeldInputStep {}

impl PartialDerivatives for HeldInputStep {
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

    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        Some(self)
    }
}

/// States are held in memory only: serialization keeps its default (unsupported, as
/// `SerializeFMUState` and `DeserializeFMUState`).
impl FmuStates for HeldInputStep {
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
}
