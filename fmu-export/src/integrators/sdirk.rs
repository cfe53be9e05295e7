//! An ESDIRK method (explicit first stage, singly diagonally implicit Runge-Kutta) with an
//! embedded error estimate and step-size control, for stiff first-order systems: Kennedy &
//! Carpenter's `ESDIRK4(3)6L[2]SA`, six stages, order 4, L-stable and stiffly accurate, with
//! an embedded L-stable third-order solution (tableau in the `tableau` module). The name
//! "SDIRK" is kept for the family in the public types and declarations.
//!
//! **Discrete state** `w = [x (N), k_1 .. k_6 (6N), h_next, e_prev]` (`7N + 2` entries): the
//! continuous state, the six stage derivatives of the last step, the step size the
//! controller proposes next and the error norm of the last accepted step (the controller's
//! memory). The last two are control data: they are not part of the residual (a discrete
//! adjoint treats the accepted step sizes as fixed), but they are part of the state so that a
//! restored state reproduces every later step bit for bit.
//!
//! **Residual** of a step from `t` of length `h`, with unknowns `w_next[..7N]` (`w_prev`
//! enters only through `x_prev`), stage rows first:
//!
//! ```text
//! r_i = k_i - f(t + c_i h, x_prev + h (sum_{j<i} a_ij k_j + a_ii k_i), u(t + c_i h))   i = 1..6
//! r_x = x_next - x_prev - h sum_j b_j k_j
//! ```
//!
//! with `a_11 = 0` and `a_ii = 1/4` otherwise. The system is block lower-triangular: the
//! first stage is explicit and every later stage is solved in turn by simplified Newton with
//! the iteration matrix `I - h/4 J`, `J = df/dx` exact (dual numbers) at the step start and
//! re-linearized at the stage iterate when the iteration contracts slowly. Stages converge to
//! a thousandth of the error weight and at least to `1e-10` relative accuracy (or rounding),
//! so the residual of an accepted step is negligible next to its error.
//!
//! The error estimate is `h sum_j (b_j - b^_j) k_j`, the difference to the embedded
//! solution, in the weighted RMS norm with weights `atol + rtol max(|x_prev|, |x_next|)`.
//! Accepted steps update the step size by a PI controller, rejected ones by an I controller
//! (see `step_control`); a step size below `64 eps max(1, |t|)` is
//! [`StepError::StepTooSmall`].

mod step_control;
mod tableau;

use crate::declaration::{Declaration, Method};
use crate::jacobian::jacobian_into;
use crate::linear::Lu;
use crate::ode::Args;
use crate::scalar::{Dual64, Scalar};
use crate::small::{matrix_zeros, zeros, Small, SmallMatrix, INLINE};
use crate::system::{StepError, StepInputs, System};

use super::differentiable::DifferentiableScheme;
use super::driver::SchemeIntegrator;
use super::finite::require_finite;
use super::inputs::inputs_at;
use super::newton::{scaled, Acceptance, IterationMatrix, Newton, NewtonProblem, Refresh};
use super::scheme::{Scheme, StepContext};
use smallvec::SmallVec;
use tableau::{diagonal, A, B, B_HAT, C, STAGES};

pub use tableau::GAMMA;

/// The stage derivatives of a step, `k_1 .. k_6` one after the other: on the stack for up to
/// [`INLINE`] states, like every other temporary of a step, so that a step allocates nothing.
type Stages = SmallVec<[f64; STAGES * INLINE]>;

/// Stage iterations converge to this fraction of the error weight `atol + rtol |x|` ...
const NEWTON_FRACTION: f64 = 1e-3;
/// ... and at least to this relative accuracy, whatever the tolerances ...
const NEWTON_RELATIVE: f64 = 1e-10;
/// ... unless rounding (relative to the stage state's magnitude) sets a coarser floor.
const ROUNDING: f64 = 1e-12;
/// Smallest admissible step, relative to `max(1, |t|)`.
const MIN_STEP: f64 = 64.0 * f64::EPSILON;

/// Newton's method for a stage: the matrix of the step start (or of an earlier stage) is
/// rebuilt at the stage iterate once, when the iteration contracts by less than half per update.
const STAGE_NEWTON: Newton = Newton {
    max_iterations: 12,
    slow_rate: 0.5,
    refresh: Refresh::Once,
    acceptance: Acceptance::Estimate,
    stall_level: None,
};

/// The ESDIRK method with its tolerances, for a system of `N` states.
#[derive(Clone, Debug, PartialEq)]
pub struct SdirkScheme {
    states: usize,
    rtol: f64,
    atol: f64,
    max_step: f64,
}

impl SdirkScheme {
    /// The method for `states` states with local-error tolerances `rtol`, `atol` and steps no
    /// longer than `max_step`.
    pub fn new(states: usize, rtol: f64, atol: f64, max_step: f64) -> Self {
        assert!(
            rtol >= 0.0 && atol >= 0.0 && rtol + atol > 0.0,
            "SDIRK tolerances must be positive"
        );
        assert!(
            max_step > 0.0,
            "SDIRK max_step must be positive, got {max_step}"
        );
        SdirkScheme {
            states,
            rtol,
            atol,
            max_step,
        }
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

    /// Entries of the discrete state `w`: `7N + 2`.
    pub fn state_len(&self) -> usize {
        self.residual_len() + 2
    }

    /// Entries of the residual, which are also the unknowns `w_next[..7N]`: `7N`.
    pub fn residual_len(&self) -> usize {
        (STAGES + 1) * self.states
    }

    /// Index of `h_next` in the discrete state (`e_prev` follows it).
    fn step_index(&self) -> usize {
        self.residual_len()
    }

    /// The residual `k - f(t_i, Z_i, u(t_i))` of stage `i` with derivative `k`, given the
    /// derivatives of the earlier stages in `previous` (`i N` entries).
    #[allow(clippy::too_many_arguments)]
    fn stage_residual<S: System, T: Scalar>(
        &self,
        sys: &S,
        t_prev: T,
        h: T,
        i: usize,
        x_prev: &[T],
        previous: &[T],
        k: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let t = t_prev + h * T::cst(C[i]);
        let x = stage_state(h, i, x_prev, previous, k);
        let u_t = inputs_at(u, t);
        sys.derivatives(
            &Args {
                t,
                x: &x,
                u: &u_t,
                p,
                d,
            },
            r,
        );
        r.iter_mut().zip(k).for_each(|(ri, &ki)| *ri = ki - *ri);
    }

    /// Takes a step of length `h` from `start`, writes `x_next` and the stages into
    /// `w_next[..7N]` and returns the weighted RMS norm of its error estimate.
    fn attempt<S: System>(
        &self,
        start: &StepStart<S>,
        h: f64,
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        let (n, t, x_prev) = (self.states, start.t, start.x);
        let mut stages: Stages = SmallVec::from_elem(0.0, STAGES * n);
        stages[..n].copy_from_slice(&start.derivative);
        let lu = iteration_matrix(t, h, &start.jacobian, n)?;
        let mut matrix = Some(IterationMatrix { lu, current: false });
        let newton_weight = NEWTON_FRACTION.min(NEWTON_RELATIVE / self.rtol);
        for i in 1..STAGES {
            let (previous, rest) = stages.split_at_mut(i * n);
            let previous: &[f64] = previous;
            let k = &mut rest[..n];
            predict(i, n, previous, k);
            // A matrix rebuilt for an earlier stage may be rebuilt for this one.
            if let Some(matrix) = &mut matrix {
                matrix.current = false;
            }
            let mut equation = StageEquation {
                scheme: self,
                start,
                h,
                stage: i,
                previous,
                newton_weight,
            };
            STAGE_NEWTON.solve(t, k, &mut matrix, &mut equation)?;
        }
        let (x_next, rest) = w_next[..self.residual_len()].split_at_mut(n);
        weighted_sum(x_prev, h, &B, &stages, x_next);
        require_finite(t + h, x_next)?;
        rest.copy_from_slice(&stages);
        let difference: [f64; STAGES] = std::array::from_fn(|j| B[j] - B_HAT[j]);
        let mut error: Small<f64> = zeros(n);
        accumulate(h, &difference, &stages, &mut error);
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

/// The state `Z_i = x_prev + h (sum_{j<i} a_ij k_j + a_ii k)` of stage `i` with derivative
/// `k`, given the earlier stages' derivatives in `previous`.
fn stage_state<T: Scalar>(h: T, i: usize, x_prev: &[T], previous: &[T], k: &[T]) -> Small<T> {
    let mut z: Small<T> = smallvec::smallvec![T::cst(0.0); x_prev.len()];
    weighted_sum(x_prev, h, A[i], previous, &mut z);
    let own = h * T::cst(diagonal(i));
    z.iter_mut().zip(k).for_each(|(zi, &ki)| *zi += own * ki);
    z
}

/// Writes `out = x + h sum_j weights_j k_j`, where `k_j = stages[j N..(j + 1) N]` and only as
/// many stages as there are weights (at most) are used.
fn weighted_sum<T: Scalar>(x: &[T], h: T, weights: &[f64], stages: &[T], out: &mut [T]) {
    out.copy_from_slice(x);
    accumulate(h, weights, stages, out);
}

/// Adds `h sum_j weights_j k_j` to `out` (stages as in [`weighted_sum`]).
fn accumulate<T: Scalar>(h: T, weights: &[f64], stages: &[T], out: &mut [T]) {
    let n = out.len();
    for (j, &weight) in weights.iter().enumerate() {
        let factor = h * T::cst(weight);
        out.iter_mut()
            .zip(&stages[j * n..(j + 1) * n])
            .for_each(|(o, &k)| *o += factor * k);
    }
}

/// The Newton guess for the derivative of stage `i >= 1`. Stage derivatives sample `x'` at
/// `t + c_j h`: the guess is the line through the two latest stages at `c_i` (the first
/// stage's derivative for the second stage).
fn predict(i: usize, n: usize, previous: &[f64], k: &mut [f64]) {
    let last = &previous[(i - 1) * n..i * n];
    if i == 1 {
        k.copy_from_slice(last);
        return;
    }
    let before = &previous[(i - 2) * n..(i - 1) * n];
    let slope = (C[i] - C[i - 1]) / (C[i - 1] - C[i - 2]);
    for ((ki, &l), &b) in k.iter_mut().zip(last).zip(before) {
        *ki = l + slope * (l - b);
    }
}

/// The factored stage iteration matrix `I - h GAMMA J` for the `n x n` Jacobian `J`.
fn iteration_matrix(t: f64, h: f64, jacobian: &[f64], n: usize) -> Result<Lu<f64>, StepError> {
    let mut matrix = SmallMatrix::from_slice(jacobian);
    to_iteration_matrix(h, n, &mut matrix);
    Lu::factor(matrix, n).map_err(|_| StepError::Singular { t })
}

/// Turns the `n x n` Jacobian `J` in `matrix` into the stage iteration matrix `I - h GAMMA J`.
fn to_iteration_matrix(h: f64, n: usize, matrix: &mut [f64]) {
    matrix.iter_mut().for_each(|m| *m *= -h * GAMMA);
    (0..n).for_each(|i| matrix[i * n + i] += 1.0);
}

/// What every attempt of a step from `(t, x)` shares: the problem data and the derivative and
/// Jacobian of `f` at the step start (on the stack for small models, as the stages are).
struct StepStart<'a, S> {
    cx: StepContext<'a, S>,
    t: f64,
    x: &'a [f64],
    p_dual: Small<Dual64>,
    derivative: Small<f64>,
    jacobian: SmallMatrix<f64>,
}

impl<'a, S: System> StepStart<'a, S> {
    fn new(cx: &StepContext<'a, S>, t: f64, x: &'a [f64]) -> Result<Self, StepError> {
        let n = x.len();
        let mut start = StepStart {
            cx: *cx,
            t,
            x,
            p_dual: cx.p.iter().map(|&v| Dual64::from(v)).collect(),
            derivative: Small::new(),
            jacobian: SmallMatrix::new(),
        };
        let (mut jacobian, mut derivative) = (matrix_zeros(n * n), zeros(n));
        start.linearize(t, x, &mut jacobian, &mut derivative)?;
        (start.jacobian, start.derivative) = (jacobian, derivative);
        Ok(start)
    }

    /// Writes the Jacobian `df/dx` (`n x n`) and the value `f` (`n`) at `(t, x)`.
    fn linearize(
        &self,
        t: f64,
        x: &[f64],
        jac: &mut [f64],
        f: &mut [f64],
    ) -> Result<(), StepError> {
        let cx = &self.cx;
        jacobian_into(
            x,
            |x, out| {
                let t = Dual64::from(t);
                let u_t = inputs_at(cx.u, t);
                cx.sys.derivatives(
                    &Args {
                        t,
                        x,
                        u: &u_t,
                        p: &self.p_dual,
                        d: cx.d,
                    },
                    out,
                );
            },
            jac,
            f,
        );
        require_finite(self.t, f)?;
        require_finite(self.t, jac)
    }
}

/// The equation of stage `stage` of an attempt of length `h`, in the stage derivative `k`.
struct StageEquation<'a, S> {
    scheme: &'a SdirkScheme,
    start: &'a StepStart<'a, S>,
    h: f64,
    stage: usize,
    /// The derivatives of the earlier stages.
    previous: &'a [f64],
    /// The fraction of the error weight the stage converges to.
    newton_weight: f64,
}

impl<S: System> NewtonProblem for StageEquation<'_, S> {
    fn residual(&mut self, k: &[f64], r: &mut [f64]) {
        let (start, h, i, previous) = (self.start, self.h, self.stage, self.previous);
        let StepContext { sys, u, p, d } = start.cx;
        self.scheme
            .stage_residual(sys, start.t, h, i, start.x, previous, k, u, p, d, r);
    }

    /// The Jacobian goes straight into `matrix`; `r` holds `f` on the way, which is not the
    /// residual (left to [`NewtonProblem::residual`]).
    fn linearize(
        &mut self,
        k: &[f64],
        matrix: &mut [f64],
        r: &mut [f64],
    ) -> Result<bool, StepError> {
        let (start, h, i) = (self.start, self.h, self.stage);
        let t_i = start.t + C[i] * h;
        let z = stage_state(h, i, start.x, self.previous, k);
        start.linearize(t_i, &z, matrix, r)?;
        to_iteration_matrix(h, k.len(), matrix);
        Ok(false)
    }

    fn size(&self, update: &[f64], k: &[f64]) -> f64 {
        let (scheme, h) = (self.scheme, self.h);
        let scaled = update
            .iter()
            .zip(k)
            .zip(self.start.x)
            .map(|((&dk, &ki), &xi)| {
                let weight = self.newton_weight * (scheme.atol + scheme.rtol * xi.abs());
                let floor = ROUNDING * (xi.abs() + h * ki.abs());
                scaled(h * dk, weight.max(floor))
            });
        scaled.fold(0.0, f64::max)
    }
}

impl<S: System> Scheme<S> for SdirkScheme {
    fn state_len(&self) -> usize {
        SdirkScheme::state_len(self)
    }

    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64] {
        &w[..self.states]
    }

    /// One step of exactly `h`; the control data are carried over unchanged.
    fn step(
        &self,
        cx: &StepContext<S>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        let start = StepStart::new(cx, t, &w[..self.states])?;
        self.attempt(&start, h, w_next)?;
        let control = self.step_index();
        w_next[control..].copy_from_slice(&w[control..]);
        Ok(())
    }

    fn max_step(&self) -> f64 {
        self.max_step
    }

    /// One accepted error-controlled step: starts from the proposal `h_next` in `w` (or
    /// `max_step` if it is not positive), never exceeds `max_step` (but for a relative 1e-9
    /// to land on `stop`), splits the rest of the interval evenly rather than leaving a
    /// sliver, and stores the next proposal and the error memory in `w_next`.
    fn advance(
        &self,
        cx: &StepContext<S>,
        t: f64,
        stop: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        let control = self.step_index();
        let (proposal, previous_error) = (w[control], w[control + 1]);
        let mut h = if proposal > 0.0 {
            proposal.min(self.max_step)
        } else {
            self.max_step
        };
        let min_step = MIN_STEP * t.abs().max(1.0);
        let start = StepStart::new(cx, t, &w[..self.states])?;
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
            match self.attempt(&start, h_try, w_next) {
                Ok(error) if error <= 1.0 => {
                    let mut factor = step_control::after_acceptance(error, previous_error);
                    if rejected {
                        factor = factor.min(1.0);
                    }
                    let mut h_next = (h_try * factor).min(self.max_step);
                    let mut memory = step_control::remembered(error);
                    if h_try < h {
                        // Shortened to land on `stop`: keep the controller's proposal and
                        // history, which this step says little about.
                        h_next = h_next.max(h);
                        memory = previous_error;
                    }
                    w_next[control] = h_next;
                    w_next[control + 1] = memory;
                    return Ok(t_next);
                }
                Ok(error) => {
                    h = h_try * step_control::after_rejection(error);
                    if h < min_step {
                        return Err(StepError::StepTooSmall { t, h });
                    }
                }
                Err(failure) => {
                    h = h_try * step_control::FAILURE_SHRINK;
                    if h < min_step {
                        return Err(failure);
                    }
                }
            }
            rejected = true;
        }
    }
}

impl<S: System> DifferentiableScheme<S> for SdirkScheme {
    fn residual_len(&self) -> usize {
        SdirkScheme::residual_len(self)
    }

    /// Only `x_prev` enters a step.
    fn carried_len(&self) -> usize {
        self.states
    }

    fn residual_at<T: Scalar>(
        &self,
        sys: &S,
        t_prev: T,
        h: T,
        w_next: &[T],
        w_prev: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let n = self.states;
        let x_prev = &w_prev[..n];
        let (x_next, stages) = w_next[..self.residual_len()].split_at(n);
        let (stage_rows, update_rows) = r[..self.residual_len()].split_at_mut(STAGES * n);
        for i in 0..STAGES {
            let (previous, rest) = stages.split_at(i * n);
            let ri = &mut stage_rows[i * n..(i + 1) * n];
            self.stage_residual(sys, t_prev, h, i, x_prev, previous, &rest[..n], u, p, d, ri);
        }
        weighted_sum(x_prev, h, &B, stages, update_rows);
        update_rows
            .iter_mut()
            .zip(x_next)
            .for_each(|(ri, &xi)| *ri = xi - *ri);
    }

    /// Every stage derivative is `f(t, x)` (the residual of a step of length zero vanishes);
    /// the controller starts from `max_step` with no error history.
    fn start<T: Scalar>(
        &self,
        sys: &S,
        t: T,
        x: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        w: &mut [T],
    ) -> Result<(), StepError> {
        let n = self.states;
        let u_t = inputs_at(u, t);
        let mut f = vec![T::cst(0.0); n];
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
        require_finite(t.real(), &f)?;
        require_finite(t.real(), x)?;
        w[..n].copy_from_slice(x);
        for i in 0..STAGES {
            w[n + i * n..n + (i + 1) * n].copy_from_slice(&f);
        }
        w[self.step_index()] = T::cst(self.max_step);
        w[self.step_index() + 1] = T::cst(1.0);
        Ok(())
    }

    fn outputs<T: Scalar>(&self, sys: &S, t: T, w: &[T], u: &[T], p: &[T], d: &[f64], y: &mut [T]) {
        sys.outputs(
            &Args {
                t,
                x: &w[..self.states],
                u,
                p,
                d,
            },
            y,
        );
    }
}

/// The ESDIRK integrator for any first-order [`System`]; its state is `[w, s]` with `w` as in
/// the module documentation and one event reference sign per indicator.
pub type Sdirk = SchemeIntegrator<SdirkScheme>;

impl Sdirk {
    /// An integrator configured from the model's declaration.
    pub fn new(declaration: &Declaration) -> Self {
        let scheme = SdirkScheme::from_declaration(declaration);
        let len = scheme.state_len() + declaration.event_indicators;
        SchemeIntegrator::with_state_len(scheme, len)
    }
}
