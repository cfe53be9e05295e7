//! The energy manager as a stage of the macro-step loop ([`crate::macro_loop`]): started at the
//! first macro point, updated at every later one. `tandem run` and a gradient's energy
//! correction both act through it, so a gradient's forward run applies the very corrections
//! of `tandem run`.

use super::manager::EnergyManager;
use crate::error::Result;
use crate::macro_loop::PointStage;
use crate::schedule::CoSimulation;
use crate::system::{EnergySetup, System};

/// Energy monitoring (and correction) of the bonds of one setup over a run.
#[derive(Clone)]
pub struct EnergyStage {
    setup: EnergySetup,
    correct: bool,
    /// Started at the first macro point.
    manager: Option<EnergyManager>,
}

impl EnergyStage {
    /// Monitors the bonds and energy outputs of `setup`; `correct` turns the correction on.
    pub fn new(setup: EnergySetup, correct: bool) -> Self {
        EnergyStage {
            setup,
            correct,
            manager: None,
        }
    }

    /// The manager, once the stage acted at the first macro point.
    pub fn manager(&self) -> Option<&EnergyManager> {
        self.manager.as_ref()
    }

    /// The manager, to report on the run (none if the run never reached its first point).
    pub fn into_manager(self) -> Option<EnergyManager> {
        self.manager
    }
}

impl PointStage for EnergyStage {
    fn at_point(
        &mut self,
        point: usize,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> Result<()> {
        match &mut self.manager {
            Some(manager) if point > 0 => manager.after_step(system, cosimulation),
            _ => {
                let started =
                    EnergyManager::start(&self.setup, system, cosimulation, self.correct)?;
                self.manager = Some(started);
                Ok(())
            }
        }
    }
}
