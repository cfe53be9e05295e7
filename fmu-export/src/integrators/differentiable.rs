//! The scalar-generic view of a one-step method that discrete adjoints and forward
//! sensitivities are built from: the step residual (generic in the step's start time and
//! length too), the consistent start and the outputs.

use crate::scalar::Scalar;
use crate::system::{StepError, StepInputs, System};

use super::scheme::Scheme;

/// A [`Scheme`] whose residual, start and outputs accept any [`Scalar`], so that dual numbers
/// give every Jacobian a linearized step needs; the simulation calls the same methods with
/// `f64`.
///
/// The residual's unknowns are the leading [`residual_len`](Self::residual_len) entries of
/// `w_next` (the rest of `w`, e.g. step-size control data, is carried but not differentiated),
/// and it reads only the leading [`carried_len`](Self::carried_len) entries of `w_prev`.
pub trait DifferentiableScheme<S: System>: Scheme<S> {
    /// Number of residual rows, which is also the number of unknowns `w_next[..residual_len]`;
    /// by default the whole state, as for a method that carries no control data.
    fn residual_len(&self) -> usize {
        self.state_len()
    }

    /// Leading entries of `w_prev` the residual depends on (at most `residual_len`); the
    /// outputs and the restart after an event read no others either, so these entries are all
    /// a communication step passes on (the adjoint extension's discrete state). By default
    /// every unknown, as for a method whose step reads all of its previous state.
    fn carried_len(&self) -> usize {
        self.residual_len()
    }

    /// The residual `F(w_next, w_prev, u, p)` of a step from `t_prev` of length `h`, with the
    /// step's start and length in the scalar type too (located events make `h` depend on the
    /// state, and an earlier event shifts `t_prev`).
    #[allow(clippy::too_many_arguments)]
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
    );

    /// [`residual_at`](Self::residual_at) of a step with a given start `t_prev` and length `h`.
    #[allow(clippy::too_many_arguments)]
    fn residual<T: Scalar>(
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
        let (t_prev, h) = (T::cst(t_prev), T::cst(h));
        self.residual_at(sys, t_prev, h, w_next, w_prev, u, p, d, r)
    }

    /// Writes the consistent discrete state `w` (all [`Scheme::state_len`] entries) for the
    /// continuous state `x` at time `t`.
    #[allow(clippy::too_many_arguments)]
    fn start<T: Scalar>(
        &self,
        sys: &S,
        t: T,
        x: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        w: &mut [T],
    ) -> Result<(), StepError>;

    /// Writes the outputs `y` at the discrete state `w`.
    #[allow(clippy::too_many_arguments)]
    fn outputs<T: Scalar>(&self, sys: &S, t: T, w: &[T], u: &[T], p: &[T], d: &[f64], y: &mut [T]);
}
