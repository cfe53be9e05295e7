//! HHT-alpha for constrained mechanics `M a + C_q^T lambda = Q`, `C(q, t) = 0` (index 3), in
//! the residual form of Lauß et al. (2018), eqs. (12)-(15).
//!
//! **Discrete state** `w = [q (n), v (n), a (n), lambda (m)]`; the continuous state is
//! `x = [q; v]`, and `a`, `lambda` are the method's own (algorithmic) accelerations and
//! multipliers, which the outputs use.
//!
//! **Residual** of a step from `t_prev` to `t = t_prev + h` (unknowns: all of `w_next`):
//!
//! ```text
//! f1 = q - q_prev - h v_prev - h^2/2 ((1 - 2 beta) a_prev + 2 beta a)
//! f2 = v - v_prev - h ((1 - gamma) a_prev + gamma a)
//! f3 = (M a)/(1 + alpha) + (C_q^T lambda - Q) - alpha/(1 + alpha) (C_q^T lambda - Q)_prev
//! f4 = C(q, t) / (beta h^2)
//! ```
//!
//! with `beta = (1 - alpha)^2 / 4`, `gamma = (1 - 2 alpha) / 2`, `alpha` in `[-1/3, 0]`.
//! Unmarked terms are evaluated at `(t, w_next)` with the inputs `u(t)`; `(.)_prev` at
//! `(t_prev, w_prev)` with the inputs of the current step evaluated at `t_prev`. The
//! constraint row is scaled by `1/(beta h^2)` for conditioning. The start is consistent:
//! `a`, `lambda` solve the augmented index-1 system, which stays regular for singular `M`.

use crate::mechanical_system::MechanicalSystem;
use crate::mechanics::{MechArgs, MechanicalModel};
use crate::scalar::{Dual64, Scalar};
use crate::small::{matrix_zeros, zeros, Small, SmallMatrix};
use crate::system::{StepError, StepInputs};

use super::differentiable::{require_finite, DifferentiableScheme};
use super::newton::Newton;
use super::scheme::Scheme;

/// HHT-alpha for `n` coordinates and `m` constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct Hht {
    dofs: usize,
    constraints: usize,
    alpha: f64,
    beta: f64,
    gamma: f64,
    max_step: f64,
    newton: Newton,
}

impl Hht {
    /// The method with damping parameter `alpha` in `[-1/3, 0]` and step `<= max_step`.
    pub fn new(alpha: f64, dofs: usize, constraints: usize, max_step: f64) -> Self {
        assert!(
            (-1.0 / 3.0..=0.0).contains(&alpha),
            "HHT alpha must lie in [-1/3, 0], got {alpha}"
        );
        assert!(max_step > 0.0, "HHT max_step must be positive, got {max_step}");
        Hht {
            dofs,
            constraints,
            alpha,
            beta: (1.0 - alpha).powi(2) / 4.0,
            gamma: (1.0 - 2.0 * alpha) / 2.0,
            max_step,
            // Updates at 1e-10 of the natural scale of each block (rounding level otherwise).
            newton: Newton { tolerance: 1e-10, max_iterations: 20 },
        }
    }

    /// The damping parameter `alpha`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The Newmark parameter `beta = (1 - alpha)^2 / 4`.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The Newmark parameter `gamma = (1 - 2 alpha) / 2`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// Splits `w` into `(q, v, a, lambda)`.
    fn split<'w, T>(&self, w: &'w [T]) -> (&'w [T], &'w [T], &'w [T], &'w [T]) {
        let n = self.dofs;
        (&w[..n], &w[n..2 * n], &w[2 * n..3 * n], &w[3 * n..3 * n + self.constraints])
    }

    /// Entries of the discrete state `w`.
    pub fn state_len(&self) -> usize {
        3 * self.dofs + self.constraints
    }

    /// The residual `F(w_next, w_prev, u, p)` of one step from `t_prev` of length `h`
    /// (`3n + m` entries `[f1, f2, f3, f4]`, see the module documentation).
    #[allow(clippy::too_many_arguments)]
    pub fn residual<M: MechanicalModel, T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
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
        DifferentiableScheme::residual_at(self, sys, t_prev, h, w_next, w_prev, u, p, d, r)
    }

    /// Writes `C_q^T lambda - Q` at the point `args` into `out` (`n` entries).
    fn imbalance<M: MechanicalModel, T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        args: &MechArgs<T>,
        lambda: &[T],
        out: &mut [T],
    ) {
        let n = self.dofs;
        sys.forces_into(args, out);
        out.iter_mut().for_each(|o| *o = -*o);
        // Skipped without constraints: even an empty stack matrix costs a copy when it moves.
        if self.constraints > 0 {
            let mut jacobian: SmallMatrix<T> = matrix_zeros(self.constraints * n);
            sys.constraint_jacobian_into(args.t, args.q, args.p, &mut jacobian);
            for (row, &l) in jacobian.chunks(n.max(1)).zip(lambda) {
                out.iter_mut().zip(row).for_each(|(o, &c)| *o += c * l);
            }
        }
    }

    /// Writes `C_q^T lambda - Q` at time `t`, with the step's inputs evaluated there, into
    /// `out`.
    #[allow(clippy::too_many_arguments)]
    fn imbalance_at<M: MechanicalModel, T: Scalar + From<U>, U: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        q: &[T],
        v: &[T],
        lambda: &[T],
        u: &StepInputs<U>,
        p: &[T],
        d: &[f64],
        out: &mut [T],
    ) {
        let mut u_t: Small<T> = zeros(u.len());
        u.eval(t, &mut u_t);
        self.imbalance(sys, &MechArgs { t, q, v, u: &u_t, p, d }, lambda, out)
    }

    /// [`DifferentiableScheme::residual_at`] with the inputs in any scalar type that lifts
    /// into `T`: the forward step evaluates its dual-number residual on the plain inputs,
    /// without a lifted copy of them per step.
    #[allow(clippy::too_many_arguments)]
    fn residual_with<M: MechanicalModel, T: Scalar + From<U>, U: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t_prev: T,
        h: T,
        w_next: &[T],
        w_prev: &[T],
        u: &StepInputs<U>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let n = self.dofs;
        let (alpha, beta, gamma) = (self.alpha, self.beta, self.gamma);
        let (q, v, a, lambda) = self.split(w_next);
        let (q0, v0, a0, lambda0) = self.split(w_prev);
        let t = t_prev + h;
        let old_q = T::cst(0.5) * h * h * T::cst(1.0 - 2.0 * beta);
        let new_q = h * h * T::cst(beta);
        let (old_v, new_v) = (h * T::cst(1.0 - gamma), h * T::cst(gamma));
        for i in 0..n {
            r[i] = q[i] - q0[i] - h * v0[i] - old_q * a0[i] - new_q * a[i];
            r[n + i] = v[i] - v0[i] - old_v * a0[i] - new_v * a[i];
        }
        let mut u_t: Small<T> = zeros(u.len());
        u.eval(t, &mut u_t);
        let args = MechArgs { t, q, v, u: &u_t, p, d };
        let mut mass: SmallMatrix<T> = matrix_zeros(n * n);
        sys.mass_matrix_into(&args, &mut mass);
        let (mut imbalance, mut imbalance_prev): (Small<T>, Small<T>) = (zeros(n), zeros(n));
        self.imbalance(sys, &args, lambda, &mut imbalance);
        self.imbalance_at(sys, t_prev, q0, v0, lambda0, u, p, d, &mut imbalance_prev);
        let (inertia, blend) = (T::cst(1.0 / (1.0 + alpha)), T::cst(alpha / (1.0 + alpha)));
        for i in 0..n {
            let ma = (0..n).fold(T::cst(0.0), |s, j| s + mass[i * n + j] * a[j]);
            r[2 * n + i] = inertia * ma + imbalance[i] - blend * imbalance_prev[i];
        }
        let scale = T::cst(1.0) / (T::cst(beta) * h * h);
        for (ri, ci) in r[3 * n..].iter_mut().zip(sys.constraints(t, q, p)) {
            *ri = ci * scale;
        }
    }

    /// The Newton scale of each unknown: per block, the largest magnitude in `w_prev` and the
    /// guess, floored by what the forces at both ends of the step imply (`|F|/|M|` for `a`,
    /// `|F|/|C_q|` for `lambda`, and `a` propagated to `v` and `q`), so that a block at rest
    /// (static equilibrium, or a start from rest under a ramped input) has a meaningful scale.
    #[allow(clippy::too_many_arguments)]
    fn newton_scale<M: MechanicalModel>(
        &self,
        sys: &MechanicalSystem<M>,
        t: f64,
        h: f64,
        w_prev: &[f64],
        guess: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Small<f64> {
        let n = self.dofs;
        let start = self.magnitudes(sys, t, w_prev, u, p, d);
        let end = self.magnitudes(sys, t + h, guess, u, p, d);
        let force = start.force.max(end.force);
        let floor = |magnitude: f64| {
            if magnitude > 0.0 {
                force / magnitude
            } else {
                0.0
            }
        };
        let block = |range: std::ops::Range<usize>| {
            largest(&w_prev[range.clone()]).max(largest(&guess[range]))
        };
        let a_scale = block(2 * n..3 * n).max(floor(start.mass.max(end.mass)));
        let v_scale = block(n..2 * n).max(self.gamma * h * a_scale);
        let q_scale = block(0..n).max(self.beta * h * h * a_scale);
        let lambda_floor = floor(start.constraint_jacobian.max(end.constraint_jacobian));
        let lambda_scale = block(3 * n..3 * n + self.constraints).max(lambda_floor);
        let mut scale: Small<f64> = Small::from_elem(q_scale, n);
        scale.extend(std::iter::repeat_n(v_scale, n));
        scale.extend(std::iter::repeat_n(a_scale, n));
        scale.extend(std::iter::repeat_n(lambda_scale, self.constraints));
        scale
    }

    /// Magnitudes of the terms of the force balance at `(t, w)`.
    fn magnitudes<M: MechanicalModel>(
        &self,
        sys: &MechanicalSystem<M>,
        t: f64,
        w: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Magnitudes {
        let n = self.dofs;
        let (q, v, a, lambda) = self.split(w);
        let mut u_t: Small<f64> = zeros(u.len());
        u.eval(t, &mut u_t);
        let args = MechArgs { t, q, v, u: &u_t, p, d };
        let mut mass: SmallMatrix<f64> = matrix_zeros(n * n);
        sys.mass_matrix_into(&args, &mut mass);
        let inertia: Small<f64> =
            (0..n).map(|i| (0..n).map(|j| mass[i * n + j] * a[j]).sum()).collect();
        let (mut forces, mut imbalance): (Small<f64>, Small<f64>) = (zeros(n), zeros(n));
        sys.forces_into(&args, &mut forces);
        self.imbalance(sys, &args, lambda, &mut imbalance);
        let force = largest(&inertia).max(largest(&forces)).max(largest(&imbalance));
        let mut constraint_jacobian: SmallMatrix<f64> = matrix_zeros(self.constraints * n);
        sys.constraint_jacobian_into(t, q, p, &mut constraint_jacobian);
        let constraint_jacobian = largest(&constraint_jacobian);
        Magnitudes { force, mass: largest(&mass), constraint_jacobian }
    }
}

/// Largest entries (in absolute value) of the force balance `M a + C_q^T lambda = Q`.
struct Magnitudes {
    /// Of `M a`, `Q` and `C_q^T lambda - Q`.
    force: f64,
    /// Of `M`.
    mass: f64,
    /// Of `C_q`.
    constraint_jacobian: f64,
}

/// The largest absolute entry of `values` (0 if empty).
fn largest(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |m, x| m.max(x.abs()))
}

impl<M: MechanicalModel> Scheme<MechanicalSystem<M>> for Hht {
    fn state_len(&self) -> usize {
        Hht::state_len(self)
    }

    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64] {
        &w[..2 * self.dofs]
    }

    fn step(
        &self,
        sys: &MechanicalSystem<M>,
        t: f64,
        h: f64,
        w: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        let n = self.dofs;
        // Predictor: Newmark with the previous acceleration held.
        w_next.copy_from_slice(w);
        for i in 0..n {
            let (v, a) = (w[n + i], w[2 * n + i]);
            w_next[i] += h * v + 0.5 * h * h * a;
            w_next[n + i] += h * a;
        }
        let scale = self.newton_scale(sys, t, h, w, w_next, u, p, d);
        let w_dual: Small<Dual64> = w.iter().map(|&v| Dual64::from(v)).collect();
        let p_dual: Small<Dual64> = p.iter().map(|&v| Dual64::from(v)).collect();
        let (t_dual, h_dual) = (Dual64::from(t), Dual64::from(h));
        self.newton.solve(t, w_next, &scale, |wn, r| {
            self.residual_with(sys, t_dual, h_dual, wn, &w_dual, u, &p_dual, d, r)
        })?;
        Ok(())
    }

    fn max_step(&self) -> f64 {
        self.max_step
    }

}

impl<M: MechanicalModel> DifferentiableScheme<MechanicalSystem<M>> for Hht {
    fn residual_len(&self) -> usize {
        self.state_len()
    }

    fn carried_len(&self) -> usize {
        self.state_len()
    }

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
        self.residual_with::<M, T, T>(sys, t_prev, h, w_next, w_prev, u, p, d, r)
    }

    /// `q, v` from `x`; `a, lambda` from the augmented index-1 system.
    fn start<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        x: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        w: &mut [T],
    ) -> Result<(), StepError> {
        let n = self.dofs;
        let mut u_t = vec![T::cst(0.0); u.len()];
        u.eval(t, &mut u_t);
        let (q, v) = sys.split(x);
        let (a, lambda) = sys
            .accelerations(&MechArgs { t, q, v, u: &u_t, p, d })
            .map_err(|_| StepError::Singular { t: t.real() })?;
        w[..2 * n].copy_from_slice(x);
        w[2 * n..3 * n].copy_from_slice(&a);
        w[3 * n..].copy_from_slice(&lambda);
        require_finite(t.real(), w)
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
        let (q, v, a, lambda) = self.split(w);
        sys.model().outputs(&MechArgs { t, q, v, u, p, d }, a, lambda, y);
    }
}
