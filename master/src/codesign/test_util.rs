//! Helpers shared by the co-design unit tests.

use nalgebra::DMatrix;

/// A reproducible matrix with entries in [-1, 1) (a linear congruential generator, so that
/// the tests need no random-number crate).
pub fn random_matrix(rows: usize, cols: usize, seed: u64) -> DMatrix<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    DMatrix::from_fn(rows, cols, |_, _| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    })
}

/// |a − b| / |b|.
pub fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}
