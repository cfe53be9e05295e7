//! State events: sign tracking of the event indicators and location of a crossing inside a step.
//!
//! Each indicator has a reference sign (+1, -1 or 0) stored in the integrator state. A step
//! crosses indicator `i` when it ends on the other side of (or on) zero: reference `+1` and
//! `z <= 0` is [`Crossing::Falling`], reference `-1` and `z >= 0` is [`Crossing::Rising`]; a
//! zero reference never crosses and is armed by the first non-zero value.
//!
//! Right after a reset an indicator usually sits within rounding of zero (a bouncing ball at
//! height ~0 moving up). Its reference is then the sign of its time derivative, the side it is
//! moving to, so that leaving zero is not taken for a new crossing.

use crate::ode::{Args, Crossing};
use crate::scalar::{lift, Dual64};
use crate::system::{StepError, StepInputs, System};

use super::inputs::inputs_at;
use super::scheme::{Scheme, StepContext};

/// Width (in time) to which a crossing is bracketed, relative to `max(1, |t|)`.
const TIME_TOLERANCE: f64 = 1e-12;

/// After a reset, an indicator that would reach zero within this many location tolerances
/// counts as sitting on zero.
const BAND: f64 = 1e3;

/// Iteration cap of the location; the bisection safeguard halves the bracket at least every
/// third iteration, so the cap is never reached for brackets wider than `2^-60` of the step.
const MAX_LOCATION_ITERATIONS: usize = 200;

/// The absolute time tolerance of event location near time `t`.
pub fn time_tolerance(t: f64) -> f64 {
    TIME_TOLERANCE * t.abs().max(1.0)
}

/// The event indicators at time `t` and continuous state `x`.
pub fn indicators<S: System>(
    sys: &S,
    t: f64,
    x: &[f64],
    u: &StepInputs<f64>,
    p: &[f64],
    d: &[f64],
) -> Vec<f64> {
    let u_t = inputs_at(u, t);
    let mut z = vec![0.0; sys.declaration().event_indicators];
    sys.event_indicators(
        &Args {
            t,
            x,
            u: &u_t,
            p,
            d,
        },
        &mut z,
    );
    z
}

/// The time derivatives `dz/dt = z_t + z_x f + z_u u'` of the indicators along the solution.
pub fn indicator_rates<S: System>(
    sys: &S,
    t: f64,
    x: &[f64],
    u: &StepInputs<f64>,
    p: &[f64],
    d: &[f64],
) -> Vec<f64> {
    let u_t = inputs_at(u, t);
    let mut f = vec![0.0; x.len()];
    sys.derivatives(
        &Args {
            t,
            x,
            u: &u_t,
            p,
            d,
        },
        &mut f,
    );
    let td = Dual64::new(t, 1.0);
    let xd: Vec<Dual64> = x
        .iter()
        .zip(&f)
        .map(|(&xi, &fi)| Dual64::new(xi, fi))
        .collect();
    let ud = inputs_at(u, td);
    let pd: Vec<Dual64> = lift(p);
    let mut z = vec![Dual64::from(0.0); sys.declaration().event_indicators];
    sys.event_indicators(
        &Args {
            t: td,
            x: &xd,
            u: &ud,
            p: &pd,
            d,
        },
        &mut z,
    );
    z.iter().map(|zi| zi.eps).collect()
}

/// How indicator `i` crossed zero, given its reference sign and its value at a step end.
pub fn crossing(reference: f64, z: f64) -> Crossing {
    if reference > 0.0 && z <= 0.0 {
        Crossing::Falling
    } else if reference < 0.0 && z >= 0.0 {
        Crossing::Rising
    } else {
        Crossing::None
    }
}

/// Whether any indicator crossed zero.
pub fn any_crossing(references: &[f64], z: &[f64]) -> bool {
    references
        .iter()
        .zip(z)
        .any(|(&r, &zi)| crossing(r, zi) != Crossing::None)
}

/// Reference signs at the start of an integration: the sign of `z`, or of `dz/dt` where `z = 0`.
pub fn initial_signs(z: &[f64], rates: &[f64], references: &mut [f64]) {
    for ((r, &zi), &ri) in references.iter_mut().zip(z).zip(rates) {
        *r = if zi != 0.0 {
            zi.signum()
        } else {
            sign_or_zero(ri)
        };
    }
}

/// Reference signs right after a reset at time `t`: indicators within the rounding band of
/// zero take the sign of their rate (the side they move to).
pub fn post_event_signs(t: f64, z: &[f64], rates: &[f64], references: &mut [f64]) {
    let band = BAND * time_tolerance(t);
    for ((r, &zi), &ri) in references.iter_mut().zip(z).zip(rates) {
        *r = if zi.abs() <= ri.abs() * band && ri != 0.0 {
            ri.signum()
        } else {
            sign_or_zero(zi)
        };
    }
}

/// Reference signs after a step that crossed nothing: a non-zero value re-arms a zero reference.
pub fn advance_signs(references: &mut [f64], z: &[f64]) {
    for (r, &zi) in references.iter_mut().zip(z) {
        if zi != 0.0 {
            *r = zi.signum();
        }
    }
}

/// Arms the references that are still zero with the sign of a non-zero value; armed references
/// keep theirs, so values seen past a crossing (a host locating it) do not hide it.
pub fn arm_unset_signs(references: &mut [f64], z: &[f64]) {
    for (r, &zi) in references.iter_mut().zip(z) {
        if *r == 0.0 && zi != 0.0 {
            *r = zi.signum();
        }
    }
}

fn sign_or_zero(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else {
        v.signum()
    }
}

/// A located crossing: the shortened step and the state it reaches.
#[derive(Clone, Debug)]
pub struct Located {
    /// Length of the shortened step from the step start to just past the crossing.
    pub h: f64,
    /// The discrete state at the end of the shortened step.
    pub w: Vec<f64>,
    /// How each indicator crossed.
    pub crossings: Vec<Crossing>,
}

/// A step of the scheme from a fixed start, seen as a function of its length.
pub struct ShortenedStep<'a, S, M> {
    /// The one-step method.
    pub scheme: &'a M,
    /// The system, inputs, parameters and discrete variables.
    pub cx: StepContext<'a, S>,
    /// Start time of the step.
    pub t: f64,
    /// Discrete state at the step start.
    pub w: &'a [f64],
}

impl<S: System, M: Scheme<S>> ShortenedStep<'_, S, M> {
    fn solve(&self, h: f64) -> Result<(Vec<f64>, Vec<f64>), StepError> {
        let mut w = vec![0.0; self.w.len()];
        self.scheme.step(&self.cx, self.t, h, self.w, &mut w)?;
        let x = self.scheme.continuous_state(&w);
        let StepContext { sys, u, p, d } = self.cx;
        let z = indicators(sys, self.t + h, x, u, p, d);
        Ok((w, z))
    }

    /// Locates the first crossing of a step of length `h` that ended at `w_end` with indicators
    /// `z_end`, by the Illinois variant of regula falsi on the step length (bisection as a
    /// safeguard), to a bracket of [`time_tolerance`]. The returned step ends past the crossing.
    pub fn locate(
        &self,
        h: f64,
        w_end: Vec<f64>,
        z_end: Vec<f64>,
        references: &[f64],
    ) -> Result<Located, StepError> {
        let start = self.scheme.continuous_state(self.w);
        let StepContext { sys, u, p, d } = self.cx;
        let z_start = indicators(sys, self.t, start, u, p, d);
        // The start may sit inside the post-reset band on the "wrong" side of zero; regula
        // falsi needs the reference sign there.
        let mut z_lo: Vec<f64> = z_start
            .iter()
            .zip(references)
            .map(|(&z, &r)| {
                if z * r > 0.0 {
                    z
                } else {
                    r * f64::MIN_POSITIVE
                }
            })
            .collect();
        let (mut lo, mut hi, mut w_hi, mut z_hi) = (0.0, h, w_end, z_end);
        let tolerance = time_tolerance(self.t);
        // Illinois: when the same end is replaced twice in a row, halve the value kept at the other.
        let mut replaced_hi_last: Option<bool> = None;
        let mut widths = [f64::INFINITY; 2];
        for _ in 0..MAX_LOCATION_ITERATIONS {
            let width = hi - lo;
            if width <= tolerance {
                break;
            }
            let secant = references
                .iter()
                .enumerate()
                .filter(|&(i, &r)| crossing(r, z_hi[i]) != Crossing::None)
                .map(|(i, _)| lo + width * z_lo[i] / (z_lo[i] - z_hi[i]))
                .fold(hi, f64::min);
            let theta = if width > 0.5 * widths[0] {
                0.5 * (lo + hi)
            } else {
                secant
            };
            let theta = theta.clamp(lo + 0.25 * tolerance, hi - 0.25 * tolerance);
            widths = [widths[1], width];
            let (w, z) = self.solve(theta)?;
            if any_crossing(references, &z) {
                (hi, w_hi, z_hi) = (theta, w, z);
                if replaced_hi_last == Some(true) {
                    z_lo.iter_mut().for_each(|v| *v *= 0.5);
                }
                replaced_hi_last = Some(true);
            } else {
                (lo, z_lo) = (theta, z);
                if replaced_hi_last == Some(false) {
                    z_hi.iter_mut().for_each(|v| *v *= 0.5);
                }
                replaced_hi_last = Some(false);
            }
        }
        let crossings = references
            .iter()
            .zip(&z_hi)
            .map(|(&r, &z)| crossing(r, z))
            .collect();
        Ok(Located {
            h: hi,
            w: w_hi,
            crossings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossings_follow_the_reference_sign() {
        assert_eq!(crossing(1.0, 0.0), Crossing::Falling);
        assert_eq!(crossing(1.0, 1e-300), Crossing::None);
        assert_eq!(crossing(-1.0, 0.0), Crossing::Rising);
        assert_eq!(crossing(0.0, -1.0), Crossing::None);
        let mut references = [0.0, 1.0];
        advance_signs(&mut references, &[-2.0, 3.0]);
        assert_eq!(references, [-1.0, 1.0]);
    }

    #[test]
    fn after_a_reset_an_indicator_at_zero_takes_the_side_it_moves_to() {
        let mut references = [0.0; 3];
        // At rounding level and moving up; clearly negative and moving up; exactly zero, at rest.
        post_event_signs(2.0, &[-1e-14, -0.5, 0.0], &[3.0, 3.0, 0.0], &mut references);
        assert_eq!(references, [1.0, -1.0, 0.0]);
        initial_signs(&[-1e-14, 0.0], &[3.0, -2.0], &mut references[..2]);
        assert_eq!(references[..2], [-1.0, -1.0]);
    }
}
