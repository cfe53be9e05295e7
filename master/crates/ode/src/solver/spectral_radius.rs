//! The spectral radius of a Jacobian: how far out the fastest mode of the linearized problem
//! lies, which bounds the step an explicit method can take stably.

use nalgebra::DMatrix;

/// Iterations the Schur decomposition may take before the bound below is used instead.
const MAX_SCHUR_ITERATIONS: usize = 500;

/// The largest eigenvalue magnitude of `matrix` (square), from its real Schur form; when that
/// does not converge, the infinity norm, which bounds it from above (so that a caller deciding
/// whether a step is stable errs on the safe side).
pub fn spectral_radius(matrix: &DMatrix<f64>) -> f64 {
    if matrix.is_empty() {
        return 0.0;
    }
    if matrix.iter().any(|v| !v.is_finite()) {
        return f64::INFINITY;
    }
    match matrix.clone().try_schur(f64::EPSILON, MAX_SCHUR_ITERATIONS) {
        Some(schur) => schur
            .complex_eigenvalues()
            .iter()
            .map(|lambda| lambda.norm())
            .fold(0.0, f64::max),
        None => infinity_norm(matrix),
    }
}

/// The largest absolute row sum.
fn infinity_norm(matrix: &DMatrix<f64>) -> f64 {
    matrix
        .row_iter()
        .map(|row| row.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_and_complex_eigenvalues() {
        let diagonal = DMatrix::from_row_slice(2, 2, &[-3.0, 0.0, 0.0, -1e6]);
        assert!((spectral_radius(&diagonal) - 1e6).abs() < 1e-6);
        // Eigenvalues -1 ± 10i.
        let oscillator = DMatrix::from_row_slice(2, 2, &[-1.0, 10.0, -10.0, -1.0]);
        let radius = spectral_radius(&oscillator);
        assert!((radius - 101f64.sqrt()).abs() < 1e-9, "{radius}");
        assert_eq!(spectral_radius(&DMatrix::zeros(0, 0)), 0.0);
    }

    #[test]
    fn the_bound_is_not_below_the_radius() {
        let matrix = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, -3.0, 0.5]);
        assert!(infinity_norm(&matrix) >= spectral_radius(&matrix));
    }
}
