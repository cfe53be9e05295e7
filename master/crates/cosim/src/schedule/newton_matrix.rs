//! The matrix of a Newton iteration on a fixed point `v = G(v)`, `I - dG/dv`, kept with its LU
//! factors from one iteration (and one communication point) to the next, and Broyden's
//! rank-one update of it: the algebraic loops' tear values ([`super::algebraic_loops`], `G` a
//! pass through the participants) and an implicit coupling's interface ([`super::implicit`],
//! `G` the values the participants give at the end of a macro step).

use nalgebra::{DMatrix, DVector, Dyn, LU};

/// `I - dG/dv` and its LU factors.
#[derive(Debug, Clone)]
pub(super) struct Factors {
    matrix: DMatrix<f64>,
    lu: LU<f64, Dyn, Dyn>,
}

impl Factors {
    /// Factors `matrix`.
    pub(super) fn new(matrix: DMatrix<f64>) -> Self {
        let lu = matrix.clone().lu();
        Factors { matrix, lu }
    }

    /// Solves `(I - dG/dv) x = b` in place; false when the matrix is singular or the solution
    /// not finite.
    pub(super) fn solve_mut(&self, b: &mut DVector<f64>) -> bool {
        self.lu.solve_mut(b) && b.iter().all(|x| x.is_finite())
    }

    /// Broyden's ("good") update after an iteration moved the iterate by `dz` and the residual
    /// `v - G(v)` by `dg`: the least change of the matrix that maps `dz` to `dg`.
    pub(super) fn update(&mut self, dz: &DVector<f64>, dg: &DVector<f64>) {
        let norm = dz.norm_squared();
        if norm == 0.0 || !norm.is_finite() {
            return;
        }
        let mismatch = dg - &self.matrix * dz;
        self.matrix.ger(1.0 / norm, &mismatch, dz, 1.0);
        self.lu = self.matrix.clone().lu();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broyden_maps_the_step_to_the_residual_change_and_keeps_the_rest() {
        let mut factors = Factors::new(DMatrix::identity(2, 2));
        let (dz, dg) = (
            DVector::from_vec(vec![1.0, 0.0]),
            DVector::from_vec(vec![3.0, 2.0]),
        );
        factors.update(&dz, &dg);
        assert_eq!(&factors.matrix * &dz, dg);
        // A direction orthogonal to the step keeps its image.
        let across = DVector::from_vec(vec![0.0, 1.0]);
        assert_eq!(&factors.matrix * &across, across);
        let mut b = DVector::from_vec(vec![3.0, 2.0]);
        assert!(factors.solve_mut(&mut b));
        assert!((b - dz).norm() < 1e-15);
    }

    #[test]
    fn a_singular_matrix_solves_nothing() {
        let factors = Factors::new(DMatrix::zeros(2, 2));
        assert!(!factors.solve_mut(&mut DVector::from_vec(vec![1.0, 1.0])));
    }
}
