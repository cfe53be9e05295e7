//! The hook for coupling stages: maps the master applies, at a macro point, between the
//! values the components output and the values it sends on to their consumers (the energy
//! correction of seed 004 adds `f_corr = -(mu dE + nu U) / (v H)`, capped, to the efforts
//! sent on). The adjoint of the co-simulation is only exact if every such stage takes part
//! in the reverse pass, so a stage supplies both directions.
//!
//! **Contract.** At macro point `k` (once every component has reached `t_k`, before any
//! consumer reads a value of point `k`), `forward` turns the values output at `k` into the
//! values sent on, in place, and updates the stage's own state (residual energy, ...). The
//! reverse pass calls `reverse(k, ..)` after every consumer of the values sent at `k` has
//! added its adjoints and before the components' output maps at `k` are reversed: the stage
//! then turns, in place, the adjoints of the values sent at `k` into those of the values output
//! at `k`, and adds what its state carries back into the adjoints of earlier points (which
//! the reverse pass has not processed yet). Under Gauss-Seidel a component reads values of
//! the same macro point, so a stage there must act on each component's values as they are
//! communicated.

use super::samples::Samples;
use super::tape::Tape;
use crate::error::Result;

/// The adjoints of the communicated values, by participant and macro point, and the values
/// themselves as the components output them.
pub struct SampleAdjoints<'a> {
    pub(super) adjoints: &'a mut Samples<Vec<f64>>,
    /// The adjoints of a sample the pass has not touched yet (participant, tag).
    pub(super) fresh: &'a dyn Fn(usize, usize) -> Vec<f64>,
    pub(super) tapes: &'a [Tape],
}

impl SampleAdjoints<'_> {
    /// The adjoints of participant `participant`'s values at macro point `point`, by observed slot.
    pub fn adjoints(&mut self, participant: usize, point: usize) -> &mut [f64] {
        let tag = self.tapes[participant].point_tag(point);
        let fresh = self.fresh;
        self.adjoints
            .entry(participant, tag, || fresh(participant, tag))
    }

    /// The values participant `participant` output at macro point `point`, by observed slot
    /// (of the macro steps the pass is at: the current segment's).
    pub fn values(&self, participant: usize, point: usize) -> &[f64] {
        self.tapes[participant].values(point)
    }
}

/// A map between the values components output and the values sent on, with its reverse.
pub trait CouplingStage: Send {
    /// At macro point `point` (time `time`): `values[participant][slot]` in, the values to
    /// send on out.
    fn forward(&mut self, point: usize, time: f64, values: &mut [Vec<f64>]) -> Result<()>;

    /// The reverse of [`CouplingStage::forward`] at `point`, on `adjoints` (see the contract).
    fn reverse(&mut self, point: usize, adjoints: &mut SampleAdjoints<'_>) -> Result<()>;
}
