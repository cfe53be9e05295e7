//! The tangents of an implicit coupling's converged interface at one macro point: the mirror
//! of the adjoint's [`crate::reverse`] interface.
//!
//! At the end of an implicit macro step every input takes the converged values of the same
//! communication before the outputs are read, `y = g(w, u, p)` with `u` the holds of the other
//! participants' `y` (weight one on the samples of the same tag). A Co-Simulation participant's
//! state `w` there depends on those values through its sub-steps after the first, which hold
//! the line toward them (weight `s_j` at the sub-step's start `t_j`): the sweep carries the
//! state's tangents through the sub-steps without those reads, `w0`, and for each value read
//! there the state's tangent along it, `C_u` (a JVP of every sub-step from the first that reads
//! it, with that read's weight as the input tangent). The tangents of the values read at the
//! same time, `z`, then solve `(I - A) z = b`: `b` what the outputs' tangents would be with
//! those reads left out (`w0`'s, the parameters', the earlier samples'), `A` the output maps'
//! input Jacobians sent through the end holds to samples of the same time plus their state
//! Jacobians times `C_u`. One LU serves every direction. The other values' tangents, and the
//! state's (`w0 + sum C_u z_u`), follow from `z`.

use nalgebra::{DMatrix, DVector};

use super::{dot, observed, HoldTerm, Rows, Sweep};
use crate::replay;
use crate::tape::{Place, Tape};
use tandem_cosim::{Error, Result};

/// Where one of a participant's sub-steps reads a value of the end of the macro step: its
/// input `seed` takes `weight` times unknown `unknown`.
struct StepRead {
    sub_step: usize,
    seed: usize,
    unknown: usize,
    weight: f64,
}

/// One participant's end of the macro step: its output Jacobian there, its inputs' tangents
/// without the reads of the same time, and those reads.
struct End {
    rows: Rows,
    known: Vec<Vec<f64>>,
    /// `(seed, unknown, weight)`: the input `seed` takes `weight` times unknown `unknown`.
    reads: Vec<(usize, usize, f64)>,
    /// `(unknown, C_u)`: the state's tangent at the end along each unknown its sub-steps read.
    columns: Vec<(usize, Vec<f64>)>,
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
            let columns = self.state_columns(i, tapes, k, &mut unknowns)?;
            ends.push(End {
                rows,
                known,
                reads,
                columns,
            });
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
            for (unknown, column) in &ends[p].columns {
                matrix[(row, *unknown)] -= dot(&ends[p].rows.state[output], column);
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
                    for (unknown, column) in &end.columns {
                        *value += dot(&end.rows.state[output], column) * z[*unknown];
                    }
                }
                let state = &mut self.states[i][direction];
                for (unknown, column) in &end.columns {
                    for (entry, c) in state.iter_mut().zip(column) {
                        *entry += c * z[*unknown];
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

impl Sweep<'_> {
    /// Participant `i`'s state tangents at the end of macro step `k` along each value of that
    /// point its sub-steps read (`(unknown, C_u)`, the values' sources added to `unknowns`
    /// where not among them yet): one JVP of every sub-step from the first that reads it.
    fn state_columns(
        &mut self,
        i: usize,
        tapes: &[Tape],
        k: usize,
        unknowns: &mut Vec<(usize, usize)>,
    ) -> Result<Vec<(usize, Vec<f64>)>> {
        let (tape, name, map) = (&tapes[i], &self.names[i], &self.seeds[i]);
        let step = tape.step(k);
        let mut reads: Vec<StepRead> = Vec::new();
        for (j, sub_step) in step.sub_steps.iter().enumerate() {
            let wires = self.wiring[i].inputs.iter().zip(&sub_step.inputs.holds);
            for (input, (wire, hold)) in wires.enumerate() {
                let Some(seed) = map.inputs[input].filter(|_| wire.differentiable) else {
                    continue;
                };
                let source = (wire.participant, wire.slot);
                let end = tapes[wire.participant].step(k).tag;
                for &(_, weight) in hold
                    .terms()
                    .iter()
                    .filter(|&&(tag, weight)| tag == end && weight != 0.0)
                {
                    let unknown = match unknowns.iter().position(|&u| u == source) {
                        Some(unknown) => unknown,
                        None => {
                            unknowns.push(source);
                            unknowns.len() - 1
                        }
                    };
                    reads.push(StepRead {
                        sub_step: j,
                        seed,
                        unknown,
                        weight,
                    });
                }
            }
        }
        let mut read: Vec<usize> = reads.iter().map(|r| r.unknown).collect();
        read.sort_unstable();
        read.dedup();
        let no_parameters = vec![0.0; map.parameter_count];
        let mut outputs = vec![0.0; map.output_count];
        let mut columns = Vec::with_capacity(read.len());
        for unknown in read {
            let mut d_state = vec![0.0; map.state_size];
            let along: Vec<&StepRead> = reads.iter().filter(|r| r.unknown == unknown).collect();
            // The sub-steps before the first that reads it carry no tangent along it.
            let first = along.iter().map(|r| r.sub_step).min().unwrap_or(0);
            for (j, sub_step) in step.sub_steps.iter().enumerate().skip(first) {
                let mut d_inputs = vec![0.0; map.input_count];
                for read in along.iter().filter(|r| r.sub_step == j) {
                    d_inputs[read.seed] += read.weight;
                }
                let place = Place {
                    step: k,
                    sub_step: j,
                };
                let time = sub_step.inputs.time;
                let mut component = self.cosimulation.component(i);
                replay::restore(&mut component, name, tape, place, &sub_step.inputs)?;
                let mut next = vec![0.0; map.state_size];
                replay::derivatives(&mut component, name, time)?
                    .step_jvp(
                        sub_step.step,
                        &d_state,
                        &d_inputs,
                        &no_parameters,
                        &mut next,
                        &mut outputs,
                    )
                    .map_err(|e| replay::failed(name, time, e))?;
                d_state = next;
            }
            columns.push((unknown, d_state));
        }
        Ok(columns)
    }
}
