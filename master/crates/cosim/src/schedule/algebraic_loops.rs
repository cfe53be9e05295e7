//! Algebraic loops under Gauss-Seidel: connections closed through direct feedthrough (an
//! output that depends on an input of its component at the same instant). Going through the
//! participants in order, a participant early in the loop computes its outputs from the
//! value a later one communicated at the previous point; at the communication point the loop
//! is then not satisfied. The solver makes it so, at every communication point and at the
//! start: the unknowns are the **tear values**, the values of the outputs that feed a
//! participant no later in the order than their own; one **pass** sets them, then lets every
//! participant in order take its inputs and give its outputs at that time (no step), and
//! returns the tear outputs' new values, `G(v)`. Newton solves `G(v) = v` to a relative
//! tolerance of 1e-12 with the Jacobian of `G`: exact where every participant's FMU gives
//! directional derivatives (the tangent of one tear value carried through a pass, each
//! participant's outputs by its inputs from [`super::feedthrough`], one pass of products per
//! tear value), else by forward differences (one pass per tear value); a
//! loop without a unique solution, or one that does not converge in 20 iterations, is an
//! error naming the loop, the residual and the iterations.
//!
//! The factors of `I - dG/dv` are kept from one point to the next, as an implicit integrator
//! keeps its iteration matrix, and made afresh only when an iteration with them fails to cut
//! the residual by ten: a loop whose Jacobian changes slowly then costs one or two passes per
//! point. A Jacobian by differences is kept up to date by Broyden's updates from the
//! iterations instead, and made afresh by differences only when the residual grows.

use nalgebra::{DMatrix, DVector};

use super::history::{Histories, Source};
use super::loop_report::{LoopJacobian, LoopReport};
use super::newton_matrix::Factors;
use super::participant::{Holds, Participant};
use crate::error::{Error, Result};
use crate::system::algebraic_loop;
use crate::system::{Port, System};

/// Newton iterations before the loop counts as not converging.
const MAX_ITERATIONS: usize = 20;

/// The loop is satisfied when every tear value changes by at most this much, relative to its
/// size (or absolutely below 1), in a pass.
pub(super) const TOLERANCE: f64 = 1e-12;

/// The solver of a system's algebraic loops.
pub(super) struct LoopSolver {
    /// The tear values' sources.
    tears: Vec<Source>,
    /// `I - dG/dv` at an earlier iterate (updated by Broyden's rule where it was made by
    /// differences), while Newton converges with it.
    kept: Option<Factors>,
    /// The tear values, their images under a pass, and the Newton step.
    v: DVector<f64>,
    g: DVector<f64>,
    step: DVector<f64>,
    /// The tangents of every participant's observed variables and of one participant's
    /// inputs in a pass of tangents (kept for their capacity).
    tangents: Tangents,
    /// What it did so far, with the first loop found (for messages).
    report: LoopReport,
}

/// The buffers of a pass of tangents.
struct Tangents {
    observed: Vec<Vec<f64>>,
    inputs: Vec<f64>,
}

/// What a pass needs besides the tear values.
struct Pass<'a> {
    /// What the solver did so far: passes and Jacobians are counted.
    report: &'a mut LoopReport,
    tears: &'a [Source],
    participants: &'a mut [Participant],
    histories: &'a mut Histories,
    order: &'a [usize],
    time: f64,
    degree: usize,
}

impl Pass<'_> {
    /// Sets the tear values `v`, lets every participant in order take its inputs and give its
    /// outputs, and writes the tear outputs' new values into `g`.
    fn run(&mut self, v: &DVector<f64>, g: &mut DVector<f64>) -> Result<()> {
        self.report.passes += 1;
        for (&tear, &value) in self.tears.iter().zip(v.iter()) {
            self.histories.set_latest(tear, value);
        }
        for &i in self.order {
            self.participants[i].set_inputs(self.histories, self.time, self.degree)?;
            let values = self.participants[i].observe(self.time)?;
            self.histories.replace_latest(i, values);
        }
        for (out, &tear) in g.iter_mut().zip(self.tears) {
            *out = self.histories.latest(tear);
        }
        Ok(())
    }

    /// The LU factors of `I - dG/dv` at `v`, whose image `g` the latest pass computed: from
    /// the directional derivatives where every participant has them, else by differences.
    fn factors(
        &mut self,
        v: &DVector<f64>,
        g: &DVector<f64>,
        tangents: &mut Tangents,
    ) -> Result<Factors> {
        self.report.jacobians += 1;
        if self
            .participants
            .iter()
            .all(|p| p.has_feedthrough_derivatives())
        {
            self.report.source = LoopJacobian::DirectionalDerivatives;
            self.exact_matrix(v.len(), tangents).map(Factors::new)
        } else {
            self.report.source = LoopJacobian::Differences;
            self.difference_matrix(v, g).map(Factors::new)
        }
    }

    /// `I - dG/dv` at the point of the latest pass, column `j` the tangent of the tear outputs
    /// when tear value `j` has the tangent 1: carried through the participants in order as the
    /// pass carries the values.
    fn exact_matrix(&mut self, n: usize, tangents: &mut Tangents) -> Result<DMatrix<f64>> {
        let mut matrix = DMatrix::<f64>::identity(n, n);
        for j in 0..n {
            for observed in &mut tangents.observed {
                observed.fill(0.0);
            }
            let tear = self.tears[j];
            tangents.observed[tear.participant][tear.slot] = 1.0;
            for &i in self.order {
                let observed = &tangents.observed;
                let latest = |source: Source| observed[source.participant][source.slot];
                self.participants[i].input_tangents(
                    self.histories,
                    self.time,
                    Holds::Extrapolated(self.degree),
                    &latest,
                    &mut tangents.inputs,
                );
                self.participants[i]
                    .observed_tangents(&tangents.inputs, &mut tangents.observed[i])?;
            }
            for (row, &tear) in self.tears.iter().enumerate() {
                matrix[(row, j)] -= tangents.observed[tear.participant][tear.slot];
            }
        }
        Ok(matrix)
    }

    /// `I - dG/dv` at `v`, whose image is `g`, by forward differences.
    fn difference_matrix(&mut self, v: &DVector<f64>, g: &DVector<f64>) -> Result<DMatrix<f64>> {
        let n = v.len();
        let mut matrix = DMatrix::<f64>::identity(n, n);
        let (mut shifted, mut image) = (v.clone(), DVector::zeros(n));
        for j in 0..n {
            let h = f64::EPSILON.sqrt() * v[j].abs().max(1.0);
            shifted[j] = v[j] + h;
            self.run(&shifted, &mut image)?;
            shifted[j] = v[j];
            for i in 0..n {
                matrix[(i, j)] -= (image[i] - g[i]) / h;
            }
        }
        Ok(matrix)
    }
}

impl LoopSolver {
    /// The solver for `system` under Gauss-Seidel, whose participants observe `observed`;
    /// none when it has no algebraic loop.
    pub(super) fn new(system: &System, observed: &[Vec<Port>]) -> Option<Self> {
        let cycle = algebraic_loop::find(&system.components, &system.connections)?;
        let tears = backward_sources(system, observed, false);
        let n = tears.len();
        let tangents = Tangents {
            observed: observed
                .iter()
                .map(|ports| vec![0.0; ports.len()])
                .collect(),
            inputs: Vec::new(),
        };
        Some(LoopSolver {
            tangents,
            tears,
            report: LoopReport {
                description: algebraic_loop::describe(&cycle, &system.components),
                points: 0,
                passes: 0,
                jacobians: 0,
                updates: 0,
                source: LoopJacobian::Differences,
            },
            kept: None,
            v: DVector::zeros(n),
            g: DVector::zeros(n),
            step: DVector::zeros(n),
        })
    }

    /// What the solver did so far.
    pub(super) fn report(&self) -> &LoopReport {
        &self.report
    }

    /// Makes the values communicated at `time` satisfy the loops: on return the latest values
    /// in `histories` and the participants' inputs are consistent.
    pub(super) fn solve(
        &mut self,
        participants: &mut [Participant],
        histories: &mut Histories,
        order: &[usize],
        time: f64,
        degree: usize,
    ) -> Result<()> {
        for (value, &tear) in self.v.iter_mut().zip(&self.tears) {
            *value = histories.latest(tear);
        }
        self.report.points += 1;
        let mut pass = Pass {
            report: &mut self.report,
            tears: &self.tears,
            participants,
            histories,
            order,
            time,
            degree,
        };
        let (v, g, step) = (&mut self.v, &mut self.g, &mut self.step);
        let mut residual = f64::INFINITY;
        // The change of the tear values and of the residual `v - G(v)` by the latest iteration.
        let mut previous: Option<(DVector<f64>, DVector<f64>)> = None;
        for iteration in 0..=MAX_ITERATIONS {
            pass.run(v, g)?;
            let last = residual;
            residual = 0.0;
            let mut satisfied = true;
            for (&image, &value) in g.iter().zip(v.iter()) {
                let change = (image - value).abs();
                residual = residual.max(change);
                satisfied &= change <= TOLERANCE * image.abs().max(1.0);
            }
            if satisfied {
                return Ok(());
            }
            if iteration == MAX_ITERATIONS {
                break;
            }
            // A Jacobian by differences follows the iterations by Broyden's updates, and is
            // made afresh only when the residual grew; exact factors that did not cut the
            // residual by ten are made afresh at this iterate.
            let broyden = pass.report.source == LoopJacobian::Differences;
            if let (true, Some(kept), Some((dv, dg))) = (broyden, &mut self.kept, &mut previous) {
                *dv += &*v;
                *dg += &*v - &*g;
                kept.update(dv, dg);
                pass.report.updates += 1;
            }
            let enough = if broyden && self.kept.is_some() {
                last
            } else {
                0.1 * last
            };
            let fresh = self.kept.is_none() || residual > enough;
            if fresh {
                self.kept = Some(pass.factors(v, g, &mut self.tangents)?);
            }
            step.copy_from(g);
            *step -= &*v;
            let factors = self.kept.as_ref().expect("made above");
            if !factors.solve_mut(step) {
                if !fresh {
                    self.kept = None;
                    previous = None;
                    continue;
                }
                return Err(Error::simulation(
                    time,
                    format!(
                        "algebraic loop {}: its equations have no unique solution (the \
                         Jacobian of the loop is singular; residual {residual:e} after \
                         {iteration} Newton iterations)",
                        self.report.description
                    ),
                ));
            }
            if pass.report.source == LoopJacobian::Differences {
                previous = Some((-&*v, &*g - &*v));
            }
            *v += &*step;
        }
        Err(Error::simulation(
            time,
            format!(
                "algebraic loop {}: not solved, residual {residual:e} after {MAX_ITERATIONS} \
                 Newton iterations",
                self.report.description
            ),
        ))
    }
}

/// The sources of the connections into a participant that does not advance after the source
/// in `system`'s stepping order, each once, by their observed slots (`observed`): what a
/// participant reads from a value not yet computed at the same time. With `every`, the
/// sources of all connections (under Jacobi, where no participant reads another's value of
/// the same step).
pub(super) fn backward_sources(
    system: &System,
    observed: &[Vec<Port>],
    every: bool,
) -> Vec<Source> {
    let order = &system.schedule.order;
    let position = |component: usize| order.iter().position(|&i| i == component);
    let mut sources: Vec<Source> = Vec::new();
    for connection in &system.connections {
        let (from, to) = (connection.from, connection.to);
        if !every && position(to.component) > position(from.component) {
            continue;
        }
        let source = Source::of(observed, from).expect("every connection source is observed");
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    sources
}
