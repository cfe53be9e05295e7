//! [`CoSimulationInstance`]: the FMU steps itself.

use super::Common;
use crate::error::Result;
use crate::instance::StepOutcome;

/// The Co-Simulation interface: the FMU integrates its own equations over a communication
/// step. (Its event mode, in FMI 3.0, is in [`Common`].)
pub trait CoSimulationInstance: Common {
    /// Co-Simulation: advances from `time` by `step`.
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome>;
}
