//! Dense LU factorization with partial pivoting, generic over the scalar type so that the
//! same solver runs inside dual-number evaluations (exact derivatives through linear solves).

use crate::scalar::Scalar;
use crate::small::{Small, SmallMatrix};

/// The matrix was singular to working precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular {
    /// Elimination column at which no usable pivot was found.
    pub column: usize,
}

/// `P A = L U` of a square row-major matrix.
#[derive(Clone, Debug)]
pub struct Lu<T> {
    n: usize,
    lu: SmallMatrix<T>,
    pivots: Small<usize>,
}

impl<T: Scalar> Lu<T> {
    /// Factors the `n x n` row-major matrix `a` (a [`SmallMatrix`] one is factored in place,
    /// without allocating when it is small).
    pub fn factor(a: impl Into<SmallMatrix<T>>, n: usize) -> Result<Self, Singular> {
        let mut lu = a.into();
        let mut pivots = Small::with_capacity(n);
        factor_in_place(&mut lu, n, &mut pivots)?;
        Ok(Lu { n, lu, pivots })
    }

    /// Dimension of the factored matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Solves `A x = b` in place.
    pub fn solve(&self, b: &mut [T]) {
        solve_factored(&self.lu, &self.pivots, b);
    }

    /// Solves `A^T x = b` in place (adjoint solves reuse the forward factorization).
    pub fn solve_transposed(&self, b: &mut [T]) {
        let n = self.n;
        let column = |i: usize, rows: std::ops::Range<usize>| rows.map(move |j| self.lu[j * n + i]);
        for i in 0..n {
            let s = column(i, 0..i)
                .zip(&b[..i])
                .fold(b[i], |s, (u, &x)| s - u * x);
            b[i] = s / self.lu[i * n + i];
        }
        for i in (0..n).rev() {
            b[i] = column(i, i + 1..n)
                .zip(&b[i + 1..])
                .fold(b[i], |s, (l, &x)| s - l * x);
        }
        for (k, &p) in self.pivots.iter().enumerate().rev() {
            b.swap(k, p);
        }
    }
}

/// Overwrites the `n x n` row-major `a` with `L` and `U` of `P A = L U` and `pivots` with `P`.
fn factor_in_place<T: Scalar>(
    a: &mut [T],
    n: usize,
    pivots: &mut Small<usize>,
) -> Result<(), Singular> {
    assert_eq!(a.len(), n * n, "matrix buffer must hold n*n entries");
    let scale = a
        .iter()
        .fold(0.0f64, |m, v| m.max(v.real().abs()))
        .max(f64::MIN_POSITIVE);
    pivots.clear();
    for k in 0..n {
        let (p, best) = (k..n)
            .map(|i| (i, a[i * n + k].real().abs()))
            .fold((k, -1.0), |acc, cur| if cur.1 > acc.1 { cur } else { acc });
        // The negated comparison also rejects a NaN pivot.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let negligible = !(best > scale * 1e-300);
        if negligible || !best.is_finite() {
            return Err(Singular { column: k });
        }
        pivots.push(p);
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        let pivot = a[k * n + k];
        for i in (k + 1)..n {
            let factor = a[i * n + k] / pivot;
            a[i * n + k] = factor;
            for j in (k + 1)..n {
                let akj = a[k * n + j];
                a[i * n + j] -= factor * akj;
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` in place from the factors `lu` and `pivots` of [`factor_in_place`].
fn solve_factored<T: Scalar>(lu: &[T], pivots: &[usize], b: &mut [T]) {
    let n = pivots.len();
    for (k, &p) in pivots.iter().enumerate() {
        b.swap(k, p);
    }
    for i in 0..n {
        let row = &lu[i * n..i * n + i];
        b[i] = row.iter().zip(&b[..i]).fold(b[i], |s, (&l, &x)| s - l * x);
    }
    for i in (0..n).rev() {
        let row = &lu[i * n + i + 1..(i + 1) * n];
        let s = row
            .iter()
            .zip(&b[i + 1..])
            .fold(b[i], |s, (&u, &x)| s - u * x);
        b[i] = s / lu[i * n + i];
    }
}

/// Solves `A x = b` for one right-hand side, factoring `a` where it is (moving a matrix of
/// dual numbers into an [`Lu`] copied kilobytes per solve, which showed in the gradient's
/// profile).
pub fn solve<T: Scalar>(
    a: impl Into<SmallMatrix<T>>,
    b: &mut [T],
    n: usize,
) -> Result<(), Singular> {
    let mut a = a.into();
    let mut pivots = Small::with_capacity(n);
    factor_in_place(&mut a, n, &mut pivots)?;
    solve_factored(&a, &pivots, b);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matvec(a: &[f64], x: &[f64], n: usize, transposed: bool) -> Vec<f64> {
        (0..n)
            .map(|i| {
                (0..n).map(|j| if transposed { a[j * n + i] } else { a[i * n + j] } * x[j]).sum()
            })
            .collect()
    }

    #[test]
    fn solves_and_transposed_solves_a_pivoting_system() {
        let a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 5.0];
        let x = [1.0, -2.0, 0.5];
        let lu = Lu::factor(a.clone(), 3).unwrap();
        let mut b = matvec(&a, &x, 3, false);
        lu.solve(&mut b);
        let mut bt = matvec(&a, &x, 3, true);
        lu.solve_transposed(&mut bt);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14, "{b:?}");
            assert!((bt[i] - x[i]).abs() < 1e-14, "{bt:?}");
        }
    }

    #[test]
    fn reports_a_singular_matrix() {
        let a = vec![1.0, 2.0, 2.0, 4.0];
        assert_eq!(Lu::factor(a, 2).unwrap_err(), Singular { column: 1 });
    }
}
