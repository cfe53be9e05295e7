//! Coming back to a macro point of a run: the master's own state there (the communicated
//! values the holds read, the time, the input offsets, the factors an implicit coupling
//! keeps), so that a caller who also restores
//! every FMU's state can run the same macro steps again and get the same values, bit for bit
//! (the adjoint gradient re-runs one checkpoint segment at a time this way).

use super::implicit::{Carried, ImplicitCoupling};
use super::{CoSimulation, Histories};
use crate::error::Result;

/// The master's state at one macro point of a co-simulation.
#[derive(Debug, Clone)]
pub struct Snapshot {
    histories: Histories,
    time: f64,
    macro_steps: usize,
    /// Per participant, the offsets of its connected inputs.
    offsets: Vec<Vec<f64>>,
    /// Under implicit coupling, what its iteration carries to the next macro step.
    implicit: Option<Carried>,
}

impl Snapshot {
    /// The time of the macro point.
    pub fn time(&self) -> f64 {
        self.time
    }
}

impl CoSimulation {
    /// The master's state now (the FMUs' states are the caller's to keep).
    pub fn snapshot(&self) -> Result<Snapshot> {
        Ok(Snapshot {
            histories: self.histories.clone(),
            time: self.time,
            macro_steps: self.macro_steps,
            offsets: self
                .participants
                .iter()
                .map(|p| p.input_offsets())
                .collect(),
            implicit: self.implicit.as_ref().map(ImplicitCoupling::carried),
        })
    }

    /// Puts the master back at `snapshot`; the caller restores every FMU's state of that
    /// point before the next macro step.
    pub fn rewind(&mut self, snapshot: &Snapshot) -> Result<()> {
        for (participant, offsets) in self.participants.iter_mut().zip(&snapshot.offsets) {
            participant.set_input_offsets(offsets);
        }
        self.histories = snapshot.histories.clone();
        self.time = snapshot.time;
        self.macro_steps = snapshot.macro_steps;
        if let (Some(implicit), Some(carried)) = (&mut self.implicit, &snapshot.implicit) {
            implicit.resume(carried);
        }
        Ok(())
    }
}
