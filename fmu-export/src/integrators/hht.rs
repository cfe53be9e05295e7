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

use crate::jacobian::jacobian_into;
use crate::mechanical_system::MechanicalSystem;
use crate::mechanics::{MechArgs, MechanicalModel};
use crate::scalar::{Dual64, Scalar};
use crate::small::{matrix_zeros, zeros, Small, SmallMatrix};
use crate::system::{StepError, StepInputs};

use super::differentiable::DifferentiableScheme;
use super::finite::require_finite;
use super::inputs::inputs_at;
use super::newton::{scaled, Acceptance, IterationMatrix, Newton, NewtonProblem, Refresh};
use super::scheme::{Scheme, StepContext};

/// Updates within this fraction of the natural scale of each block are converged (rounding
/// level otherwise).
const TOLERANCE: f64 = 1e-10;

/// Newton's method for a step: the matrix built at the predictor is kept while the iteration
/// contracts at least fourfold per update, and rebuilt at every slower iterate (full Newton
/// where the step is hard). Converged when the last update and the error estimated after it
/// are within the tolerance; an update at most 1e-6 of the scale that no longer halves is the
/// rounding floor.
const NEWTON: Newton = Newton {
    max_iterations: 20,
    slow_rate: 0.25,
    refresh: Refresh::WhenSlow,
    acceptance: Acceptance::UpdateAndEstimate,
    stall_level: Some(1e-6 / TOLERANCE),
};

/// HHT-alpha for `n` coordinates and `m` constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct Hht {
    dofs: usize,
    constraints: usize,
    alpha: f64,
    beta: f64,
    gamma: f64,
    max_step: f64,
}

impl Hht {
    /// The method with damping parameter `alpha` in `[-1/3, 0]` and step `<= max_step`.
    pub fn new(alpha: f64, dofs: usize, constraints: usize, max_step: f64) -> Self {
        assert!(
            (-1.0 / 3.0..=0.0).contains(&alpha),
            "HHT alpha must lie in [-1/3, 0], got {alpha}"
        );
        assert!(
            max_step > 0.0,
            "HHT max_step must be positive, got {max_step}"
        );
        Hht {
            dofs,
            constraints,
            alpha,
            beta: (1.0 - alpha).powi(2) / 4.0,
            gamma: (1.0 - 2.0 * alpha) / 2.0,
            max_step,
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
        (
            &w[..n],
            &w[n..2 * n],
            &w[2 * n..3 * n],
            &w[3 * n..3 * n + self.constraints],
        )
    }

    /// Entries of the discrete state `w`.
    pub fn state_len(&self) -> usize {
        3 * self.dofs + self.constraints
    }

    /// Writes `C_q^T lambda - Q` at the point `args` into `out` (`n` entries).
    fn imbalance<M: MechanicalModel, T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        args: &MechArgs<T>,
        lambda: &[T],
        out: &mut [T],
    ) {
        sys.forces_into(args, out);
        self.balance(sys, args, lambda, out);
    }

    /// Turns the forces `Q` at the point `args`, given in `out`, into `C_q^T lambda - Q`.
    fn balance<M: MechanicalModel, T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        args: &MechArgs<T>,
        lambda: &[T],
        out: &mut [T],
    ) {
        let n = self.dofs;
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

    /// The residual of a step from `t_prev` of length `h`, given `C_q^T lambda - Q` at the
    /// step start (`imbalance_prev`, which does not depend on the unknowns), with `w_prev`,
    /// the start imbalance and the inputs in any scalar type that lifts into `T`: the forward
    /// step evaluates its dual-number residual on the plain values, without lifted copies.
    #[allow(clippy::too_many_arguments)]
    fn residual_given<M: MechanicalModel, T: Scalar + From<U>, U: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t_prev: T,
        h: T,
        w_next: &[T],
        w_prev: &[U],
        imbalance_prev: &[U],
        u: &StepInputs<U>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        let n = self.dofs;
        let (alpha, beta, gamma) = (self.alpha, self.beta, self.gamma);
        let (q, v, a, lambda) = self.split(w_next);
        let (q0, v0, a0, _) = self.split(w_prev);
        let t = t_prev + h;
        let old_q = T::cst(0.5) * h * h * T::cst(1.0 - 2.0 * beta);
        let new_q = h * h * T::cst(beta);
        let (old_v, new_v) = (h * T::cst(1.0 - gamma), h * T::cst(gamma));
        for i in 0..n {
            let (q0, v0, a0) = (T::from(q0[i]), T::from(v0[i]), T::from(a0[i]));
            r[i] = q[i] - q0 - h * v0 - old_q * a0 - new_q * a[i];
            r[n + i] = v[i] - v0 - old_v * a0 - new_v * a[i];
        }
        let u_t = inputs_at(u, t);
        let args = MechArgs {
            t,
            q,
            v,
            u: &u_t,
            p,
            d,
        };
        let mut mass: SmallMatrix<T> = matrix_zeros(n * n);
        sys.mass_matrix_into(&args, &mut mass);
        let mut imbalance: Small<T> = zeros(n);
        self.imbalance(sys, &args, lambda, &mut imbalance);
        let (inertia, blend) = (T::cst(1.0 / (1.0 + alpha)), T::cst(alpha / (1.0 + alpha)));
        for i in 0..n {
            let ma = (0..n).fold(T::cst(0.0), |s, j| s + mass[i * n + j] * a[j]);
            r[2 * n + i] = inertia * ma + imbalance[i] - blend * T::from(imbalance_prev[i]);
        }
        let scale = T::cst(1.0) / (T::cst(beta) * h * h);
        for (ri, ci) in r[3 * n..].iter_mut().zip(sys.constraints(t, q, p)) {
            *ri = ci * scale;
        }
    }

    /// Writes the Newton guess for a step of length `h` from `w`: Newmark with the previous
    /// acceleration held.
    fn predict(&self, h: f64, w: &[f64], w_next: &mut [f64]) {
        let n = self.dofs;
        w_next.copy_from_slice(w);
        for i in 0..n {
            let (v, a) = (w[n + i], w[2 * n + i]);
            w_next[i] += h * v + 0.5 * h * h * a;
            w_next[n + i] += h * a;
        }
    }

    /// Solves the step from `(t, w)` of length `h` by `newton`, from the predictor in
    /// `w_next`.
    fn correct<M: MechanicalModel>(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
        newton: &Newton,
    ) -> Result<(), StepError> {
        let start = self.magnitudes(cx, t, w);
        let end = self.magnitudes(cx, t + h, w_next);
        let scale = self.newton_scale(h, w, w_next, &start, &end);
        let p_dual: Small<Dual64> = cx.p.iter().map(|&v| Dual64::from(v)).collect();
        let imbalance_prev = self.start_imbalance(cx, t, w, &p_dual);
        let imbalance_prev = &imbalance_prev;
        let mut equation = StepEquation {
            hht: self,
            cx,
            t,
            h,
            w_prev: w,
            imbalance_prev,
            p_dual,
            scale,
        };
        let mut matrix: Option<IterationMatrix> = None;
        newton.solve(t, w_next, &mut matrix, &mut equation)
    }

    /// `C_q^T lambda - Q` at the step start `(t, w)`, as the real part of a dual-number
    /// evaluation (see [`StepEquation`] for why not in `f64`).
    fn start_imbalance<M: MechanicalModel>(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        w: &[f64],
        p: &[Dual64],
    ) -> Small<f64> {
        let w: Small<Dual64> = w.iter().map(|&v| Dual64::from(v)).collect();
        let (q, v, _, lambda) = self.split(&w);
        let t = Dual64::from(t);
        let u_t = inputs_at(cx.u, t);
        let mut imbalance: Small<Dual64> = zeros(self.dofs);
        self.imbalance(
            cx.sys,
            &MechArgs {
                t,
                q,
                v,
                u: &u_t,
                p,
                d: cx.d,
            },
            lambda,
            &mut imbalance,
        );
        imbalance.iter().map(|i| i.re).collect()
    }

    /// The Newton scale of each unknown: per block, the largest magnitude in `w_prev` and the
    /// guess, floored by what the forces at both ends of the step (`start`, `end`) imply
    /// (`|F|/|M|` for `a`, `|F|/|C_q|` for `lambda`, and `a` propagated to `v` and `q`), so
    /// that a block at rest (static equilibrium, or a start from rest under a ramped input)
    /// has a meaningful scale.
    fn newton_scale(
        &self,
        h: f64,
        w_prev: &[f64],
        guess: &[f64],
        start: &Magnitudes,
        end: &Magnitudes,
    ) -> Small<f64> {
        let n = self.dofs;
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
        let mut scale: Small<f64> = zeros(self.state_len());
        let (q, rest) = scale.split_at_mut(n);
        let (v, rest) = rest.split_at_mut(n);
        let (a, lambda) = rest.split_at_mut(n);
        for (block, value) in [
            (q, q_scale),
            (v, v_scale),
            (a, a_scale),
            (lambda, lambda_scale),
        ] {
            block.fill(value);
        }
        scale
    }

    /// Magnitudes of the terms of the force balance at `(t, w)`.
    fn magnitudes<M: MechanicalModel>(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        w: &[f64],
    ) -> Magnitudes {
        let (n, sys) = (self.dofs, cx.sys);
        let (q, v, a, lambda) = self.split(w);
        let u_t = inputs_at(cx.u, t);
        let args = MechArgs {
            t,
            q,
            v,
            u: &u_t,
            p: cx.p,
            d: cx.d,
        };
        let mut mass: SmallMatrix<f64> = matrix_zeros(n * n);
        sys.mass_matrix_into(&args, &mut mass);
        let inertia: Small<f64> = (0..n)
            .map(|i| (0..n).map(|j| mass[i * n + j] * a[j]).sum())
            .collect();
        let mut forces: Small<f64> = zeros(n);
        sys.forces_into(&args, &mut forces);
        let mut imbalance = forces.clone();
        self.balance(sys, &args, lambda, &mut imbalance);
        let force = largest(&inertia)
            .max(largest(&forces))
            .max(largest(&imbalance));
        let mut constraint_jacobian: SmallMatrix<f64> = matrix_zeros(self.constraints * n);
        sys.constraint_jacobian_into(t, q, cx.p, &mut constraint_jacobian);
        let constraint_jacobian = largest(&constraint_jacobian);
        Magnitudes {
            force,
            mass: largest(&mass),
            constraint_jacobian,
        }
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

/// The equation of one forward step: the residual in the unknowns `w_next`, everything at the
/// step start fixed.
///
/// The residual is evaluated in dual numbers even where no tangent is needed: the real parts of
/// dual arithmetic do not always round like the model's `f64` code (num-dual multiplies `powi`
/// out, while LLVM lowers the `f64` `powi` differently from one compiled crate to the next), and
/// the step's result must not depend on how the model was compiled in (an FMU's library and a
/// program linking the model end on the same bits).
struct StepEquation<'a, M> {
    hht: &'a Hht,
    cx: &'a StepContext<'a, MechanicalSystem<M>>,
    t: f64,
    h: f64,
    w_prev: &'a [f64],
    /// `C_q^T lambda - Q` at the step start.
    imbalance_prev: &'a [f64],
    /// The parameters as (constant) dual numbers, for the Jacobian.
    p_dual: Small<Dual64>,
    /// The magnitude of each unknown (see [`Hht::newton_scale`]).
    scale: Small<f64>,
}

impl<M: MechanicalModel> StepEquation<'_, M> {
    /// The residual at the unknowns `w`, in dual numbers, for its value and its Jacobian alike.
    fn residual_dual(&self, w: &[Dual64], r: &mut [Dual64]) {
        let (cx, hht) = (self.cx, self.hht);
        let (t, h) = (Dual64::from(self.t), Dual64::from(self.h));
        let (w_prev, imbalance_prev, p) = (self.w_prev, self.imbalance_prev, &self.p_dual);
        hht.residual_given(cx.sys, t, h, w, w_prev, imbalance_prev, cx.u, p, cx.d, r);
    }
}

impl<M: MechanicalModel> NewtonProblem for StepEquation<'_, M> {
    fn residual(&mut self, w: &[f64], r: &mut [f64]) {
        let w: Small<Dual64> = w.iter().map(|&v| Dual64::from(v)).collect();
        let mut rd: Small<Dual64> = zeros(r.len());
        self.residual_dual(&w, &mut rd);
        r.iter_mut().zip(&rd).for_each(|(ri, rdi)| *ri = rdi.re);
    }

    fn linearize(
        &mut self,
        w: &[f64],
        matrix: &mut [f64],
        r: &mut [f64],
    ) -> Result<bool, StepError> {
        jacobian_into(w, |wn, rd| self.residual_dual(wn, rd), matrix, r);
        Ok(true)
    }

    fn size(&self, update: &[f64], _w: &[f64]) -> f64 {
        let scaled = update.iter().zip(&self.scale).map(|(&d, &s)| scaled(d, s));
        scaled.fold(0.0, f64::max) / TOLERANCE
    }
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
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        self.predict(h, w, w_next);
        self.correct(cx, t, h, w, w_next, &NEWTON)
    }

    fn max_step(&self) -> f64 {
        self.max_step
    }
}

impl<M: MechanicalModel> DifferentiableScheme<MechanicalSystem<M>> for Hht {
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
        let (q0, v0, _, lambda0) = self.split(w_prev);
        let u_t = inputs_at(u, t_prev);
        let args = MechArgs {
            t: t_prev,
            q: q0,
            v: v0,
            u: &u_t,
            p,
            d,
        };
        let mut imbalance_prev: Small<T> = zeros(self.dofs);
        self.imbalance(sys, &args, lambda0, &mut imbalance_prev);
        self.residual_given::<M, T, T>(sys, t_prev, h, w_next, w_prev, &imbalance_prev, u, p, d, r)
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
        let u_t = inputs_at(u, t);
        let (q, v) = sys.split(x);
        let (a, lambda) = sys
            .accelerations(&MechArgs {
                t,
                q,
                v,
                u: &u_t,
                p,
                d,
            })
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
        sys.model()
            .outputs(&MechArgs { t, q, v, u, p, d }, a, lambda, y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Declaration, Var};

    /// A hardening spring `a = -q - 50 q^3`: the step's Jacobian changes with the state.
    #[derive(Default)]
    struct Duffing;

    impl MechanicalModel for Duffing {
        fn declaration(&self) -> Declaration {
            Declaration::new("duffing", "")
                .state(Var::new("q", 1.0))
                .state(Var::new("v", 0.0))
        }
        fn mass_matrix<T: Scalar>(&self, _a: &MechArgs<T>, m: &mut [T]) {
            m[0] = T::cst(1.0);
        }
        fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
            f[0] = -a.q[0] - a.q[0].powi(3) * 50.0;
        }
        fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, _acc: &[T], _l: &[T], _y: &mut [T]) {}
    }

    /// Full Newton: a fresh matrix at every iterate.
    const FULL: Newton = Newton {
        refresh: Refresh::Always,
        acceptance: Acceptance::Update,
        ..NEWTON
    };

    #[test]
    fn a_kept_matrix_reaches_the_root_of_full_newton_within_the_tolerance() {
        let sys = MechanicalSystem::<Duffing>::default();
        let h = 0.02;
        let hht = Hht::new(-0.1, 1, 0, h);
        let u = StepInputs::held(0.0, &[]);
        let cx = StepContext {
            sys: &sys,
            u: &u,
            p: &[],
            d: &[],
        };
        let mut w = vec![0.0; 3];
        hht.start(&sys, 0.0, &[1.0, 0.0], &u, &[], &[], &mut w)
            .unwrap();
        let mut trajectory = vec![w];
        let mut largest_difference = [0.0f64; 3];
        for k in 0..200 {
            let (t, w) = (k as f64 * h, trajectory.last().unwrap().clone());
            let step = |newton: &Newton| {
                let mut w_next = w.clone();
                hht.predict(h, &w, &mut w_next);
                hht.correct(&cx, t, h, &w, &mut w_next, newton).unwrap();
                w_next
            };
            let (kept, full) = (step(&NEWTON), step(&FULL));
            for i in 0..3 {
                largest_difference[i] = largest_difference[i].max((kept[i] - full[i]).abs());
            }
            trajectory.push(kept);
        }
        // Both roots satisfy the step's 1e-10 relative tolerance on each block, whose scales are
        // at most the largest values (|q| <= 1, |v| < 7, |a| < 60) along this trajectory.
        let largest: Vec<f64> = (0..3)
            .map(|i| trajectory.iter().fold(0.0f64, |m, w| m.max(w[i].abs())))
            .collect();
        assert!(
            largest[2] > 40.0,
            "the spring is strongly nonlinear: {largest:?}"
        );
        for i in 0..3 {
            assert!(
                largest_difference[i] <= 2.0 * TOLERANCE * largest[i],
                "block {i}: {largest_difference:?} against {largest:?}"
            );
        }
    }
}
