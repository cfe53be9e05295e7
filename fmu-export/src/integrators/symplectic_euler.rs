//! Symplectic (semi-implicit) Euler for mechanics, the integrator of Rodríguez et al. (2022).
//!
//! **Discrete state** `w = x = [q (n), v (n)]`.
//!
//! **Residual** of a step from `t_prev` of length `h`:
//!
//! ```text
//! r_q = q - q_prev - h v
//! r_v = v - v_prev - h a(t_prev, q_prev, v_prev, u(t_prev))
//! ```
//!
//! where `a` solves the augmented index-1 system `[M C_q^T; C_q 0] [a; lambda] = [Q; gamma]`.
//! The residual is linear in `w_next` with a unit triangular Jacobian, so the forward step is
//! its exact root computed directly (velocity first, then position). Constraints are imposed
//! at acceleration level only: positions and velocities drift off `C = 0` by `O(h)` per unit
//! time, which the method accepts in exchange for being explicit and symplectic.
//! Outputs use consistent accelerations at the current `(q, v)`.

use crate::linear::Singular;
use crate::mechanical_system::MechanicalSystem;
use crate::mechanics::{MechArgs, MechanicalModel};
use crate::ode::Args;
use crate::scalar::Scalar;
use crate::small::Small;
use crate::system::{StepError, StepInputs, System};

use super::differentiable::DifferentiableScheme;
use super::finite::require_finite;
use super::inputs::inputs_at;
use super::scheme::{Scheme, StepContext};

/// Symplectic Euler for `n` coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct SymplecticEuler {
    dofs: usize,
    max_step: f64,
}

impl SymplecticEuler {
    /// The method for `dofs` coordinates with steps `<= max_step`.
    pub fn new(dofs: usize, max_step: f64) -> Self {
        assert!(
            max_step > 0.0,
            "symplectic Euler max_step must be positive, got {max_step}"
        );
        SymplecticEuler { dofs, max_step }
    }

    /// Entries of the discrete state `w`.
    pub fn state_len(&self) -> usize {
        2 * self.dofs
    }

    /// Consistent accelerations at `(t, w)` with the step's inputs evaluated at `t`.
    fn acceleration<M: MechanicalModel, T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        w: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
    ) -> Result<Small<T>, Singular> {
        let u_t = inputs_at(u, t);
        let (q, v) = sys.split(w);
        let args = MechArgs {
            t,
            q,
            v,
            u: &u_t,
            p,
            d,
        };
        sys.accelerations(&args).map(|(a, _)| a)
    }
}

impl<M: MechanicalModel> Scheme<MechanicalSystem<M>> for SymplecticEuler {
    fn state_len(&self) -> usize {
        SymplecticEuler::state_len(self)
    }

    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64] {
        w
    }

    /// The residual's exact root: velocity first, then position.
    fn step(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        let n = self.dofs;
        let a = self
            .acceleration(cx.sys, t, w, cx.u, cx.p, cx.d)
            .map_err(|_| StepError::Singular { t })?;
        for i in 0..n {
            w_next[n + i] = w[n + i] + h * a[i];
            w_next[i] = w[i] + h * w_next[n + i];
        }
        require_finite(t + h, w_next)
    }

    fn max_step(&self) -> f64 {
        self.max_step
    }
}

impl<M: MechanicalModel> DifferentiableScheme<MechanicalSystem<M>> for SymplecticEuler {
    fn residual_at<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t_prev: T,
        h: T,
        w_next: &[T],
        w_prev: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let n = self.dofs;
        let acceleration = self
            .acceleration(sys, t_prev, w_prev, u, p, d)
            .unwrap_or_else(|_| Small::from_elem(T::cst(f64::NAN), n));
        for i in 0..n {
            r[i] = w_next[i] - w_prev[i] - h * w_next[n + i];
            r[n + i] = w_next[n + i] - w_prev[n + i] - h * acceleration[i];
        }
    }

    /// The discrete state is the continuous state.
    fn start<T: Scalar>(
        &self,
        _sys: &MechanicalSystem<M>,
        t: T,
        x: &[T],
        _u: &StepInputs<T>,
        _p: &[T],
        _d: &[f64],
        w: &mut [T],
    ) -> Result<(), StepError> {
        require_finite(t.real(), x)?;
        w.copy_from_slice(x);
        Ok(())
    }

    fn outputs<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        w: &[T],
        u: &[T],
        p: &[T],
        d: &[f64],
        y: &mut [T],
    ) {
        sys.outputs(&Args { t, x: w, u, p, d }, y);
    }
}
