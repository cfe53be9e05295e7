//! Taking a macro step back: every participant's own state (its FMU's, and a Model Exchange
//! FMU's integrator's) together with the master's ([`Snapshot`]) at a macro point, so that a
//! step found too long can be taken again, shorter, from the same point.

use super::participant::SavedState;
use super::{CoSimulation, Snapshot};
use crate::error::Result;

/// A co-simulation's whole state at one macro point, to come back to.
pub struct SavedPoint {
    states: Vec<SavedState>,
    master: Snapshot,
}

impl CoSimulation {
    /// Saves the whole state at the time reached. Every component's FMU must be able to get
    /// and set its state.
    pub fn save_point(&mut self) -> Result<SavedPoint> {
        let time = self.time;
        let mut states = Vec::with_capacity(self.participants.len());
        for participant in &mut self.participants {
            match participant.save_state(time) {
                Ok(state) => states.push(state),
                Err(error) => {
                    for (participant, state) in self.participants.iter_mut().zip(states) {
                        // The error that stopped the save is the one to report.
                        let _ = participant.free_state(state);
                    }
                    return Err(error);
                }
            }
        }
        Ok(SavedPoint {
            states,
            master: self.snapshot()?,
        })
    }

    /// Goes back to `saved`, a point of this run.
    pub fn restore_point(&mut self, saved: &SavedPoint) -> Result<()> {
        let time = saved.master.time();
        for (participant, state) in self.participants.iter_mut().zip(&saved.states) {
            participant.restore_state(state, time)?;
        }
        self.rewind(&saved.master)
    }

    /// Frees `saved`.
    pub fn free_point(&mut self, saved: SavedPoint) -> Result<()> {
        let mut freed = Ok(());
        for (participant, state) in self.participants.iter_mut().zip(saved.states) {
            let result = participant.free_state(state);
            if freed.is_ok() {
                freed = result;
            }
        }
        freed
    }

    /// The value the schedule's extrapolation gives the connected output `port` at `time`
    /// from the values communicated so far (what an input connected to it receives there).
    pub fn extrapolated(&self, port: crate::system::Port, time: f64) -> f64 {
        let degree = self.schedule.extrapolation.degree();
        self.source(port).map_or(f64::NAN, |source| {
            self.histories.value_at(source, time, degree)
        })
    }
}
