//! Re-running recorded communication steps with other parameters, inputs or start states, on
//! the recorded schedule: the discrete map that the linearizations differentiate, for
//! finite-difference checks.
//!
//! Free steps keep their lengths, steps to a stop keep their end time, located events are
//! re-located to rounding on the same indicator (secant iteration on the step length), and
//! resets apply the recorded events.

use crate::integrators::events::indicators;
use crate::integrators::tape::{Segment, StepEnd, Tape};
use crate::integrators::{DifferentiableScheme, StepContext};
use crate::ode::Args;
use crate::system::{StepError, StepInputs, System};

use super::trajectory::Trajectory;

/// Secant iterations allowed to re-locate an event.
const MAX_SECANT_ITERATIONS: usize = 60;

/// The method state at the end of `tape`'s step, replayed from `w_start` with `inputs` and
/// `params`.
pub fn replay<S: System, M: DifferentiableScheme<S>>(
    sys: &S,
    scheme: &M,
    tape: &Tape,
    w_start: &[f64],
    inputs: &StepInputs<f64>,
    params: &[f64],
) -> Result<Vec<f64>, StepError> {
    let (mut w, mut d, mut t) = (w_start.to_vec(), tape.d_start.clone(), tape.t);
    let mut next = vec![0.0; w.len()];
    for segment in &tape.segments {
        match segment {
            Segment::Step {
                t: start, h, end, ..
            } => {
                let run = Run {
                    sys,
                    scheme,
                    t,
                    w: &w,
                    inputs,
                    params,
                    d: &d,
                };
                t = match end {
                    StepEnd::Free => {
                        run.step(*h, &mut next)?;
                        t + h
                    }
                    StepEnd::Stop => {
                        let stop = start + h;
                        run.step(stop - t, &mut next)?;
                        stop
                    }
                    StepEnd::Event(_) => {
                        let indicator = end.crossing_indicator().expect("a located event crossed");
                        t + run.locate(*h, indicator, &mut next)?
                    }
                };
                std::mem::swap(&mut w, &mut next);
            }
            Segment::Reset { event, .. } => {
                let x = scheme.continuous_state(&w).to_vec();
                let (mut x_new, d_old) = (x.clone(), d.clone());
                let mut u_t = vec![0.0; inputs.len()];
                inputs.eval(t, &mut u_t);
                let args = Args {
                    t,
                    x: &x,
                    u: &u_t,
                    p: params,
                    d: &d_old,
                };
                sys.reset(&args, event.as_event(), &mut x_new, &mut d);
                scheme.start(sys, t, &x_new, inputs, params, &d, &mut w)?;
            }
        }
    }
    Ok(w)
}

/// The method states at every communication point of `trajectory`, replayed from `x0` with
/// `params` and one input polynomial per step (the first also initializes).
pub fn replay_trajectory<S: System, M: DifferentiableScheme<S>>(
    sys: &S,
    scheme: &M,
    trajectory: &Trajectory,
    x0: &[f64],
    params: &[f64],
    inputs: &[StepInputs<f64>],
) -> Result<Vec<Vec<f64>>, StepError> {
    assert_eq!(
        inputs.len(),
        trajectory.steps.len(),
        "replay: one input polynomial per step"
    );
    let mut w = vec![0.0; trajectory.w0.len()];
    let held = StepInputs::held(trajectory.t0, &[]);
    let first = inputs.first().unwrap_or(&held);
    scheme.start(
        sys,
        trajectory.t0,
        x0,
        first,
        params,
        &trajectory.d0,
        &mut w,
    )?;
    let mut states = vec![w];
    for (tape, u) in trajectory.steps.iter().zip(inputs) {
        let next = replay(
            sys,
            scheme,
            tape,
            states.last().expect("initial state"),
            u,
            params,
        )?;
        states.push(next);
    }
    Ok(states)
}

/// A step of the scheme from a fixed start, as a function of its length.
struct Run<'a, S, M> {
    sys: &'a S,
    scheme: &'a M,
    t: f64,
    w: &'a [f64],
    inputs: &'a StepInputs<f64>,
    params: &'a [f64],
    d: &'a [f64],
}

impl<S: System, M: DifferentiableScheme<S>> Run<'_, S, M> {
    fn step(&self, h: f64, w_next: &mut [f64]) -> Result<(), StepError> {
        let Run {
            sys,
            scheme,
            t,
            w,
            inputs,
            params,
            d,
        } = *self;
        scheme.step(
            &StepContext {
                sys,
                u: inputs,
                p: params,
                d,
            },
            t,
            h,
            w,
            w_next,
        )
    }

    /// Indicator `indicator` at the end of a step of length `h` (leaving its state in `w_next`).
    fn indicator(&self, h: f64, indicator: usize, w_next: &mut [f64]) -> Result<f64, StepError> {
        self.step(h, w_next)?;
        let x = self.scheme.continuous_state(w_next);
        Ok(indicators(self.sys, self.t + h, x, self.inputs, self.params, self.d)[indicator])
    }

    /// The length at which `indicator` vanishes, near `guess`; `w_next` holds the state there.
    fn locate(&self, guess: f64, indicator: usize, w_next: &mut [f64]) -> Result<f64, StepError> {
        let (mut h0, mut h1) = (guess, guess * (1.0 - 1e-6));
        let mut z0 = self.indicator(h0, indicator, w_next)?;
        let mut z1 = self.indicator(h1, indicator, w_next)?;
        let resolution = 4.0 * f64::EPSILON * (self.t.abs() + guess);
        for _ in 0..MAX_SECANT_ITERATIONS {
            if z1 == 0.0 || z1 == z0 || (h1 - h0).abs() <= resolution {
                break;
            }
            let h2 = h1 - z1 * (h1 - h0) / (z1 - z0);
            (h0, z0) = (h1, z1);
            h1 = h2;
            z1 = self.indicator(h1, indicator, w_next)?;
        }
        Ok(h1)
    }
}
