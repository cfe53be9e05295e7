//! The LU factors of the simplified-Newton matrix `I - c J` of an implicit method, by the
//! factorization that is fastest for its size and structure: nalgebra's dense LU for small
//! systems, faer's dense LU for larger dense ones, faer's sparse LU for large sparse ones,
//! which reuses one symbolic analysis of the fixed pattern across refactorizations.
//!
//! The crossovers were measured with the `lu_crossover` example (docs/benchmarks.md).

use faer::linalg::solvers::{PartialPivLu, ShapeCore, Solve};
use faer::sparse::linalg::solvers::{Lu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{MatMut, MatRef};
use nalgebra::{DMatrix, Dyn, LU};

use super::jacobian::Jacobian;
use super::sparsity::Sparsity;

/// Dimension from which faer's dense LU is used instead of nalgebra's.
pub const FAER_DENSE_FROM: usize = 64;
/// Dimension from which a sparse Jacobian is factored sparse (below, densely).
pub const SPARSE_FROM: usize = 48;
/// A sparse Jacobian with more than this fraction of non-zero entries is factored densely.
pub const SPARSE_DENSITY: f64 = 0.1;

/// Which factorization [`IterationMatrix::factor`] chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factorization {
    /// nalgebra's dense LU with partial pivoting.
    SmallDense,
    /// faer's dense LU with partial pivoting.
    Dense,
    /// faer's sparse LU.
    Sparse,
}

impl Factorization {
    /// The factorization for `jacobian`.
    pub fn for_jacobian(jacobian: &Jacobian) -> Self {
        let n = jacobian.n();
        match jacobian.as_sparse() {
            Some((sparsity, _))
                if n >= SPARSE_FROM
                    && (sparsity.nonzeros() as f64) <= SPARSE_DENSITY * (n * n) as f64 =>
            {
                Factorization::Sparse
            }
            _ if n >= FAER_DENSE_FROM => Factorization::Dense,
            _ => Factorization::SmallDense,
        }
    }
}

/// The factors of `I - c J`, and what a sparse refactorization reuses.
#[derive(Default)]
pub struct IterationMatrix {
    /// `c` and the factors, while valid.
    factors: Option<(f64, Factors)>,
    /// The pattern of `I - c J` and its symbolic factorization, once built.
    sparse: Option<SparsePattern>,
    /// A factorization to use whatever the size (for measurements and comparisons).
    forced: Option<Factorization>,
}

/// LU factors by one of the [`Factorization`]s.
enum Factors {
    SmallDense(LU<f64, Dyn, Dyn>),
    Dense(PartialPivLu<f64>),
    Sparse(Lu<usize, f64>),
}

/// The pattern of `I - c J` (that of `J` plus the diagonal), where `J`'s entries and the
/// diagonal go in its values, and its symbolic LU.
struct SparsePattern {
    /// The Jacobian's pattern this was built for.
    jacobian: Sparsity,
    pattern: SymbolicSparseColMat<usize>,
    /// The position of each entry of `J` among the values.
    from_jacobian: Vec<usize>,
    /// The position of each diagonal entry among the values.
    diagonal: Vec<usize>,
    symbolic: SymbolicLu<usize>,
    /// The values of `I - c J` (kept for their capacity).
    values: Vec<f64>,
}

impl SparsePattern {
    /// `None` when faer cannot analyse the pattern (out of memory).
    fn new(jacobian: &Sparsity) -> Option<Self> {
        let with_diagonal = jacobian.with_diagonal();
        let n = jacobian.n();
        let position = |i: usize, j: usize| {
            let offset = with_diagonal
                .column(j)
                .binary_search(&i)
                .expect("the pattern with the diagonal contains the Jacobian's");
            with_diagonal.positions(j).start + offset
        };
        let mut from_jacobian = Vec::with_capacity(jacobian.nonzeros());
        for j in 0..n {
            from_jacobian.extend(jacobian.column(j).iter().map(|&i| position(i, j)));
        }
        let diagonal = (0..n).map(|j| position(j, j)).collect();
        let pattern = SymbolicSparseColMat::new_checked(
            n,
            n,
            with_diagonal.column_starts().to_vec(),
            None,
            with_diagonal.rows().to_vec(),
        );
        let symbolic = SymbolicLu::try_new(pattern.as_ref()).ok()?;
        Some(SparsePattern {
            jacobian: jacobian.clone(),
            values: vec![0.0; with_diagonal.nonzeros()],
            pattern,
            from_jacobian,
            diagonal,
            symbolic,
        })
    }

    /// The LU factors of `I - c J` for `J` on this pattern; `None` when singular.
    fn factor(&mut self, jacobian: &[f64], c: f64) -> Option<Lu<usize, f64>> {
        self.values.fill(0.0);
        for (&k, &v) in self.from_jacobian.iter().zip(jacobian) {
            self.values[k] = -c * v;
        }
        for &k in &self.diagonal {
            self.values[k] += 1.0;
        }
        let matrix = SparseColMatRef::new(self.pattern.as_ref(), &self.values);
        Lu::try_new_with_symbolic(self.symbolic.clone(), matrix).ok()
    }
}

impl IterationMatrix {
    /// Factors with `factorization` whatever the size; [`Factorization::Sparse`] needs a
    /// sparse Jacobian (a dense one is factored densely).
    pub fn forced(factorization: Factorization) -> Self {
        IterationMatrix {
            forced: Some(factorization),
            ..IterationMatrix::default()
        }
    }

    /// Whether the factors are those of `I - c J` for the current `J`.
    pub fn is_factored_for(&self, c: f64) -> bool {
        self.factors
            .as_ref()
            .is_some_and(|(factored, _)| *factored == c)
    }

    /// Forgets the factors (the Jacobian changed).
    pub fn invalidate(&mut self) {
        self.factors = None;
    }

    /// Factors `I - c J`; returns false when it is singular.
    pub fn factor(&mut self, jacobian: &Jacobian, c: f64) -> bool {
        let factorization = self
            .forced
            .unwrap_or_else(|| Factorization::for_jacobian(jacobian));
        let factors = match (factorization, jacobian.as_sparse()) {
            (Factorization::Sparse, Some((sparsity, values))) => {
                if self.sparse.as_ref().is_none_or(|s| s.jacobian != *sparsity) {
                    self.sparse = SparsePattern::new(sparsity);
                }
                match self.sparse.as_mut() {
                    Some(pattern) => pattern.factor(values, c).map(Factors::Sparse),
                    None => Some(Self::dense_factors(jacobian, c)),
                }
            }
            (Factorization::SmallDense, _) => {
                let lu = Self::dense_matrix(jacobian, c).lu();
                lu.is_invertible().then_some(Factors::SmallDense(lu))
            }
            _ => Some(Self::dense_factors(jacobian, c)),
        };
        self.factors = factors.map(|f| (c, f));
        self.factors.is_some() && !self.has_zero_pivot()
    }

    /// `I - c J` as a dense matrix.
    fn dense_matrix(jacobian: &Jacobian, c: f64) -> DMatrix<f64> {
        let n = jacobian.n();
        let scaled = match jacobian.as_dense() {
            Some(matrix) => matrix * c,
            None => jacobian.to_dense() * c,
        };
        DMatrix::identity(n, n) - scaled
    }

    /// faer's dense LU of `I - c J`.
    fn dense_factors(jacobian: &Jacobian, c: f64) -> Factors {
        let n = jacobian.n();
        let matrix = Self::dense_matrix(jacobian, c);
        let view = MatRef::from_column_major_slice(matrix.as_slice(), n, n);
        Factors::Dense(PartialPivLu::new(view))
    }

    /// Whether faer's factors have a zero pivot (nalgebra's are checked as they are made).
    /// The sparse factors do not show their pivots: a zero one makes a solve non-finite.
    fn has_zero_pivot(&self) -> bool {
        match &self.factors {
            Some((_, Factors::Dense(lu))) => {
                let u = lu.U();
                (0..u.nrows()).any(|i| u[(i, i)] == 0.0)
            }
            Some((_, Factors::Sparse(lu))) => {
                let mut ones = vec![1.0; lu.nrows()];
                lu.solve_in_place(MatMut::from_column_major_slice_mut(
                    &mut ones,
                    lu.nrows(),
                    1,
                ));
                ones.iter().any(|v| !v.is_finite())
            }
            _ => false,
        }
    }

    /// Solves `(I - c J) y = b` in place of `b`.
    ///
    /// # Panics
    /// When nothing is factored: [`Self::factor`] must have returned true.
    pub fn solve_mut(&self, b: &mut [f64]) {
        let (_, factors) = self
            .factors
            .as_ref()
            .expect("the iteration matrix is factored before it is solved with");
        match factors {
            Factors::SmallDense(lu) => {
                let mut column = nalgebra::DVectorViewMut::from_slice(b, b.len());
                lu.solve_mut(&mut column);
            }
            Factors::Dense(lu) => {
                let n = b.len();
                lu.solve_in_place(MatMut::from_column_major_slice_mut(b, n, 1));
            }
            Factors::Sparse(lu) => {
                let n = b.len();
                lu.solve_in_place(MatMut::from_column_major_slice_mut(b, n, 1));
            }
        }
    }

    /// The factorization in use, if any.
    pub fn factorization(&self) -> Option<Factorization> {
        self.factors.as_ref().map(|(_, factors)| match factors {
            Factors::SmallDense(_) => Factorization::SmallDense,
            Factors::Dense(_) => Factorization::Dense,
            Factors::Sparse(_) => Factorization::Sparse,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tridiagonal `n x n` Jacobian of the 1-D Laplacian times `scale`, sparse or dense.
    fn laplacian(n: usize, scale: f64, sparse: bool) -> Jacobian {
        let rows: Vec<Vec<usize>> = (0..n)
            .map(|i| (i.saturating_sub(1)..(i + 2).min(n)).collect())
            .collect();
        let mut jacobian = if sparse {
            Jacobian::sparse(Sparsity::from_rows(&rows).unwrap())
        } else {
            Jacobian::dense(n)
        };
        for (i, row) in rows.iter().enumerate() {
            for &j in row {
                jacobian.set(i, j, scale * if i == j { -2.0 } else { 1.0 });
            }
        }
        jacobian
    }

    #[test]
    fn every_factorization_solves_the_same_system() {
        for n in [5, 60, 200] {
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
            let mut solutions = Vec::new();
            for sparse in [false, true] {
                let jacobian = laplacian(n, 1e4, sparse);
                let mut matrix = IterationMatrix::default();
                assert!(matrix.factor(&jacobian, 0.01));
                let expected = if sparse && n >= SPARSE_FROM {
                    Factorization::Sparse
                } else if n >= FAER_DENSE_FROM {
                    Factorization::Dense
                } else {
                    Factorization::SmallDense
                };
                assert_eq!(
                    matrix.factorization(),
                    Some(expected),
                    "n {n} sparse {sparse}"
                );
                let mut x = b.clone();
                matrix.solve_mut(&mut x);
                // The residual of (I - c J) x = b.
                let dense = jacobian.to_dense();
                for i in 0..n {
                    let row: f64 = (0..n).map(|j| -0.01 * dense[(i, j)] * x[j]).sum();
                    assert!((x[i] + row - b[i]).abs() < 1e-9, "n {n} row {i}");
                }
                solutions.push(x);
            }
            for (a, b) in solutions[0].iter().zip(&solutions[1]) {
                assert!((a - b).abs() < 1e-12 * a.abs().max(1.0));
            }
        }
    }

    #[test]
    fn a_singular_matrix_is_reported_by_every_factorization() {
        for (n, sparse) in [(3, false), (100, false), (100, true)] {
            // c J = I: I - c J = 0.
            let mut jacobian = laplacian(n, 0.0, sparse);
            for i in 0..n {
                jacobian.set(i, i, 1.0);
            }
            let mut matrix = IterationMatrix::default();
            assert!(!matrix.factor(&jacobian, 1.0), "n {n} sparse {sparse}");
        }
    }

    #[test]
    fn a_refactorization_reuses_the_symbolic_analysis() {
        let mut matrix = IterationMatrix::default();
        let jacobian = laplacian(100, 1.0, true);
        assert!(matrix.factor(&jacobian, 0.5));
        let analysed = matrix.sparse.as_ref().map(|s| s.values.as_ptr());
        assert!(matrix.factor(&laplacian(100, 2.0, true), 0.25));
        // A new analysis would have allocated new buffers before dropping the old ones.
        assert_eq!(matrix.sparse.as_ref().map(|s| s.values.as_ptr()), analysed);
    }
}
