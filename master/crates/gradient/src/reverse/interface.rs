//! The adjoint of an implicit coupling's converged interface at one macro point.
//!
//! An implicit macro step `[t_k, t_{k+1}]` ends with every input set to the converged values
//! of the same communication at `t_{k+1}` before the outputs are read: `y = g(w, u_end)`,
//! `u_end` the hold of the other participants' `y` (weight one on the samples of the same
//! tag). Where every participant with inputs is a Co-Simulation FMU taking one step per macro
//! step, its step held the inputs at `t_k`, so its state `w` at `t_{k+1}` does not depend on
//! the values there: those values are a fixed point of the output maps alone, and by the
//! implicit function theorem the adjoints `lambda` of the samples at `t_{k+1}` satisfy
//! `lambda = b + A^T lambda`, `b` what the pass gathered for them so far (the cost's `dJ/dy`,
//! the holds of later steps, coupling stages) and `A^T` the output VJPs' input adjoints sent
//! through the end holds to samples of the same time.
//!
//! The pass assembles `I - A^T` on the samples some end hold reads (one output VJP per such
//! sample, seeded with one) and solves it by LU. Repeating the output VJPs until `lambda`
//! stops changing would be exact after a few sweeps where the direct feedthrough forms no
//! cycle (the double oscillator: two), but never ends, or only approximately, where it forms
//! an algebraic loop; the matrix is exact in either case and costs, per macro point, one
//! output VJP per unknown and one per participant seeded with the cost's other outputs.
//! The participants' own reversal then takes the output VJP once more, seeded with
//! `lambda`, for their states and parameters; what its end inputs send to samples of the same
//! time is part of `lambda` already and is not sent again.

use nalgebra::{DMatrix, DVector};

use super::{fresh, nonzero, Pass};
use crate::replay;
use crate::tape::{Place, Tape};
use tandem_cosim::{Error, Result};

/// Where one end input takes a sample of the same time from.
struct SameTime {
    /// Its index among the participant's derivative inputs.
    seed: usize,
    /// The index of the sample's slot among the unknowns.
    unknown: usize,
    /// The hold's weight on that sample.
    weight: f64,
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
        // The unknowns are the slots an end hold reads at the same time; the rest keep `b`.
        let mut unknowns: Vec<(usize, usize)> = Vec::new();
        let mut reads: Vec<Vec<SameTime>> = Vec::with_capacity(tapes.len());
        for (i, tape) in tapes.iter().enumerate() {
            let end = &tape.step(k).end;
            let mut own = Vec::new();
            for (input, (wire, hold)) in wiring[i].inputs.iter().zip(&end.holds).enumerate() {
                let Some(seed) = self.seeds[i].inputs[input].filter(|_| wire.differentiable) else {
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
                    own.push(SameTime {
                        seed,
                        unknown,
                        weight,
                    });
                }
            }
            reads.push(own);
        }
        let n = unknowns.len();
        if n > 0 {
            for (i, own) in reads.iter().enumerate() {
                if !own.is_empty() {
                    let mut component = self.cosimulation.component(i);
                    let (name, step) = (&self.names[i], tapes[i].step(k));
                    replay::restore(
                        &mut component,
                        name,
                        &tapes[i],
                        Place::point(k + 1),
                        &step.end,
                    )?;
                }
            }
            let mut right = DVector::from_iterator(n, unknowns.iter().map(|&(p, s)| lambda[p][s]));
            // The outputs that are no unknowns feed the unknowns through `b` alone.
            for (i, own) in reads.iter().enumerate() {
                let mut known = lambda[i].clone();
                for &(p, s) in &unknowns {
                    if p == i {
                        known[s] = 0.0;
                    }
                }
                if !own.is_empty() && nonzero(&known) {
                    self.feed(i, tapes, k, &known, own, right.as_mut_slice())?;
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
                self.feed(p, tapes, k, &unit, &reads[p], &mut column)?;
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

    /// Adds to `unknowns` what participant `i`'s output VJP at the end of macro step `k`,
    /// seeded with `adjoints` (by observed slot), sends through its end inputs `reads` to
    /// samples of the same time.
    fn feed(
        &mut self,
        i: usize,
        tapes: &[Tape],
        k: usize,
        adjoints: &[f64],
        reads: &[SameTime],
        unknowns: &mut [f64],
    ) -> Result<()> {
        self.seed_outputs(i, adjoints);
        let map = &self.seeds[i];
        let time = tapes[i].step(k).end.time;
        let reversal = &mut self.components[i];
        let mut returned = reversal.returned(map);
        let mut component = self.cosimulation.component(i);
        let name = &self.names[i];
        replay::derivatives(&mut component, name, time)?
            .output_vjp(
                &reversal.output_seeds,
                &mut returned.state,
                &mut returned.inputs,
                &mut returned.parameters,
            )
            .map_err(|e| replay::failed(name, time, e))?;
        for read in reads {
            unknowns[read.unknown] += read.weight * returned.inputs[read.seed];
        }
        reversal.spares.push(returned);
        Ok(())
    }
}
