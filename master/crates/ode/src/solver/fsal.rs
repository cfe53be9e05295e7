//! The first-same-as-last bookkeeping of the one-step methods whose last stage derivative is
//! `f` at the new state: after an accepted step it becomes the first stage of the next one,
//! which saves one evaluation per step.

use super::{initial_step, Ode, Tolerances};

/// The stage derivatives `k_1 .. k_S` of the last attempt, and where `k_1` comes from.
pub(super) struct FsalStages<const S: usize> {
    /// Stage derivatives of the last attempt.
    pub k: [Vec<f64>; S],
    /// Whether `k[0]` holds `f(t, x)` of the current point.
    first_stage_valid: bool,
    /// The last attempt was accepted: its last stage becomes the next first stage when the
    /// next attempt starts (so the dense output stays valid until then).
    last_stage_pending: bool,
}

impl<const S: usize> FsalStages<S> {
    /// Stages for `n` states, none of them valid yet.
    pub fn new(n: usize) -> Self {
        FsalStages {
            k: std::array::from_fn(|_| vec![0.0; n]),
            first_stage_valid: false,
            last_stage_pending: false,
        }
    }

    /// Evaluates `f(t, x)` as the first stage and returns a starting step from it, at most
    /// `max_step`, for a method whose error estimate grows like `h^estimate_order`.
    pub fn initial_step<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        tolerances: &Tolerances,
        max_step: f64,
        estimate_order: u32,
    ) -> Result<f64, O::Error> {
        if x.is_empty() {
            return Ok(max_step);
        }
        ode.derivatives(t, x, &mut self.k[0])?;
        self.first_stage_valid = true;
        self.last_stage_pending = false;
        initial_step(ode, t, x, &self.k[0], tolerances, max_step, estimate_order)
    }

    /// Makes `k[0]` hold `f(t, x)` at the start of an attempt from `(t, x)`: the accepted
    /// step's last stage when there is one, else a new evaluation.
    pub fn start<O: Ode>(&mut self, ode: &mut O, t: f64, x: &[f64]) -> Result<(), O::Error> {
        if self.last_stage_pending {
            self.k.swap(0, S - 1);
            self.last_stage_pending = false;
        }
        if !self.first_stage_valid {
            ode.derivatives(t, x, &mut self.k[0])?;
            self.first_stage_valid = true;
        }
        Ok(())
    }

    /// The last attempt was accepted: its last stage is `f` at the next attempt's start.
    pub fn accept(&mut self) {
        self.last_stage_pending = true;
        self.first_stage_valid = true;
    }

    /// Forgets the carried stage: the state or the right-hand side jumped.
    pub fn reset(&mut self) {
        self.first_stage_valid = false;
        self.last_stage_pending = false;
    }
}
