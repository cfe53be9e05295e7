//! The propagation of the values at the start time during initialization, along the
//! dependency order of the components ([`crate::system::dependency_order`]): each component
//! outside a loop takes its inputs and gives its outputs once, after the components it
//! depends on, which leaves its settled values at once; the members of a cyclic group are
//! taken in passes until their values settle. The FMU calls therefore grow with the number of
//! components, where passes over the whole system would grow with its square.
//!
//! In a system without loops (and a run not recorded for a gradient, whose adjoint of
//! initialization reverses the readings made in it), a component whose sources have all left
//! initialization mode
//! gets its final inputs: it leaves initialization mode at once, and the values read after
//! that (which FMI lets differ from those inside it, so the master must read them anyway) are
//! its only reading. A chain's component then costs four calls: enter, its inputs, exit, its
//! outputs.

use super::algebraic_loops::TOLERANCE;
use super::{Histories, Participant};
use crate::error::Result;
use crate::system::dependency_order::Group;
use crate::system::System;

/// Passes over a cyclic group under a schedule that leaves its loops unsolved, at most.
const MAX_PASSES: usize = 100;

/// The propagation's bookkeeping: which values are read, and which inputs were set from
/// values read before their latest reading.
pub(super) struct Propagation {
    /// Per participant, the participants its inputs come from.
    sources: Vec<Vec<usize>>,
    /// Per participant, when its outputs were last read (`None`: not yet), and when its
    /// inputs were last set, on one clock of readings.
    observed_at: Vec<Option<usize>>,
    inputs_at: Vec<Option<usize>>,
    clock: usize,
    /// The values of a cyclic group before its latest pass (kept for their capacity).
    before: Vec<f64>,
    /// Whether components may leave initialization mode during the propagation (no loops).
    early_exits: bool,
    /// Per participant, whether it left initialization mode, its values read after.
    exited: Vec<bool>,
}

impl Propagation {
    /// The bookkeeping of `system`'s participants, none read yet; with `early_exits` (a system
    /// without loops) components leave initialization mode as soon as their inputs are final.
    pub(super) fn new(system: &System, early_exits: bool) -> Self {
        let count = system.components.len();
        let mut sources: Vec<Vec<usize>> = vec![Vec::new(); count];
        for connection in &system.connections {
            let list = &mut sources[connection.to.component];
            if !list.contains(&connection.from.component) {
                list.push(connection.from.component);
            }
        }
        Propagation {
            sources,
            observed_at: vec![None; count],
            inputs_at: vec![None; count],
            clock: 0,
            before: Vec::new(),
            early_exits,
            exited: vec![false; count],
        }
    }

    /// Whether participant `i` left initialization mode during the propagation.
    pub(super) fn exited(&self, i: usize) -> bool {
        self.exited[i]
    }

    /// Settles `group` at `time`: a single participant outside a loop in one evaluation; a
    /// cyclic group in passes until no value changes by more than the loop solver's tolerance,
    /// at most as many as it has members when `solved` (the loop solver takes over from
    /// there), else at most [`MAX_PASSES`], stopping early once passes that could carry a value
    /// around the group no longer shrink the change (the fixed-point iteration is not
    /// contracting, and Jacobi will hold the loop's values with its delay anyway).
    pub(super) fn settle(
        &mut self,
        group: &Group,
        participants: &mut [Participant],
        histories: &mut Histories,
        time: f64,
        solved: bool,
    ) -> Result<()> {
        if !group.cyclic {
            return self.evaluate(group.members[0], participants, histories, time);
        }
        let cap = if solved {
            group.members.len()
        } else {
            MAX_PASSES
        };
        let mut previous = f64::INFINITY;
        for pass in 1..=cap {
            let mut before = std::mem::take(&mut self.before);
            before.clear();
            for &i in &group.members {
                before.extend_from_slice(participants[i].observed());
            }
            for &i in &group.members {
                self.evaluate(i, participants, histories, time)?;
            }
            let (settled, change) = compare(&before, &group.members, participants);
            self.before = before;
            // Before the first pass some members were not read yet: nothing to compare.
            let first = pass == 1;
            if !first && settled {
                return Ok(());
            }
            let contracting = first || change < previous;
            if pass >= group.members.len() && !contracting {
                return Ok(());
            }
            previous = change;
        }
        Ok(())
    }

    /// Sets again, from the latest values, the inputs of every participant that was given
    /// them before one of its sources was read for the last time (an input on which none of
    /// its connected outputs depends directly, so the order did not wait for it, or a member
    /// of a cyclic group taken before the group's last values).
    pub(super) fn refresh_inputs(
        &mut self,
        participants: &mut [Participant],
        histories: &Histories,
        order: &[usize],
        time: f64,
    ) -> Result<()> {
        for &i in order {
            let stale = self.sources[i]
                .iter()
                .any(|&source| self.observed_at[source] > self.inputs_at[i]);
            if stale {
                participants[i].set_inputs(histories, time, 0)?;
            }
        }
        Ok(())
    }

    /// Gives participant `i` its inputs at `time` and reads its outputs, after reading any
    /// source not read yet (the value it starts from); when its inputs are final, it leaves
    /// initialization mode before its outputs are read.
    fn evaluate(
        &mut self,
        i: usize,
        participants: &mut [Participant],
        histories: &mut Histories,
        time: f64,
    ) -> Result<()> {
        for s in 0..self.sources[i].len() {
            let source = self.sources[i][s];
            if self.observed_at[source].is_none() {
                self.observe(source, participants, histories, time)?;
            }
        }
        participants[i].set_inputs(histories, time, 0)?;
        self.inputs_at[i] = Some(self.clock);
        let sources_exited = self.sources[i].iter().all(|&source| self.exited[source]);
        if self.early_exits && sources_exited {
            participants[i].exit_initialization_mode(histories, time)?;
            self.exited[i] = true;
        }
        self.observe(i, participants, histories, time)
    }

    /// Reads participant `i`'s observed values at `time` into the histories.
    fn observe(
        &mut self,
        i: usize,
        participants: &mut [Participant],
        histories: &mut Histories,
        time: f64,
    ) -> Result<()> {
        let values = participants[i].observe(time)?;
        histories.reset(i, time, values);
        self.clock += 1;
        self.observed_at[i] = Some(self.clock);
        Ok(())
    }
}

/// Whether no value of `members` moved from `before` by more than [`TOLERANCE`] relative to
/// its size (absolutely below 1), and the largest move.
fn compare(before: &[f64], members: &[usize], participants: &[Participant]) -> (bool, f64) {
    let after = members.iter().flat_map(|&i| participants[i].observed());
    let (mut settled, mut largest) = (true, 0.0f64);
    for (&old, &new) in before.iter().zip(after) {
        let change = (new - old).abs();
        largest = largest.max(change);
        settled &= change <= TOLERANCE * new.abs().max(1.0);
    }
    (settled, largest)
}
