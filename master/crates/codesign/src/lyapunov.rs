//! The continuous Lyapunov equation `A X + X Aᵀ + C = 0` by Bartels–Stewart: a real Schur
//! form of `A`, then a column-by-column solve of the quasi-triangular equation.

use nalgebra::{DMatrix, DVector, Schur};

use super::error::CodesignError;

/// Solves `A X + X Aᵀ + C = 0`; unique when no two eigenvalues of `A` sum to zero (e.g. `A`
/// Hurwitz).
pub fn solve_lyapunov(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Result<DMatrix<f64>, CodesignError> {
    let n = a.nrows();
    let (u, t) = Schur::new(a.clone()).unpack();
    // With Y = Uᵀ X U and F = Uᵀ C U: T Y + Y Tᵀ = -F, T upper quasi-triangular. Column c of
    // Y Tᵀ is Σ_k Y[:,k] T[c,k], so the columns are solved from the last diagonal block up.
    let f = u.transpose() * c * &u;
    let mut y = DMatrix::<f64>::zeros(n, n);
    let mut end = n;
    while end > 0 {
        let size = if end >= 2 && t[(end - 1, end - 2)] != 0.0 {
            2
        } else {
            1
        };
        let start = end - size;
        let mut rhs = DVector::<f64>::zeros(n * size);
        for (b, col) in (start..end).enumerate() {
            let mut r = -f.column(col);
            for k in end..n {
                r -= y.column(k) * t[(col, k)];
            }
            rhs.rows_mut(b * n, n).copy_from(&r);
        }
        // Unknowns [y_start; …; y_{end-1}]: block (b, b') is δ_bb' T + T[col_b, col_b'] I.
        let mut m = DMatrix::<f64>::zeros(n * size, n * size);
        for b in 0..size {
            m.view_mut((b * n, b * n), (n, n)).copy_from(&t);
            for b2 in 0..size {
                let coupling = t[(start + b, start + b2)];
                for i in 0..n {
                    m[(b * n + i, b2 * n + i)] += coupling;
                }
            }
        }
        let sol = m.lu().solve(&rhs).ok_or(CodesignError::SingularLyapunov)?;
        for b in 0..size {
            y.set_column(start + b, &sol.rows(b * n, n));
        }
        end = start;
    }
    let x = &u * y * u.transpose();
    if x.iter().all(|v| v.is_finite()) {
        Ok(x)
    } else {
        Err(CodesignError::SingularLyapunov)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{random_matrix, relative};

    fn residual(a: &DMatrix<f64>, x: &DMatrix<f64>, c: &DMatrix<f64>) -> f64 {
        (a * x + x * a.transpose() + c).norm() / c.norm()
    }

    #[test]
    fn scalar_equation_has_the_closed_form() {
        // 2 a x + c = 0.
        let x = solve_lyapunov(
            &DMatrix::from_element(1, 1, -3.0),
            &DMatrix::from_element(1, 1, 4.0),
        )
        .unwrap();
        assert!(relative(x[(0, 0)], 4.0 / 6.0) < 1e-15);
    }

    #[test]
    fn oscillator_gramian_has_the_closed_form() {
        // A = [0 1; -k -b], C = diag(0, 1): X = [1/(2bk) 0; 0 1/(2b)] (the controllability
        // Gramian of a damped oscillator, complex eigenvalues: a 2x2 Schur block).
        let (k, b) = (4.0, 0.5);
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -k, -b]);
        let c = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 0.0, 1.0]);
        let x = solve_lyapunov(&a, &c).unwrap();
        let expected =
            DMatrix::from_row_slice(2, 2, &[1.0 / (2.0 * b * k), 0.0, 0.0, 1.0 / (2.0 * b)]);
        assert!((x - expected).norm() < 1e-14);
    }

    #[test]
    fn random_stable_systems_have_small_residuals() {
        for (seed, n) in [(1, 3), (2, 6), (3, 11), (4, 24)] {
            // Shift a random matrix so that it is Hurwitz; mixed real and complex eigenvalues.
            let m = random_matrix(n, n, seed);
            let shift = m
                .clone()
                .complex_eigenvalues()
                .iter()
                .map(|l| l.re)
                .fold(f64::MIN, f64::max);
            let a = m - DMatrix::identity(n, n) * (shift + 0.5);
            let c = random_matrix(n, n, seed + 100);
            let x = solve_lyapunov(&a, &c).unwrap();
            assert!(
                residual(&a, &x, &c) < 1e-12,
                "n = {n}: residual {}",
                residual(&a, &x, &c)
            );
        }
    }

    #[test]
    fn eigenvalues_summing_to_zero_are_reported() {
        // Eigenvalues ±1: λ1 + λ2 = 0 makes the equation singular.
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        let c = DMatrix::identity(2, 2);
        assert!(matches!(
            solve_lyapunov(&a, &c),
            Err(CodesignError::SingularLyapunov)
        ));
    }
}
