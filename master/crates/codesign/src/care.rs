//! The continuous algebraic Riccati equation `AᵀP + PA − PBS⁻¹BᵀP + Q = 0` (LQR): the matrix
//! sign function of the Hamiltonian, refined by Newton–Kleinman, with the residual and the
//! stability of the closed loop checked before the solution is returned.

use nalgebra::{Complex, DMatrix};

use super::error::CodesignError;
use super::lyapunov::solve_lyapunov;

/// The stabilizing solution of a CARE and what was checked about it.
#[derive(Debug, Clone)]
pub struct CareSolution {
    /// The symmetric stabilizing solution P.
    pub p: DMatrix<f64>,
    /// The LQR gain in the paper's sign convention, `W = −S⁻¹BᵀP` (input `u = W x`).
    pub w: DMatrix<f64>,
    /// `‖R(P)‖_F / (‖Q‖_F + ‖AᵀP‖_F + ‖PBS⁻¹BᵀP‖_F)`.
    pub relative_residual: f64,
    /// Eigenvalues of the closed loop `A + BW` (all with negative real part).
    pub closed_loop_eigenvalues: Vec<Complex<f64>>,
}

/// Largest relative residual accepted.
const RESIDUAL_TOLERANCE: f64 = 1e-9;

/// Solves the CARE for the stabilizing P; `s` must be symmetric positive definite.
pub fn solve_care(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    s: &DMatrix<f64>,
) -> Result<CareSolution, CodesignError> {
    let s_chol = s
        .clone()
        .cholesky()
        .ok_or(CodesignError::NotPositiveDefinite { name: "S" })?;
    let s_inv_bt = s_chol.solve(&b.transpose());
    let g = b * &s_inv_bt;
    let mut p = sign_function_solution(a, &g, q)?;
    // Newton–Kleinman from the sign-function solution: quadratic convergence polishes P to
    // the accuracy of the Lyapunov solves; the iterate with the smallest residual is kept.
    let mut best = (residual(a, &g, q, &p), p.clone());
    for _ in 0..8 {
        let k = &s_inv_bt * &p;
        let closed = a - b * &k;
        if !is_hurwitz(&closed) {
            break;
        }
        let rhs = q + k.transpose() * s * &k;
        let next = solve_lyapunov(&closed.transpose(), &rhs)?;
        p = (&next + next.transpose()) * 0.5;
        let r = residual(a, &g, q, &p);
        if r < best.0 {
            best = (r, p.clone());
        } else {
            break;
        }
    }
    let (relative_residual, p) = best;
    if relative_residual.is_nan() || relative_residual > RESIDUAL_TOLERANCE {
        return Err(CodesignError::CareResidual { relative_residual });
    }
    let w = -(&s_inv_bt * &p);
    let closed_loop = a + b * &w;
    let closed_loop_eigenvalues: Vec<Complex<f64>> =
        closed_loop.complex_eigenvalues().iter().copied().collect();
    if let Some(bad) = closed_loop_eigenvalues.iter().find(|l| l.re >= 0.0) {
        return Err(CodesignError::NotStabilizing { eigenvalue: *bad });
    }
    Ok(CareSolution {
        p,
        w,
        relative_residual,
        closed_loop_eigenvalues,
    })
}

/// P from the stable invariant subspace [I; P] of H = [[A, −G], [−Q, −Aᵀ]], read off
/// `sign(H) + I`, whose kernel it is.
fn sign_function_solution(
    a: &DMatrix<f64>,
    g: &DMatrix<f64>,
    q: &DMatrix<f64>,
) -> Result<DMatrix<f64>, CodesignError> {
    let n = a.nrows();
    let mut z = DMatrix::<f64>::zeros(2 * n, 2 * n);
    z.view_mut((0, 0), (n, n)).copy_from(a);
    z.view_mut((0, n), (n, n)).copy_from(&-g);
    z.view_mut((n, 0), (n, n)).copy_from(&-q);
    z.view_mut((n, n), (n, n)).copy_from(&-a.transpose());
    let mut converged = false;
    for _ in 0..100 {
        let lu = z.clone().lu();
        // Determinant scaling (Byers): |det Z|^(-1/2n), from the LU diagonal to avoid overflow.
        let log_det: f64 = lu.u().diagonal().iter().map(|d| d.abs().ln()).sum();
        let inverse = lu.try_inverse().filter(|m| m.iter().all(|v| v.is_finite()));
        let Some(inverse) = inverse else {
            return Err(CodesignError::NotStabilizable);
        };
        let c = (-log_det / (2 * n) as f64).exp();
        let next = (&z * c + inverse / c) * 0.5;
        let change = (&next - &z).norm();
        z = next;
        if change <= 1e-13 * z.norm() {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(CodesignError::NotStabilizable);
    }
    let identity = DMatrix::<f64>::identity(n, n);
    let mut lhs = DMatrix::<f64>::zeros(2 * n, n);
    lhs.view_mut((0, 0), (n, n))
        .copy_from(&z.view((0, n), (n, n)));
    lhs.view_mut((n, 0), (n, n))
        .copy_from(&(z.view((n, n), (n, n)) + &identity));
    let mut rhs = DMatrix::<f64>::zeros(2 * n, n);
    rhs.view_mut((0, 0), (n, n))
        .copy_from(&-(z.view((0, 0), (n, n)) + &identity));
    rhs.view_mut((n, 0), (n, n))
        .copy_from(&-z.view((n, 0), (n, n)));
    // The stable subspace has the form [I; P] only when this block has full column rank; it
    // loses rank when an unstable mode is out of the input's reach.
    let svd = lhs.svd(true, true);
    if svd.singular_values.min() <= 1e-10 * svd.singular_values.max() {
        return Err(CodesignError::NotStabilizable);
    }
    let p = svd
        .solve(&rhs, 0.0)
        .map_err(|_| CodesignError::NotStabilizable)?;
    if !p.iter().all(|v| v.is_finite()) {
        return Err(CodesignError::NotStabilizable);
    }
    Ok((&p + p.transpose()) * 0.5)
}

/// The relative residual of the CARE at `p`, with `g = BS⁻¹Bᵀ`.
fn residual(a: &DMatrix<f64>, g: &DMatrix<f64>, q: &DMatrix<f64>, p: &DMatrix<f64>) -> f64 {
    let atp = a.transpose() * p;
    let pgp = p * g * p;
    let r = &atp + atp.transpose() - &pgp + q;
    r.norm() / (q.norm() + atp.norm() + pgp.norm()).max(f64::MIN_POSITIVE)
}

/// Whether every eigenvalue of `m` has a negative real part.
pub fn is_hurwitz(m: &DMatrix<f64>) -> bool {
    m.clone().complex_eigenvalues().iter().all(|l| l.re < 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{random_matrix, relative};

    #[test]
    fn double_integrator_has_the_closed_form() {
        // A = [0 1; 0 0], B = [0; 1], Q = I, S = 1: P = [√3 1; 1 √3], K = [1 √3].
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
        let sol = solve_care(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
        let r3 = 3f64.sqrt();
        let expected = DMatrix::from_row_slice(2, 2, &[r3, 1.0, 1.0, r3]);
        assert!((&sol.p - expected).norm() < 1e-13, "{}", sol.p);
        assert!((sol.w[(0, 0)] + 1.0).abs() < 1e-13 && (sol.w[(0, 1)] + r3).abs() < 1e-13);
        assert!(sol.relative_residual < 1e-15);
    }

    #[test]
    fn scalar_equation_has_the_closed_form() {
        // 2 a p − p² b² / s + q = 0 with a unstable: p = s (a + √(a² + b² q / s)) / b².
        let (a, b, q, s) = (2.0, 3.0, 5.0, 0.5);
        let m = |v: f64| DMatrix::from_element(1, 1, v);
        let sol = solve_care(&m(a), &m(b), &m(q), &m(s)).unwrap();
        let expected = s * (a + (a * a + b * b * q / s).sqrt()) / (b * b);
        assert!(relative(sol.p[(0, 0)], expected) < 1e-14);
    }

    #[test]
    fn random_stabilizable_systems_are_solved() {
        for (seed, n, m) in [(1, 4, 1), (2, 6, 2), (3, 10, 3), (4, 20, 4)] {
            // Random (A, B) are controllable with probability one; A is left unstable.
            let a = random_matrix(n, n, seed) + DMatrix::identity(n, n) * 0.5;
            let b = random_matrix(n, m, seed + 10);
            let l = random_matrix(n, n, seed + 20);
            let q = &l * l.transpose() + DMatrix::identity(n, n) * 1e-3;
            let r = random_matrix(m, m, seed + 30);
            let s = &r * r.transpose() + DMatrix::identity(m, m);
            let sol = solve_care(&a, &b, &q, &s).unwrap();
            assert!(
                sol.relative_residual < 1e-12,
                "n = {n}: residual {}",
                sol.relative_residual
            );
            assert!((&sol.p - sol.p.transpose()).norm() <= 1e-12 * sol.p.norm());
            assert!(
                sol.p.clone().cholesky().is_some(),
                "P is positive definite when Q is"
            );
            assert!(is_hurwitz(&(&a + &b * &sol.w)));
        }
    }

    #[test]
    fn an_uncontrollable_unstable_mode_is_reported() {
        // The second state grows and the input cannot reach it.
        let a = DMatrix::from_row_slice(2, 2, &[-1.0, 0.0, 0.0, 1.0]);
        let b = DMatrix::from_row_slice(2, 1, &[1.0, 0.0]);
        let result = solve_care(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1));
        assert!(
            matches!(result, Err(CodesignError::NotStabilizable)),
            "{result:?}"
        );
    }

    #[test]
    fn an_indefinite_control_weight_is_reported() {
        let a = DMatrix::from_element(1, 1, 1.0);
        let result = solve_care(&a, &a, &a, &DMatrix::from_element(1, 1, -1.0));
        assert!(matches!(
            result,
            Err(CodesignError::NotPositiveDefinite { name: "S" })
        ));
    }
}
