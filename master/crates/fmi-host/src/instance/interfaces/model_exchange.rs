//! [`ModelExchangeInstance`]: the FMU's equations evaluated for an integrator outside it.

use super::{unsupported, Common};
use crate::error::Result;
use crate::instance::IntegratorStepOutcome;

/// The Model Exchange interface: the importer's integrator sets time and continuous states
/// and reads derivatives and event indicators. (The event mode is in [`Common`].)
///
/// Every method has a default for an instance that is not a Model Exchange one: the calls
/// are unsupported, naming the FMI function without its `fmi2`/`fmi3` prefix, and the counts
/// are zero.
pub trait ModelExchangeInstance: Common {
    /// Model Exchange: enters continuous-time mode.
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        Err(unsupported(self.name(), "EnterContinuousTimeMode"))
    }
    /// Model Exchange: reports an accepted integrator step.
    fn completed_integrator_step(
        &mut self,
        _no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome> {
        Err(unsupported(self.name(), "CompletedIntegratorStep"))
    }
    /// Model Exchange: sets the independent variable.
    fn set_time(&mut self, _time: f64) -> Result<()> {
        Err(unsupported(self.name(), "SetTime"))
    }
    /// Model Exchange: sets the continuous states.
    fn set_continuous_states(&mut self, _states: &[f64]) -> Result<()> {
        Err(unsupported(self.name(), "SetContinuousStates"))
    }
    /// Model Exchange: reads the continuous states.
    fn get_continuous_states(&mut self, _states: &mut [f64]) -> Result<()> {
        Err(unsupported(self.name(), "GetContinuousStates"))
    }
    /// Model Exchange: reads the state derivatives.
    fn get_derivatives(&mut self, _derivatives: &mut [f64]) -> Result<()> {
        Err(unsupported(self.name(), "GetDerivatives"))
    }
    /// Model Exchange: reads the event indicators.
    fn get_event_indicators(&mut self, _indicators: &mut [f64]) -> Result<()> {
        Err(unsupported(self.name(), "GetEventIndicators"))
    }
    /// Model Exchange: reads the nominal values of the states.
    fn get_nominals_of_continuous_states(&mut self, _nominals: &mut [f64]) -> Result<()> {
        Err(unsupported(self.name(), "GetNominalsOfContinuousStates"))
    }
    /// Number of continuous states.
    fn number_of_continuous_states(&self) -> usize {
        0
    }
    /// Number of event indicators.
    fn number_of_event_indicators(&self) -> usize {
        0
    }
}
