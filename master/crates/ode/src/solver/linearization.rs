//! The derivatives of one accepted Runge–Kutta step `x_new = Phi(x)` with its step size
//! frozen: the tangent (forward mode) and the adjoint (reverse mode) of the stage recurrence,
//! built from the right-hand side's Jacobian-vector products at the stages. Explicit stages
//! need nothing else; a diagonally implicit stage `k_i = f(X_i)` with
//! `X_i = x + h sum_{j<i} a_ij k_j + h d_i k_i` is differentiated through its equation (the
//! implicit function theorem): its tangent solves `(I - h d_i J_i) dk_i = J_i dX_i^explicit +
//! seeds` and its adjoint the transposed system, with the Jacobian `J_i` at the stage. That is
//! the derivative of the exact solution of the stage equations, which the solver's Newton
//! iteration computes to within its convergence test (well below the error tolerance).
//!
//! Freezing the step size gives the derivative of exactly the arithmetic the solver did (the
//! "internal differentiation" of Bock): the step-size controller's own dependence on the
//! states is left out, which is what a sensitivity of an adaptive solution conventionally
//! means and is of the order of the local error tolerance.
//!
//! Knowns other than the state (inputs held over the step, parameters) enter through the
//! callers' products: the tangent's product adds their seeds, the adjoint's accumulates their
//! adjoints on the side.

use nalgebra::{DMatrix, DVector};

/// One accepted step of a diagonally implicit (or explicit, `d_i = 0`) method with `s` stages
/// whose derivatives enter the new state: `X_i = x + h sum_{j<i} a_ij k_j + h d_i k_i`,
/// `k_i = f(t + c_i h, X_i)`, `x_new = x + h sum_j b_j k_j`.
#[derive(Debug, Clone)]
pub struct StepLinearization {
    /// Start of the step.
    pub t: f64,
    /// Step size.
    pub h: f64,
    /// Stage abscissae `c_i`.
    c: &'static [f64],
    /// Rows `a_i` of the stage coefficients (row `s` holds the weights `b`).
    a: &'static [[f64; 6]],
    /// The diagonal coefficients `d_i` (all zero for an explicit method).
    diagonal: &'static [f64],
    /// The stage states `X_0 = x, X_1, ..., X_{s-1}`.
    stages: Vec<Vec<f64>>,
}

/// The matrix `I - h d_i J_i` of an implicit stage is singular: the stage has no derivative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SingularStage {
    /// The stage's time.
    pub time: f64,
}

impl StepLinearization {
    /// The step from `(t, stages[0])` of size `h` whose stage states were `stages`, of the
    /// method with abscissae `c`, coefficients `a` (one row more than stages: the weights) and
    /// diagonal `diagonal`.
    pub(super) fn new(
        t: f64,
        h: f64,
        c: &'static [f64],
        a: &'static [[f64; 6]],
        diagonal: &'static [f64],
        stages: Vec<Vec<f64>>,
    ) -> Self {
        debug_assert_eq!(a.len(), stages.len() + 1);
        debug_assert_eq!(diagonal.len(), stages.len());
        StepLinearization {
            t,
            h,
            c,
            a,
            diagonal,
            stages,
        }
    }

    /// Whether some stage is implicit (its derivatives need the Jacobian at the stage).
    pub fn is_implicit(&self) -> bool {
        self.diagonal.iter().any(|&d| d != 0.0)
    }

    /// Number of stages.
    pub fn stage_count(&self) -> usize {
        self.stages.len()
    }

    /// Time and state of stage `i`.
    pub fn stage(&self, i: usize) -> (f64, &[f64]) {
        (self.t + self.c[i] * self.h, &self.stages[i])
    }

    /// `dx_new` from `dx`. `product(i, t_i, X_i, dX_i, dk_i)` writes the right-hand side's
    /// tangent at stage `i`: `f_x dX_i` plus the other knowns' seeds; `jacobian(i, t_i, X_i, J)`
    /// writes `f_x` at an implicit stage (never called for an explicit method).
    pub fn tangent<E: From<SingularStage>>(
        &self,
        dx: &[f64],
        mut product: impl FnMut(usize, f64, &[f64], &[f64], &mut [f64]) -> Result<(), E>,
        mut jacobian: impl FnMut(usize, f64, &[f64], &mut DMatrix<f64>) -> Result<(), E>,
    ) -> Result<Vec<f64>, E> {
        let n = dx.len();
        let s = self.stages.len();
        let mut dk = vec![vec![0.0; n]; s];
        let mut d_stage = vec![0.0; n];
        for i in 0..s {
            self.combine(dx, &dk, i, &mut d_stage);
            let (t, stage) = self.stage(i);
            product(i, t, stage, &d_stage, &mut dk[i])?;
            self.solve_stage(i, &mut jacobian, false, &mut dk[i])?;
        }
        let mut dx_new = vec![0.0; n];
        self.combine(dx, &dk, s, &mut dx_new);
        Ok(dx_new)
    }

    /// `bar_x` from `bar_x_new`. `product(i, t_i, X_i, bar_k_i, bar_X_i)` writes the transposed
    /// product `f_x^T bar_k_i` at stage `i` (and accumulates the other knowns' adjoints itself);
    /// `jacobian` as for [`Self::tangent`].
    pub fn adjoint<E: From<SingularStage>>(
        &self,
        bar_x_new: &[f64],
        mut product: impl FnMut(usize, f64, &[f64], &[f64], &mut [f64]) -> Result<(), E>,
        mut jacobian: impl FnMut(usize, f64, &[f64], &mut DMatrix<f64>) -> Result<(), E>,
    ) -> Result<Vec<f64>, E> {
        let n = bar_x_new.len();
        let s = self.stages.len();
        let mut bar_x = bar_x_new.to_vec();
        let mut bar_k = vec![vec![0.0; n]; s];
        self.spread(bar_x_new, &mut bar_k, s);
        let mut bar_stage = vec![0.0; n];
        for i in (0..s).rev() {
            let (t, stage) = self.stage(i);
            self.solve_stage(i, &mut jacobian, true, &mut bar_k[i])?;
            product(i, t, stage, &bar_k[i], &mut bar_stage)?;
            for (x, b) in bar_x.iter_mut().zip(&bar_stage) {
                *x += b;
            }
            self.spread(&bar_stage, &mut bar_k, i);
        }
        Ok(bar_x)
    }

    /// At an implicit stage `i`, overwrites `v` with `(I - h d_i J_i)^-1 v` (or its transpose's
    /// inverse); nothing at an explicit one.
    fn solve_stage<E: From<SingularStage>>(
        &self,
        i: usize,
        jacobian: &mut impl FnMut(usize, f64, &[f64], &mut DMatrix<f64>) -> Result<(), E>,
        transposed: bool,
        v: &mut [f64],
    ) -> Result<(), E> {
        let d = self.diagonal[i];
        if d == 0.0 {
            return Ok(());
        }
        let n = v.len();
        let (t, stage) = self.stage(i);
        let mut j = DMatrix::zeros(n, n);
        jacobian(i, t, stage, &mut j)?;
        let mut matrix = DMatrix::identity(n, n) - j * (self.h * d);
        if transposed {
            matrix.transpose_mut();
        }
        let mut rhs = DVector::from_column_slice(v);
        if !matrix.lu().solve_mut(&mut rhs) {
            return Err(SingularStage { time: t }.into());
        }
        v.copy_from_slice(rhs.as_slice());
        Ok(())
    }

    /// `out = x + h sum_{j<row} a_{row,j} k_j`.
    fn combine(&self, x: &[f64], k: &[Vec<f64>], row: usize, out: &mut [f64]) {
        stage_state(x, self.h, &self.a[row], &k[..row], out);
    }

    /// The reverse of [`Self::combine`] for row `row`: `bar_k_j += h a_{row,j} bar`.
    fn spread(&self, bar: &[f64], bar_k: &mut [Vec<f64>], row: usize) {
        for (j, k) in bar_k.iter_mut().enumerate().take(row) {
            let weight = self.h * self.a[row][j];
            for (kj, &b) in k.iter_mut().zip(bar) {
                *kj += weight * b;
            }
        }
    }
}

/// A stage state of an explicit method: `out = x + h sum_j a_j k_j` over the given stage
/// derivatives `k` (the solver's step and the linearization's recurrences use this one formula,
/// so that they agree to the last bit).
pub(super) fn stage_state(x: &[f64], h: f64, a: &[f64; 6], k: &[Vec<f64>], out: &mut [f64]) {
    for (i, (o, &xi)) in out.iter_mut().zip(x).enumerate() {
        let increment: f64 = k.iter().zip(a).map(|(kj, aj)| aj * kj[i]).sum();
        *o = xi + h * increment;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of the tests' linearizations.
    #[derive(Debug)]
    struct Singular;

    impl From<SingularStage> for Singular {
        fn from(_: SingularStage) -> Self {
            Singular
        }
    }

    /// Classical RK4 as a tableau in the layout the struct expects.
    const C: [f64; 4] = [0.0, 0.5, 0.5, 1.0];
    const A: [[f64; 6]; 5] = [
        [0.0; 6],
        [0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0, 0.0, 0.0],
    ];

    /// `f(x) = (x1 x2, -sin x1)`, with its Jacobian.
    fn f(x: &[f64]) -> Vec<f64> {
        vec![x[0] * x[1], -x[0].sin()]
    }
    fn jacobian(x: &[f64]) -> [[f64; 2]; 2] {
        [[x[1], x[0]], [-x[0].cos(), 0.0]]
    }

    fn step(x: &[f64], h: f64) -> (Vec<f64>, Vec<Vec<f64>>) {
        let mut k: Vec<Vec<f64>> = Vec::new();
        let mut stages = Vec::new();
        for a in &A[..4] {
            let mut stage = vec![0.0; 2];
            stage_state(x, h, a, &k, &mut stage);
            k.push(f(&stage));
            stages.push(stage);
        }
        let mut new = vec![0.0; 2];
        stage_state(x, h, &A[4], &k, &mut new);
        (new, stages)
    }

    #[test]
    fn tangent_and_adjoint_match_differences_and_each_other() {
        let (x, h) = ([0.7, -0.3], 0.2);
        let (_, stages) = step(&x, h);
        let linear = StepLinearization::new(0.0, h, &C, &A, &[0.0; 4], stages);
        let jvp = |_: usize, _: f64, s: &[f64], d: &[f64], out: &mut [f64]| {
            let j = jacobian(s);
            for (r, o) in out.iter_mut().enumerate() {
                *o = j[r][0] * d[0] + j[r][1] * d[1];
            }
            Ok::<(), Singular>(())
        };
        let vjp = |_: usize, _: f64, s: &[f64], b: &[f64], out: &mut [f64]| {
            let j = jacobian(s);
            for (c, o) in out.iter_mut().enumerate() {
                *o = j[0][c] * b[0] + j[1][c] * b[1];
            }
            Ok::<(), Singular>(())
        };
        let explicit_only =
            |_: usize, _: f64, _: &[f64], _: &mut DMatrix<f64>| -> Result<(), Singular> {
                panic!("an explicit method needs no Jacobian")
            };
        for direction in [[1.0, 0.0], [0.0, 1.0], [0.6, -1.3]] {
            let tangent = linear.tangent(&direction, jvp, explicit_only).unwrap();
            let e = 1e-6;
            let plus = step(&[x[0] + e * direction[0], x[1] + e * direction[1]], h).0;
            let minus = step(&[x[0] - e * direction[0], x[1] - e * direction[1]], h).0;
            for i in 0..2 {
                let difference = (plus[i] - minus[i]) / (2.0 * e);
                assert!(
                    (tangent[i] - difference).abs() < 1e-9,
                    "{tangent:?} {difference}"
                );
            }
            // Duality: bar . (J d) = (J^T bar) . d for any bar.
            let bar = [0.4, 2.1];
            let adjoint = linear.adjoint(&bar, vjp, explicit_only).unwrap();
            let left = bar[0] * tangent[0] + bar[1] * tangent[1];
            let right = adjoint[0] * direction[0] + adjoint[1] * direction[1];
            assert!(
                (left - right).abs() < 1e-14 * left.abs().max(1.0),
                "{left} {right}"
            );
        }
    }
}
