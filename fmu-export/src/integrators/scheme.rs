//! The interface every one-step method offers the communication-step driver.

use crate::system::{StepError, StepInputs, System};

/// What a step reads besides its states and times: the system, the inputs over the
/// communication step, the parameters and the discrete variables (fixed during a step).
pub struct StepContext<'a, S> {
    /// The system.
    pub sys: &'a S,
    /// The inputs over the communication step.
    pub u: &'a StepInputs<f64>,
    /// The parameters.
    pub p: &'a [f64],
    /// The discrete variables.
    pub d: &'a [f64],
}

// Not derived: a derive would require `S: Copy`, while only references are copied.
impl<S> Clone for StepContext<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for StepContext<'_, S> {}

/// A one-step method advancing a discrete state `w` (layout documented by each method) over
/// one internal step, in residual form `F(w_next, w_prev, u, p) = 0`.
pub trait Scheme<S: System> {
    /// Number of entries of the method's discrete state `w`.
    fn state_len(&self) -> usize;

    /// The continuous state `x` contained in `w` (always its leading entries).
    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64];

    /// Takes one step of exactly `h` from `(t, w)` (no step-size control), writing `w_next`.
    fn step(
        &self,
        cx: &StepContext<S>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError>;

    /// Largest internal step.
    fn max_step(&self) -> f64;

    /// Takes the next internal step from `t` towards `stop > t` and returns the time reached,
    /// which is exactly `stop` on the last step. Fixed-step methods use [`fixed_step`].
    fn advance(
        &self,
        cx: &StepContext<S>,
        t: f64,
        stop: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        let (h, t_next) = fixed_step(t, stop, self.max_step());
        self.step(cx, t, h, w, w_next)?;
        Ok(t_next)
    }
}

/// The next step of the equidistant grid that splits `[t, stop]` into
/// `ceil((stop - t) / max_step - 1e-9)` steps: returns `(h, t + h)`, with `t + h == stop`
/// exactly on the last step.
///
/// Recomputing the grid from the current time gives the same steps (up to rounding) as
/// splitting once, without storing a plan in the integrator state.
pub fn fixed_step(t: f64, stop: f64, max_step: f64) -> (f64, f64) {
    let remaining = stop - t;
    let count = (remaining / max_step - 1e-9).ceil();
    if count <= 1.0 {
        (remaining, stop)
    } else {
        let h = remaining / count;
        (h, t + h)
    }
}

#[cfg(test)]
mod tests {
    use super::fixed_step;

    #[test]
    fn the_fixed_grid_hits_the_stop_time_with_equal_steps() {
        for (interval, max_step, count) in [(0.01, 1e-3, 10), (0.1, 0.03, 4), (1e-3, 1e-3, 1)] {
            let (mut t, mut steps, mut lengths) = (0.3, 0, Vec::new());
            let stop = 0.3 + interval;
            while t < stop {
                let (h, next) = fixed_step(t, stop, max_step);
                lengths.push(h);
                t = next;
                steps += 1;
            }
            assert_eq!(t, stop);
            assert_eq!(steps, count);
            let h = interval / count as f64;
            assert!(lengths
                .iter()
                .all(|l| (l - h).abs() < 1e-14 && *l <= max_step * (1.0 + 1e-9)));
        }
    }
}
