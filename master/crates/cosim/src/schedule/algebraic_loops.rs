//! Algebraic loops under Gauss-Seidel: connections closed through direct feedthrough (an
//! output that depends on an input of its component at the same instant). Going through the
//! participants in order, a participant early in the loop computes its outputs from the
//! value a later one communicated at the previous point; at the communication point the loop
//! is then not satisfied. The solver makes it so, at every communication point and at the
//! start: the unknowns are the **tear values**, the values of the outputs that feed a
//! participant no later in the order than their own; one **pass** sets them, then lets every
//! participant in order take its inputs and give its outputs at that time (no step), and
//! returns the tear outputs' new values, `G(v)`. Newton solves `G(v) = v` with the Jacobian of
//! `G` by forward differences (one pass per tear value), to a relative tolerance of 1e-12; a
//! loop without a unique solution, or one that does not converge in 20 iterations, is an
//! error naming the loop, the residual and the iterations.

use nalgebra::{DMatrix, DVector};

use super::history::{Histories, Source};
use super::participant::Participant;
use crate::error::{Error, Result};
use crate::system::algebraic_loop;
use crate::system::{Port, System};

/// Newton iterations before the loop counts as not converging.
const MAX_ITERATIONS: usize = 20;

/// The loop is satisfied when every tear value changes by at most this much, relative to its
/// size (or absolutely below 1), in a pass.
const TOLERANCE: f64 = 1e-12;

/// The solver of a system's algebraic loops.
pub(super) struct LoopSolver {
    /// The tear values' sources.
    tears: Vec<Source>,
    /// The first loop found, for messages: `a.y -> b.u -> b.z -> a.y`.
    description: String,
}

impl LoopSolver {
    /// The solver for `system` under Gauss-Seidel, whose participants observe `observed`;
    /// none when it has no algebraic loop.
    pub(super) fn new(system: &System, observed: &[Vec<Port>]) -> Option<Self> {
        let cycle = algebraic_loop::find(&system.components, &system.connections)?;
        let position = |component: usize| {
            system
                .schedule
                .order
                .iter()
                .position(|&i| i == component)
                .unwrap_or(usize::MAX)
        };
        let mut tears: Vec<Source> = Vec::new();
        for connection in &system.connections {
            let (from, to) = (connection.from, connection.to);
            if position(to.component) > position(from.component) {
                continue;
            }
            let source = Source {
                participant: from.component,
                slot: observed[from.component]
                    .iter()
                    .position(|&p| p == from)
                    .expect("every connection source is observed"),
            };
            if !tears.contains(&source) {
                tears.push(source);
            }
        }
        Some(LoopSolver {
            tears,
            description: algebraic_loop::describe(&cycle, &system.components),
        })
    }

    /// Makes the values communicated at `time` satisfy the loops: on return the latest values
    /// in `histories` and the participants' inputs are consistent.
    pub(super) fn solve(
        &self,
        participants: &mut [Participant],
        histories: &mut Histories,
        order: &[usize],
        time: f64,
        degree: usize,
    ) -> Result<()> {
        let n = self.tears.len();
        let mut v = DVector::from_iterator(n, self.tears.iter().map(|&t| histories.latest(t)));
        let mut pass = |v: &DVector<f64>| -> Result<DVector<f64>> {
            for (&tear, &value) in self.tears.iter().zip(v.iter()) {
                histories.set_latest(tear, value);
            }
            for &i in order {
                participants[i].set_inputs(histories, time, degree)?;
                let values = participants[i].observe(time)?;
                histories.replace_latest(i, values);
            }
            Ok(DVector::from_iterator(
                n,
                self.tears.iter().map(|&tear| histories.latest(tear)),
            ))
        };
        let mut residual = f64::INFINITY;
        for iteration in 0..=MAX_ITERATIONS {
            let g = pass(&v)?;
            let r = &g - &v;
            residual = r.amax();
            let satisfied = r
                .iter()
                .zip(g.iter())
                .all(|(&r, &g)| r.abs() <= TOLERANCE * g.abs().max(1.0));
            if satisfied {
                return Ok(());
            }
            if iteration == MAX_ITERATIONS {
                break;
            }
            // d G / d v by forward differences, one pass per tear value.
            let mut jacobian = DMatrix::<f64>::identity(n, n);
            for j in 0..n {
                let h = f64::EPSILON.sqrt() * v[j].abs().max(1.0);
                let mut shifted = v.clone();
                shifted[j] += h;
                let column = (pass(&shifted)? - &g) / h;
                jacobian.set_column(j, &(jacobian.column(j) - column));
            }
            let step = jacobian
                .lu()
                .solve(&r)
                .filter(|s| s.iter().all(|x| x.is_finite()));
            let Some(step) = step else {
                return Err(Error::simulation(
                    time,
                    format!(
                        "algebraic loop {}: its equations have no unique solution (the \
                         Jacobian of the loop is singular; residual {residual:e} after {} \
                         Newton iterations)",
                        self.description, iteration
                    ),
                ));
            };
            v += step;
        }
        Err(Error::simulation(
            time,
            format!(
                "algebraic loop {}: not solved, residual {residual:e} after {MAX_ITERATIONS} \
                 Newton iterations",
                self.description
            ),
        ))
    }
}
