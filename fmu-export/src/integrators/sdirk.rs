//! Alexander's two-stage SDIRK method (L-stable, stiffly accurate, order 2) with an embedded
//! first-order error estimate and step-size control, for stiff first-order systems.
//!
//! Butcher tableau, `g = 1 - 1/sqrt(2)`:
//!
//! ```text
//!   g | g      0
//!   1 | 1 - g  g
//!   --+---------
//!     | 1 - g  g
//! ```
//!
//! **Discrete state** `w = [x (N), k1 (N), k2 (N), h_next (1)]`: the continuous state, the two
//! stage derivatives of the last step and the step size the controller proposes next. The
//! stiffly accurate last stage gives `k2 = f(t, x)`, the Newton guess for the next `k1`.
//!
//! **Residual** of a step from `t` of length `h` (unknowns `w_next[..3N]`; `w_prev` enters
//! only through `x_prev`):
//!
//! ```text
//! r1 = k1 - f(t + g h, x_prev + h g k1,                 u(t + g h))
//! r2 = k2 - f(t + h,   x_prev + h (1-g) k1 + h g k2,    u(t + h))
//! r3 = x_next - x_prev - h ((1-g) k1 + g k2)
//! ```
//!
//! The forward step solves the stages one after the other (the system is block
//! lower-triangular). The error estimate is the difference to the first-order solution
//! `x + h k1`, filtered by `(I - h g J)^{-1}` so that it stays small on stiff components the
//! method damps correctly. `h_next` is control data, not part of the residual: a discrete
//! adjoint treats the accepted step sizes as fixed.

use std::f64::consts::FRAC_1_SQRT_2;

use crate::declaration::{Declaration, Method};
use crate::ode::Args;
use crate::scalar::{lift, Dual64, Scalar};
use crate::system::{StepError, StepInputs, System};

use super::driver::SchemeIntegrator;
use super::newton::Newton;
use super::scheme::{lift_inputs, Scheme};

/// The diagonal coefficient `g = 1 - 1/sqrt(2)`.
pub const GAMMA: f64 = 1.0 - FRAC_1_SQRT_2;

/// Step-size controller: safety factor and bounds of the change per step.
const SAFETY: f64 = 0.9;
const MAX_GROWTH: f64 = 5.0;
const MAX_SHRINK: f64 = 0.2;
/// Step reduction after a failed Newton iteration.
const FAILURE_SHRINK: f64 = 0.25;
/// Smallest admissible step, relative to `max(1, |t|)`.
const MIN_STEP: f64 = 64.0 * f64::EPSILON;

/// The SDIRK method with its tolerances, for a system of `N` states.
#[derive(Clone, Debug, PartialEq)]
pub struct SdirkScheme {
    states: usize,
    rtol: f64,
    atol: f64,
    max_step: f64,
    newton: Newton,
}

impl SdirkScheme {
    /// The method for `states` states with local-error tolerances `rtol`, `atol` and steps no
    /// longer than `max_step`.
    pub fn new(states: usize, rtol: f64, atol: f64, max_step: f64) -> Self {
        assert!(
            rtol >= 0.0 && atol >= 0.0 && rtol + atol > 0.0,
            "SDIRK tolerances must be positive"
        );
        assert!(max_step > 0.0, "SDIRK max_step must be positive, got {max_step}");
        // Newton stops when its last update moves a stage by 1e-4 of the error tolerance.
        let newton = Newton { tolerance: 1e-4, max_iterations: 10 };
        SdirkScheme { states, rtol, atol, max_step, newton }
    }

    /// The method a declaration asks for (panics, naming the model, if it is not SDIRK).
    pub fn from_declaration(declaration: &Declaration) -> Self {
        match declaration.cosimulation.method {
            Method::Sdirk { rtol, atol } => Self::new(
                declaration.states.len(),
                rtol,
                atol,
                declaration.cosimulation.max_step,
            ),
            other => panic!(
                "model `{}`: first-order models are integrated by SDIRK, but the declaration asks for {other:?}",
                declaration.model_name
            ),
        }
    }

    /// Number of continuous states `N`.
    pub fn states(&self) -> usize {
        self.states
    }

    /// Index of `h_next` in the discrete state.
    fn step_index(&self) -> usize {
        3 * self.states
    }

    /// Entries of the discrete state `w`.
    pub fn state_len(&self) -> usize {
        3 * self.states + 1
    }

    /// The residual `F(w_next, w_prev, u, p)` of one step from `t_prev` of length `h`
    /// (`3N` entries, layout in the module documentation).
    #[allow(clippy::too_many_arguments)]
    pub fn residual<S: System, T: Scalar>(
        &self,
        sys: &S,
        t_prev: f64,
        h: f64,
        w_next: &[T],
        w_prev: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let n = self.states;
        let (x_next, k1, k2) = (&w_next[..n], &w_next[n..2 * n], &w_next[2 * n..3 * n]);
        let x_prev = &w_prev[..n];
        self.stage_residual(sys, t_prev, h, x_prev, None, k1, u, p, d, &mut r[..n]);
        self.stage_residual(sys, t_prev, h, x_prev, Some(k1), k2, u, p, d, &mut r[n..2 * n]);
        let (b1, b2) = (T::cst(h * (1.0 - GAMMA)), T::cst(h * GAMMA));
        for i in 0..n {
            r[2 * n + i] = x_next[i] - x_prev[i] - b1 * k1[i] - b2 * k2[i];
        }
    }

    /// The residual of one stage: the first when `first` is `None`, else the second, with
    /// `first` the first stage's derivative.
    #[allow(clippy::too_many_arguments)]
    fn stage_residual<S: System, T: Scalar>(
        &self,
        sys: &S,
        t_prev: f64,
        h: f64,
        x_prev: &[T],
        first: Option<&[T]>,
        k: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let c = if first.is_some() { 1.0 } else { GAMMA };
        let t = T::cst(t_prev + c * h);
        let diagonal = T::cst(h * GAMMA);
        let mut x: Vec<T> = x_prev.iter().zip(k).map(|(&xi, &ki)| xi + diagonal * ki).collect();
        if let Some(k1) = first {
            let a21 = T::cst(h * (1.0 - GAMMA));
            x.iter_mut().zip(k1).for_each(|(xi, &k1i)| *xi += a21 * k1i);
        }
        let mut u_t = vec![T::cst(0.0); u.len()];
        u.eval(t, &mut u_t);
        sys.derivatives(&Args { t, x: &x, u: &u_t, p, d }, r);
        r.iter_mut().zip(k).for_each(|(ri, &ki)| *ri = ki - *ri);
    }

    /// Takes a step of length `h` and returns the weighted RMS norm of its error estimate.
    #[allow(clippy::too_many_arguments)]
    fn attempt<S: System>(
        &self,
        sys: &S,
        t: f64,
        h: f64,
        w: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        let n = self.states;
        let x_prev = &w[..n];
        let scale: Vec<f64> =
            x_prev.iter().map(|x| (self.atol + self.rtol * x.abs()) / (GAMMA * h)).collect();
        let (x_dual, u_dual, p_dual) = (lift::<Dual64>(x_prev), lift_inputs(u), lift::<Dual64>(p));
        let mut k1 = w[2 * n..3 * n].to_vec();
        self.newton.solve(t, &mut k1, &scale, |k, r| {
            self.stage_residual(sys, t, h, &x_dual, None, k, &u_dual, &p_dual, d, r)
        })?;
        let k1_dual = lift::<Dual64>(&k1);
        let mut k2 = k1.clone();
        let stage_matrix = self.newton.solve(t, &mut k2, &scale, |k, r| {
            self.stage_residual(sys, t, h, &x_dual, Some(&k1_dual), k, &u_dual, &p_dual, d, r)
        })?;
        let (x_next, rest) = w_next.split_at_mut(n);
        for i in 0..n {
            x_next[i] = x_prev[i] + h * ((1.0 - GAMMA) * k1[i] + GAMMA * k2[i]);
        }
        if !x_next.iter().all(|v| v.is_finite()) {
            return Err(StepError::NonFinite { t: t + h });
        }
        rest[..n].copy_from_slice(&k1);
        rest[n..2 * n].copy_from_slice(&k2);
        rest[2 * n] = w[self.step_index()];
        // The stage-2 Newton matrix is I - h g J: the filter comes for free.
        let mut error: Vec<f64> = k1.iter().zip(&k2).map(|(a, b)| h * GAMMA * (b - a)).collect();
        stage_matrix.solve(&mut error);
        Ok(self.error_norm(&error, x_prev, x_next))
    }

    /// Weighted RMS norm with weights `atol + rtol * max(|x_prev|, |x_next|)`.
    fn error_norm(&self, error: &[f64], x_prev: &[f64], x_next: &[f64]) -> f64 {
        if error.is_empty() {
            return 0.0;
        }
        let sum: f64 = error
            .iter()
            .zip(x_prev.iter().zip(x_next))
            .map(|(e, (a, b))| (e / (self.atol + self.rtol * a.abs().max(b.abs()))).powi(2))
            .sum();
        (sum / error.len() as f64).sqrt()
    }
}

/// The step-size factor for a step whose error norm is `error` (order-2 estimate).
fn growth(error: f64) -> f64 {
    if error == 0.0 {
        MAX_GROWTH
    } else if error.is_finite() {
        (SAFETY / error.sqrt()).clamp(MAX_SHRINK, MAX_GROWTH)
    } else {
        MAX_SHRINK
    }
}

impl<S: System> Scheme<S> for SdirkScheme {
    fn state_len(&self) -> usize {
        SdirkScheme::state_len(self)
    }

    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64] {
        &w[..self.states]
    }

    fn start(
        &self,
        sys: &S,
        t: f64,
        x: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        w: &mut [f64],
    ) -> Result<(), StepError> {
        let n = self.states;
        let mut u_t = vec![0.0; u.len()];
        u.eval(t, &mut u_t);
        let mut f = vec![0.0; n];
        sys.derivatives(&Args { t, x, u: &u_t, p, d }, &mut f);
        if !f.iter().chain(x).all(|v| v.is_finite()) {
            return Err(StepError::NonFinite { t });
        }
        w[..n].copy_from_slice(x);
        w[n..2 * n].copy_from_slice(&f);
        w[2 * n..3 * n].copy_from_slice(&f);
        w[3 * n] = self.max_step;
        Ok(())
    }

    fn step(
        &self,
        sys: &S,
        t: f64,
        h: f64,
        w: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        self.attempt(sys, t, h, w, u, p, d, w_next).map(|_| ())
    }

    fn max_step(&self) -> f64 {
        self.max_step
    }

    /// One accepted error-controlled step: starts from the proposal `h_next` in `w` (or
    /// `max_step` if it is not positive), never exceeds `max_step` (but for a relative 1e-9
    /// to land on `stop`), splits the rest of the interval evenly rather than leaving a
    /// sliver, and stores the next proposal in `w_next`.
    fn advance(
        &self,
        sys: &S,
        t: f64,
        stop: f64,
        w: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        let proposal = w[self.step_index()];
        let mut h = if proposal > 0.0 { proposal.min(self.max_step) } else { self.max_step };
        let min_step = MIN_STEP * t.abs().max(1.0);
        let mut rejected = false;
        loop {
            let remaining = stop - t;
            // The relative slack absorbs rounding of the communication grid.
            let (h_try, t_next) = if remaining <= h * (1.0 + 1e-9) {
                (remaining, stop)
            } else if remaining < 2.0 * h {
                (0.5 * remaining, t + 0.5 * remaining)
            } else {
                (h, t + h)
            };
            match self.attempt(sys, t, h_try, w, u, p, d, w_next) {
                Ok(error) if error <= 1.0 => {
                    let factor = if rejected { growth(error).min(1.0) } else { growth(error) };
                    let mut h_next = (h_try * factor).min(self.max_step);
                    if h_try < h {
                        // Shortened to land on `stop`: keep the controller's proposal.
                        h_next = h_next.max(h);
                    }
                    w_next[self.step_index()] = h_next;
                    return Ok(t_next);
                }
                Ok(error) => {
                    h = h_try * growth(error).min(1.0);
                    if h < min_step {
                        return Err(StepError::StepTooSmall { t, h });
                    }
                }
                Err(failure) => {
                    h = h_try * FAILURE_SHRINK;
                    if h < min_step {
                        return Err(failure);
                    }
                }
            }
            rejected = true;
        }
    }

    fn outputs(&self, sys: &S, t: f64, w: &[f64], u: &[f64], p: &[f64], d: &[f64], y: &mut [f64]) {
        sys.outputs(&Args { t, x: &w[..self.states], u, p, d }, y);
    }
}

/// SDIRK for any first-order [`System`]; its state is `[w, s]` with `w` as in the module
/// documentation and one event reference sign per indicator.
pub type Sdirk = SchemeIntegrator<SdirkScheme>;

impl Sdirk {
    /// An integrator configured from the model's declaration.
    pub fn new(declaration: &Declaration) -> Self {
        let scheme = SdirkScheme::from_declaration(declaration);
        let len = scheme.state_len() + declaration.event_indicators;
        SchemeIntegrator::with_state_len(scheme, len)
    }
}
