//! The adjoint of an implicit coupling's converged interface at one macro point.
//!
//! An implicit macro step `[t_k, t_{k+1}]` ends with every input set to the converged values
//! of the same communication at `t_{k+1}` before the outputs are read: `y = g(w_N, u_end)`,
//! `u_end` the hold of the other participants' `y` (weight one on the samples of the same
//! tag). A Co-Simulation participant reaches its state `w_N` at `t_{k+1}` in `N` steps
//! `w_{j+1} = Phi(w_j, u_j)`, each holding its inputs at the line's value at the step's start
//! `t_j`: `u_j = (1 - s_j) y_k + s_j y_{k+1}`, `s_j = (t_j - t_k) / H`. With one step per
//! macro step (`s_0 = 0`) its state does not depend on the values at `t_{k+1}`; with sub-steps
//! it does, through every step after the first.
//!
//! By the implicit function theorem the adjoints `lambda` of the samples at `t_{k+1}` that a
//! hold of the same macro step reads satisfy `lambda = b + A^T lambda`:
//!
//! - `A^T lambda`: each participant's output VJP seeded with `lambda`, its input adjoints sent
//!   through the end holds to samples of the same time, and its state adjoint carried back
//!   through its sub-steps (step VJPs from the states restored before them, as its own
//!   reversal takes them), whose input adjoints go to those samples too, times `s_j`;
//! - `b`: what the pass gathered for them so far (the cost's `dJ/dy`, the holds of later
//!   steps, coupling stages), plus what the same two paths send them from what the
//!   participants carry besides `lambda`: the adjoints of their outputs no hold of the same
//!   time reads, and the state adjoint the reversal of the later macro step left at
//!   `t_{k+1}` (which reaches them through the sub-steps only).
//!
//! The pass assembles `I - A^T` column by column, one output VJP per unknown seeded with one
//! (followed, where its participant's sub-steps read the unknowns, by a reverse sweep of those
//! sub-steps), and solves it by LU. Repeating the VJPs until `lambda` stops changing would be
//! exact after a few sweeps where the direct feedthrough forms no cycle (the double oscillator
//! with one step per macro step: two), but never ends, or only approximately, where it forms
//! an algebraic loop or the sub-steps feed the values back; the matrix is exact in either
//! case. Its cost per macro point: one output VJP per unknown and one per participant seeded
//! with its share of `b`; a participant whose sub-steps read the unknowns also sweeps back
//! through them (`N - 1` step VJPs, each after restoring an FMU state) once per unknown among
//! its own outputs and once for `b`, where its own reversal sweeps once. On the double
//! oscillator with ten sub-steps per macro step (3 unknowns: 7 sweeps of the sub-steps per
//! macro point instead of 2) the gradient of three parameters costs 6.1 runs in instructions,
//! finite differences of whole runs 13 (`master/docs/system-file.md`).
//!
//! The participants' own reversal then takes the output VJP once more, seeded with `lambda`
//! and the carried state adjoint, and its steps last first, for the states at `t_k`, the
//! parameters and the earlier samples; what its end inputs and its steps send to samples of
//! `t_{k+1}` is part of `lambda` already and is not sent again.

use nalgebra::{DMatrix, DVector};

use super::{add, fresh, nonzero, Pass};
use crate::replay;
use crate::tape::{InputRecord, Place, Tape};
use crate::wiring::{SeedMap, Wiring};
use tandem_cosim::{Error, Result};

/// Where one input takes a sample of the end of the macro step.
struct SameTime {
    /// Its index among the participant's derivative inputs.
    seed: usize,
    /// The index of the sample's slot among the unknowns.
    unknown: usize,
    /// The hold's weight on that sample.
    weight: f64,
}

/// Where one participant's macro step reads samples of its end.
struct Reads {
    /// Its inputs at the end, before its outputs are read.
    end: Vec<SameTime>,
    /// Its steps' inputs, by sub-step index, first to last; only the steps that read any.
    steps: Vec<(usize, Vec<SameTime>)>,
}

impl Reads {
    fn is_empty(&self) -> bool {
        self.end.is_empty() && self.steps.is_empty()
    }
}

impl Pass<'_> {
    /// Solves the adjoints of every participant's values at the end of macro step `k` (their
    /// samples taken out of the pass) and makes them the participants' output seeds.
    pub(super) fn interface(&mut self, tapes: &[Tape], k: usize) -> Result<()> {
        let (wiring, cost) = (self.wiring, self.cost);
        let tag = |participant: usize| tapes[participant].step(k).tag;
        let mut lambda: Vec<Vec<f64>> = (0..tapes.len())
            .map(|i| {
                self.adjoints
                    .samples
                    .remove(i, tag(i))
                    .unwrap_or_else(|| fresh(wiring, cost, &tapes[i], i, tag(i)))
            })
            .collect();
        // The unknowns are the slots a hold reads at the same time; the rest keep `b`.
        let mut unknowns: Vec<(usize, usize)> = Vec::new();
        let mut reads: Vec<Reads> = Vec::with_capacity(tapes.len());
        for (i, tape) in tapes.iter().enumerate() {
            let step = tape.step(k);
            let (wires, map) = (&wiring[i], &self.seeds[i]);
            let end = same_time(wires, map, &step.end, &tag, &mut unknowns);
            let mut steps = Vec::new();
            for (j, sub_step) in step.sub_steps.iter().enumerate() {
                let own = same_time(wires, map, &sub_step.inputs, &tag, &mut unknowns);
                if !own.is_empty() {
                    steps.push((j, own));
                }
            }
            reads.push(Reads { end, steps });
        }
        let n = unknowns.len();
        if n > 0 {
            let mut right = DVector::from_iterator(n, unknowns.iter().map(|&(p, s)| lambda[p][s]));
            // The outputs that are no unknowns, and the state's adjoint carried in from the
            // later macro step, feed the unknowns through `b` alone.
            for (i, own) in reads.iter().enumerate() {
                if own.is_empty() {
                    continue;
                }
                let mut known = lambda[i].clone();
                for &(p, s) in &unknowns {
                    if p == i {
                        known[s] = 0.0;
                    }
                }
                let state = &self.components[i].state;
                let carried = (!own.steps.is_empty() && nonzero(state)).then(|| state.clone());
                if nonzero(&known) || carried.is_some() {
                    let unknowns = right.as_mut_slice();
                    self.feed(i, tapes, k, &known, carried.as_deref(), own, unknowns)?;
                }
            }
            let mut matrix = DMatrix::identity(n, n);
            let mut column = vec![0.0; n];
            for (j, &(p, s)) in unknowns.iter().enumerate() {
                if reads[p].is_empty() {
                    continue;
                }
                let mut unit = vec![0.0; lambda[p].len()];
                unit[s] = 1.0;
                column.fill(0.0);
                self.feed(p, tapes, k, &unit, None, &reads[p], &mut column)?;
                for (row, &entry) in column.iter().enumerate() {
                    matrix[(row, j)] -= entry;
                }
            }
            let solved = matrix.lu().solve(&right).ok_or_else(|| Error::Simulation {
                time: tapes[0].step(k).end.time,
                message: "gradient sweep: the adjoint equations of the implicit coupling's \
                          interface are singular (I - dY/dz has no inverse)"
                    .to_string(),
            })?;
            for (&(p, s), &value) in unknowns.iter().zip(solved.iter()) {
                lambda[p][s] = value;
            }
        }
        for (i, adjoints) in lambda.iter().enumerate() {
            self.seed_outputs(i, adjoints);
        }
        Ok(())
    }

    /// Adds to `unknowns` what participant `i`'s macro step `k`, reversed from the adjoints
    /// `adjoints` of its values at the end (by observed slot) and the state adjoint `carried`
    /// there (none: zero), sends to samples of the same time through `reads`: its output VJP
    /// through the end inputs, then its steps, last first, through theirs.
    #[allow(clippy::too_many_arguments)] // The macro step, its reads, both seeds, the sums.
    fn feed(
        &mut self,
        i: usize,
        tapes: &[Tape],
        k: usize,
        adjoints: &[f64],
        carried: Option<&[f64]>,
        reads: &Reads,
        unknowns: &mut [f64],
    ) -> Result<()> {
        self.seed_outputs(i, adjoints);
        let (seeds, names) = (self.seeds, self.names);
        let (map, name, tape) = (&seeds[i], &names[i], &tapes[i]);
        let step = tape.step(k);
        let reversal = &mut self.components[i];
        let mut component = self.cosimulation.component(i);
        let mut returned = reversal.returned(map);
        if nonzero(&reversal.output_seeds) {
            replay::restore(&mut component, name, tape, Place::point(k + 1), &step.end)?;
            let time = step.end.time;
            replay::derivatives(&mut component, name, time)?
                .output_vjp(
                    &reversal.output_seeds,
                    &mut returned.state,
                    &mut returned.inputs,
                    &mut returned.parameters,
                )
                .map_err(|e| replay::failed(name, time, e))?;
            for read in &reads.end {
                unknowns[read.unknown] += read.weight * returned.inputs[read.seed];
            }
        }
        if let Some(&(first, _)) = reads.steps.first() {
            let mut state = std::mem::take(&mut returned.state);
            if let Some(carried) = carried {
                add(&mut state, carried);
            }
            let mut listed = reads.steps.iter().rev().peekable();
            // The steps before the first that reads the unknowns send them nothing.
            for j in (first..step.sub_steps.len()).rev() {
                if !nonzero(&state) {
                    // Every adjoint further back would be zero (the VJP is linear).
                    break;
                }
                let sub_step = &step.sub_steps[j];
                let place = Place {
                    step: k,
                    sub_step: j,
                };
                replay::restore(&mut component, name, tape, place, &sub_step.inputs)?;
                let time = sub_step.inputs.time;
                let mut earlier = reversal.returned(map);
                replay::derivatives(&mut component, name, time)?
                    .step_vjp(
                        sub_step.step,
                        &state,
                        &reversal.no_outputs,
                        &mut earlier.state,
                        &mut earlier.inputs,
                        &mut earlier.parameters,
                    )
                    .map_err(|e| replay::failed(name, time, e))?;
                if let Some((_, own)) = listed.next_if(|(listed, _)| *listed == j) {
                    for read in own {
                        unknowns[read.unknown] += read.weight * earlier.inputs[read.seed];
                    }
                }
                std::mem::swap(&mut state, &mut earlier.state);
                reversal.spares.push(earlier);
            }
            returned.state = state;
        }
        reversal.spares.push(returned);
        Ok(())
    }
}

/// The terms of the holds of `inputs` (a participant's, wired as `wires`, seeded as `map`)
/// that read a sample of the same macro point as the end of the step, `tag` of each
/// participant's; their sources are added to `unknowns` where not among them yet.
fn same_time(
    wires: &Wiring,
    map: &SeedMap,
    inputs: &InputRecord,
    tag: &dyn Fn(usize) -> usize,
    unknowns: &mut Vec<(usize, usize)>,
) -> Vec<SameTime> {
    let mut reads = Vec::new();
    for (input, (wire, hold)) in wires.inputs.iter().zip(&inputs.holds).enumerate() {
        let Some(seed) = map.inputs[input].filter(|_| wire.differentiable) else {
            continue;
        };
        let source = (wire.participant, wire.slot);
        for &(_, weight) in hold
            .terms()
            .iter()
            .filter(|&&(t, weight)| t == tag(wire.participant) && weight != 0.0)
        {
            let unknown = unknowns.iter().position(|&u| u == source);
            let unknown = unknown.unwrap_or_else(|| {
                unknowns.push(source);
                unknowns.len() - 1
            });
            reads.push(SameTime {
                seed,
                unknown,
                weight,
            });
        }
    }
    reads
}
