//! The tangents of an implicit coupling's converged interface at one macro point: the mirror
//! of the adjoint's [`crate::reverse`] interface.
//!
//! At the end of an implicit macro step every input takes the converged values of the same
//! communication before the outputs are read, `y = g(w, u, p)` with `u` the holds of the other
//! participants' `y` (weight one on the samples of the same tag). Where every participant with
//! inputs takes one Co-Simulation step per macro step, its state `w` there does not depend on
//! those values (its step held the inputs at the step's start), and the tangents of the values
//! read at the same time, `z`, solve `(I - A) z = b`: `b` what the outputs' tangents would be
//! with those reads left out (the state's, the parameters', the earlier samples'), `A` the
//! output maps' input Jacobians sent through the end holds to samples of the same time. One
//! LU serves every direction. The other values' tangents follow from `z`.

use nalgebra::{DMatrix, DVector};

use super::{observed, HoldTerm, Rows, Sweep};
use crate::replay;
use crate::tape::{Place, Tape};
use tandem_cosim::{Error, Result};

/// One participant's end of the macro step: its output Jacobian there, its inputs' tangents
/// without the reads of the same time, and those reads.
struct End {
    rows: Rows,
    known: Vec<Vec<f64>>,
    /// `(seed, unknown, weight)`: the input `seed` takes `weight` times unknown `unknown`.
    reads: Vec<(usize, usize, f64)>,
}

impl Sweep<'_> {
    /// The tangents of every participant's values at the end of macro step `k`, solved
    /// together, kept as their samples.
    pub(super) fn interface(&mut self, tapes: &[Tape], k: usize) -> Result<()> {
        let tag = |participant: usize| tapes[participant].step(k).tag;
        // The unknowns: the observed slots an end hold reads at the same time.
        let mut unknowns: Vec<(usize, usize)> = Vec::new();
        let mut ends = Vec::with_capacity(tapes.len());
        for (i, tape) in tapes.iter().enumerate() {
            let step = tape.step(k);
            let name = &self.names[i];
            let mut component = self.cosimulation.component(i);
            replay::restore(&mut component, name, tape, Place::point(k + 1), &step.end)?;
            let rows = self.output_rows(i, step.end.time)?;
            let mut reads = Vec::new();
            let known = self.held_input_tangents(i, &step.end, &mut |term: HoldTerm| {
                if term.tag != tag(term.participant) {
                    return false;
                }
                let source = (term.participant, term.slot);
                let unknown = match unknowns.iter().position(|&u| u == source) {
                    Some(unknown) => unknown,
                    None => {
                        unknowns.push(source);
                        unknowns.len() - 1
                    }
                };
                reads.push((term.seed, unknown, term.weight));
                true
            });
            ends.push(End { rows, known, reads });
        }
        // `A`: what each unknown's output row takes from the unknowns through its reads.
        let n = unknowns.len();
        let mut matrix = DMatrix::identity(n, n);
        for (row, &(p, slot)) in unknowns.iter().enumerate() {
            let Some(output) = self.seeds[p].outputs[slot] else {
                continue;
            };
            for &(seed, unknown, weight) in &ends[p].reads {
                let entry = ends[p].rows.inputs[output].get(seed).copied();
                matrix[(row, unknown)] -= weight * entry.unwrap_or(0.0);
            }
        }
        let factors = matrix.lu();
        let time = tapes
            .first()
            .map_or(self.start, |tape| tape.step(k).end.time);
        let mut per_participant: Vec<Vec<Vec<f64>>> = vec![Vec::new(); tapes.len()];
        for direction in 0..self.directions.len() {
            // Every output with the reads of the same time left out, then `z`.
            let base: Vec<Vec<f64>> = ends
                .iter()
                .enumerate()
                .map(|(i, end)| {
                    self.output_tangents(i, &end.rows, &end.known[direction], direction)
                })
                .collect();
            let right = DVector::from_iterator(
                n,
                unknowns.iter().map(|&(p, slot)| {
                    self.seeds[p].outputs[slot].map_or(0.0, |output| base[p][output])
                }),
            );
            let z = factors.solve(&right).ok_or_else(|| Error::Simulation {
                time,
                message: "gradient sweep: the tangent equations of the implicit coupling's \
                          interface are singular (I - dY/dz has no inverse)"
                    .to_string(),
            })?;
            for (i, (end, mut outputs)) in ends.iter().zip(base).enumerate() {
                for (output, value) in outputs.iter_mut().enumerate() {
                    let row = &end.rows.inputs[output];
                    for &(seed, unknown, weight) in &end.reads {
                        *value += weight * row.get(seed).copied().unwrap_or(0.0) * z[unknown];
                    }
                }
                per_participant[i].push(observed(&self.seeds[i], &outputs));
            }
        }
        for (i, tangents) in per_participant.into_iter().enumerate() {
            self.sample(i, &tapes[i], tapes[i].step(k).tag, tangents);
        }
        Ok(())
    }
}
