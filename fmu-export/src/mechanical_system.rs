//! Adapter from a modeller's [`MechanicalModel`] to the first-order [`System`], plus the
//! derived quantities (constraint Jacobian, acceleration-level constraint terms, consistent
//! accelerations) that the mechanical integrators share.

use num_dual::{Dual, Dual2};

use crate::declaration::Declaration;
use crate::integrators::MechanicalIntegrator;
use crate::linear::{self, Singular};
use crate::mechanics::{MechArgs, MechanicalModel};
use crate::ode::{Args, Event};
use crate::scalar::Scalar;
use crate::small::{matrix_zeros, zeros, Small, SmallMatrix};
use crate::system::System;

/// A mechanical model seen as a first-order [`System`] with state `x = [q; v]`.
///
/// Model Exchange uses the index-1 form (accelerations from the augmented system
/// `[M C_q^T; C_q 0] [a; lambda] = [Q; gamma]`); co-simulation integrates the index-3 DAE
/// with HHT-alpha or symplectic Euler.
#[derive(Debug)]
pub struct MechanicalSystem<M> {
    model: M,
    declaration: Declaration,
    dofs: usize,
    constraints: usize,
}

impl<M: MechanicalModel> Default for MechanicalSystem<M> {
    fn default() -> Self {
        let model = M::default();
        let declaration = model.declaration();
        assert!(
            declaration.states.len() % 2 == 0,
            "a mechanical model declares n coordinates then n velocities as its states"
        );
        let dofs = declaration.states.len() / 2;
        let constraints = model.constraint_count();
        MechanicalSystem {
            model,
            declaration,
            dofs,
            constraints,
        }
    }
}

impl<M: MechanicalModel> MechanicalSystem<M> {
    /// The wrapped model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Number of generalized coordinates `n`.
    pub fn dofs(&self) -> usize {
        self.dofs
    }

    /// Number of constraints `m`.
    pub fn constraint_count(&self) -> usize {
        self.constraints
    }

    /// Splits a first-order state into coordinates and velocities.
    pub fn split<'a, T>(&self, x: &'a [T]) -> (&'a [T], &'a [T]) {
        x.split_at(self.dofs)
    }

    /// The mass matrix `M(q, p)`, row-major.
    pub fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>) -> SmallMatrix<T> {
        let mut m = matrix_zeros(self.dofs * self.dofs);
        self.mass_matrix_into(a, &mut m);
        m
    }

    /// [`MechanicalSystem::mass_matrix`] into `m` (`n * n` entries).
    pub fn mass_matrix_into<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m.fill(T::cst(0.0));
        self.model.mass_matrix(a, m);
    }

    /// The applied forces `Q(t, q, v, u, p)`.
    pub fn forces<T: Scalar>(&self, a: &MechArgs<T>) -> Small<T> {
        let mut f = zeros(self.dofs);
        self.forces_into(a, &mut f);
        f
    }

    /// [`MechanicalSystem::forces`] into `f` (`n` entries).
    pub fn forces_into<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f.fill(T::cst(0.0));
        self.model.forces(a, f);
    }

    /// The constraint residuals `C(q, t)`.
    pub fn constraints<T: Scalar>(&self, t: T, q: &[T], p: &[T]) -> Small<T> {
        let mut c = zeros(self.constraints);
        self.model.constraints(t, q, p, &mut c);
        c
    }

    /// The constraint Jacobian `C_q` (`m x n`, row-major), exact by dual numbers.
    pub fn constraint_jacobian<T: Scalar>(&self, t: T, q: &[T], p: &[T]) -> SmallMatrix<T> {
        let mut jac = matrix_zeros(self.constraints * self.dofs);
        self.constraint_jacobian_into(t, q, p, &mut jac);
        jac
    }

    /// [`MechanicalSystem::constraint_jacobian`] into `jac` (`m * n` entries).
    pub fn constraint_jacobian_into<T: Scalar>(&self, t: T, q: &[T], p: &[T], jac: &mut [T]) {
        let (n, m) = (self.dofs, self.constraints);
        if m == 0 {
            return;
        }
        let td = Dual::from_re(t);
        let pd: Small<Dual<T>> = p.iter().map(|&v| Dual::from_re(v)).collect();
        let mut qd: Small<Dual<T>> = q.iter().map(|&v| Dual::from_re(v)).collect();
        let mut c: Small<Dual<T>> = Small::from_elem(Dual::from_re(T::cst(0.0)), m);
        for j in 0..n {
            qd[j].eps = T::cst(1.0);
            self.model.constraints(td, &qd, &pd, &mut c);
            for i in 0..m {
                jac[i * n + j] = c[i].eps;
            }
            qd[j].eps = T::cst(0.0);
        }
    }

    /// The acceleration-level right-hand side
    /// `gamma = -(C_q v)_q v - 2 C_qt v - C_tt = -d^2/ds^2 C(q + s v, t + s) |_{s=0}`.
    pub fn constraint_curvature<T: Scalar>(&self, t: T, q: &[T], v: &[T], p: &[T]) -> Small<T> {
        let m = self.constraints;
        if m == 0 {
            return Small::new();
        }
        let zero = T::cst(0.0);
        let td = Dual2::new(t, T::cst(1.0), zero);
        let qd: Small<Dual2<T>> = q
            .iter()
            .zip(v)
            .map(|(&qi, &vi)| Dual2::new(qi, vi, zero))
            .collect();
        let pd: Small<Dual2<T>> = p.iter().map(|&v| Dual2::from_re(v)).collect();
        let mut c: Small<Dual2<T>> = Small::from_elem(Dual2::from_re(zero), m);
        self.model.constraints(td, &qd, &pd, &mut c);
        c.iter().map(|ci| -ci.v2).collect()
    }

    /// Consistent accelerations and multipliers from
    /// `[M C_q^T; C_q 0] [a; lambda] = [Q; gamma]`.
    pub fn accelerations<T: Scalar>(
        &self,
        a: &MechArgs<T>,
    ) -> Result<(Small<T>, Small<T>), Singular> {
        let (n, m) = (self.dofs, self.constraints);
        if m == 0 {
            // The augmented matrix is the mass matrix itself: no copy into a larger one (this
            // runs once per step and per column of every step Jacobian).
            let mut accelerations = self.forces(a);
            linear::solve(self.mass_matrix(a), &mut accelerations, n)?;
            return Ok((accelerations, Small::new()));
        }
        let size = n + m;
        let mass = self.mass_matrix(a);
        let cq = self.constraint_jacobian(a.t, a.q, a.p);
        let mut matrix = matrix_zeros(size * size);
        for i in 0..n {
            matrix[i * size..i * size + n].copy_from_slice(&mass[i * n..(i + 1) * n]);
        }
        for r in 0..m {
            for j in 0..n {
                matrix[(n + r) * size + j] = cq[r * n + j];
                matrix[j * size + n + r] = cq[r * n + j];
            }
        }
        let mut rhs = self.forces(a);
        rhs.extend(self.constraint_curvature(a.t, a.q, a.v, a.p));
        linear::solve(matrix, &mut rhs, size)?;
        let lambda = rhs.drain(n..).collect();
        Ok((rhs, lambda))
    }

    fn mech_args<'a, T: Scalar>(&self, a: &'a Args<'a, T>) -> MechArgs<'a, T> {
        let (q, v) = self.split(a.x);
        MechArgs {
            t: a.t,
            q,
            v,
            u: a.u,
            p: a.p,
            d: a.d,
        }
    }
}

impl<M: MechanicalModel> System for MechanicalSystem<M> {
    type Integrator = MechanicalIntegrator;

    fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let n = self.dofs;
        let ma = self.mech_args(a);
        dx[..n].copy_from_slice(ma.v);
        match self.accelerations(&ma) {
            Ok((acc, _)) => dx[n..].copy_from_slice(&acc),
            Err(_) => dx[n..].iter_mut().for_each(|v| *v = T::cst(f64::NAN)),
        }
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        let ma = self.mech_args(a);
        match self.accelerations(&ma) {
            Ok((acc, lambda)) => self.model.outputs(&ma, &acc, &lambda, y),
            Err(_) => y.iter_mut().for_each(|v| *v = T::cst(f64::NAN)),
        }
    }

    fn event_indicators<T: Scalar>(&self, _a: &Args<T>, _z: &mut [T]) {}

    fn reset<T: Scalar>(&self, _a: &Args<T>, _event: Event, _x_new: &mut [T], _d_new: &mut [f64]) {}

    fn next_time_event(&self, _t: f64, _p: &[f64], _d: &[f64]) -> Option<f64> {
        None
    }

    fn integrator(&self) -> MechanicalIntegrator {
        MechanicalIntegrator::new(&self.declaration, self.dofs, self.constraints)
    }

    fn string_outputs(&self, a: &Args<f64>, s: &[String], out: &mut [String]) {
        self.model.string_outputs(&self.mech_args(a), s, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::Var;

    /// A pendulum in Cartesian coordinates: one constraint, known accelerations.
    #[derive(Default)]
    struct Pendulum;

    impl MechanicalModel for Pendulum {
        fn declaration(&self) -> Declaration {
            Declaration::new("pendulum", "")
                .state(Var::new("x", 1.0))
                .state(Var::new("y", 0.0))
                .state(Var::new("vx", 0.0))
                .state(Var::new("vy", 0.5))
        }
        fn constraint_count(&self) -> usize {
            1
        }
        fn mass_matrix<T: Scalar>(&self, _a: &MechArgs<T>, m: &mut [T]) {
            m[0] = T::cst(2.0);
            m[3] = T::cst(2.0);
        }
        fn forces<T: Scalar>(&self, _a: &MechArgs<T>, f: &mut [T]) {
            f[1] = T::cst(-2.0 * 9.81);
        }
        fn constraints<T: Scalar>(&self, _t: T, q: &[T], _p: &[T], c: &mut [T]) {
            c[0] = (q[0] * q[0] + q[1] * q[1] - T::cst(1.0)) * T::cst(0.5);
        }
        fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, _acc: &[T], _l: &[T], _y: &mut [T]) {}
    }

    #[test]
    fn consistent_accelerations_satisfy_the_acceleration_level_constraint() {
        let sys = MechanicalSystem::<Pendulum>::default();
        let (q, v): ([f64; 2], [f64; 2]) = ([0.6, -0.8], [0.4, 0.3]);
        let args = MechArgs {
            t: 0.0,
            q: &q,
            v: &v,
            u: &[],
            p: &[],
            d: &[],
        };
        let (acc, lambda) = sys.accelerations(&args).unwrap();
        // C = (x^2 + y^2 - 1)/2  =>  C_q a + |v|^2 = 0.
        let residual = q[0] * acc[0] + q[1] * acc[1] + v[0] * v[0] + v[1] * v[1];
        assert!(residual.abs() < 1e-14, "{residual}");
        // Force balance: M a + C_q^T lambda = Q.
        assert!((2.0 * acc[0] + q[0] * lambda[0]).abs() < 1e-13);
        assert!((2.0 * acc[1] + q[1] * lambda[0] + 2.0 * 9.81).abs() < 1e-13);
    }
}
