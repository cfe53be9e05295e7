//! What the Model Exchange loop needs from an adaptive one-step method: step attempts with
//! an error estimate and a proposed next step, the accepted state and a dense output.

use super::auto::AutoMemory;
use super::{Ode, Tolerances};

/// An adaptive one-step method. A step is attempted from an accepted point; the caller
/// either accepts it ([`Stepper::accept`]) and continues from [`Stepper::x_new`], or retries
/// with [`Attempt::next_step`].
pub trait Stepper {
    /// The continuous extension over the last attempted step (empty by default, filled by
    /// [`Stepper::dense_output`]).
    type Dense: Interpolant + Default;

    /// The method's short name, as `--solver` spells it.
    fn name(&self) -> &'static str;

    /// A starting step size from `(t, x)`, at most `max_step`.
    fn initial_step<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        tolerances: &Tolerances,
        max_step: f64,
    ) -> Result<f64, O::Error>;

    /// Attempts a step of size `h` from `(t, x)`; the new state is [`Stepper::x_new`].
    fn attempt<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        h: f64,
        tolerances: &Tolerances,
    ) -> Result<Attempt, O::Error>;

    /// The state at the end of the last attempted step.
    fn x_new(&self) -> &[f64];

    /// Writes the dense output of the last attempted step into `dense`, reusing its buffers
    /// (valid until the next attempt, also after [`Stepper::accept`]).
    fn dense_output(&self, dense: &mut Self::Dense);

    /// Makes the end of the last attempted step the start of the next one.
    fn accept(&mut self);

    /// Forgets everything carried from step to step: call after the state or the right-hand
    /// side jumped (events).
    fn reset(&mut self);

    /// What decides the method's future steps besides the state, the step size and what
    /// [`Stepper::reset`] forgets (nothing, by default): saved with a point of an integration so
    /// that it continues from there as it did the first time.
    fn memory(&self) -> SolverMemory {
        SolverMemory::default()
    }

    /// Goes back to `memory` and forgets what [`Stepper::reset`] forgets.
    fn recall(&mut self, memory: &SolverMemory) {
        let _ = memory;
        self.reset();
    }
}

/// A stepper's [`Stepper::memory`].
#[derive(Debug, Clone, Default)]
pub struct SolverMemory {
    /// The choice of method of [`super::Auto`].
    pub(super) auto: Option<AutoMemory>,
}

/// A continuous extension of a step.
pub trait Interpolant {
    /// Writes the interpolated state at `t` (within the step) into `x`.
    fn evaluate(&self, t: f64, x: &mut [f64]);
}

/// The outcome of one step attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt {
    /// Whether the error estimate is within tolerance.
    pub accepted: bool,
    /// Scaled RMS norm of the local error estimate (accepted when <= 1; infinite when the
    /// attempt failed otherwise, e.g. a stage iteration diverged or a value was not finite).
    pub error: f64,
    /// The step size the controller proposes next (after acceptance or for the retry).
    pub next_step: f64,
}

/// Safety factor on every step-size proposal.
const SAFETY: f64 = 0.9;
/// Smallest factor on the step size after a rejection.
const MIN_FACTOR: f64 = 0.2;

impl Attempt {
    /// The elementary controller: accepts when `error <= 1` and proposes
    /// `h * 0.9 * error^(-1/estimate_order)`, at most `max_factor * h` and at least `h / 5`;
    /// after a rejection the step never grows, and a non-finite error shrinks it by 5.
    pub fn controlled(h: f64, error: f64, estimate_order: u32, max_factor: f64) -> Attempt {
        let accepted = error <= 1.0;
        let factor = if error == 0.0 {
            max_factor
        } else if error.is_finite() {
            (SAFETY * error.powf(-1.0 / f64::from(estimate_order))).clamp(MIN_FACTOR, max_factor)
        } else {
            MIN_FACTOR
        };
        Attempt {
            accepted,
            error,
            next_step: if accepted {
                h * factor
            } else {
                h * factor.min(SAFETY)
            },
        }
    }

    /// A failed attempt (no usable error estimate) whose retry uses `factor * h`.
    pub fn failed(h: f64, factor: f64) -> Attempt {
        Attempt {
            accepted: false,
            error: f64::INFINITY,
            next_step: h * factor,
        }
    }
}
