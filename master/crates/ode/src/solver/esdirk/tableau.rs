//! The Butcher tableau of `ESDIRK3(2)4L[2]SA`, the implicit part of Kennedy & Carpenter's
//! `ARK3(2)4L[2]SA` ("Additive Runge-Kutta schemes for convection-diffusion-reaction
//! equations", Applied Numerical Mathematics 44, 2003, table 2, and the method of the same name
//! in SUNDIALS' ARKODE).
//!
//! Four stages with an explicit first stage and diagonal `GAMMA`, stage order 2, stiffly
//! accurate (`B` is the last row of `A`, so the last stage value is the new state and `c_4 = 1`),
//! L-stable; the embedded weights `B_HAT` are of order 2. The values are the paper's rationals
//! rounded to double precision; the tests check the order conditions.

/// Number of stages.
pub const STAGES: usize = 4;

/// The diagonal coefficient `a_ii` of the implicit stages.
pub const GAMMA: f64 = 1767732205903.0 / 4055673282236.0;

/// Nodes `c_i`.
pub const C: [f64; STAGES] = [0.0, 1767732205903.0 / 2027836641118.0, 3.0 / 5.0, 1.0];

/// The strictly lower triangle of `A` (row `i` holds `a_i1 .. a_i,i-1`; `a_ii = GAMMA` for
/// `i >= 2`, `a_11 = 0`).
pub const A: [&[f64]; STAGES] = [
    &[],
    &[GAMMA],
    &[
        2746238789719.0 / 10658868560708.0,
        -640167445237.0 / 6845629431997.0,
    ],
    &[
        1471266399579.0 / 7840856788654.0,
        -4482444167858.0 / 7529755066697.0,
        11266239266428.0 / 11593286722821.0,
    ],
];

/// Weights of the third-order solution: the last row of `A` (stiffly accurate).
pub const B: [f64; STAGES] = [
    1471266399579.0 / 7840856788654.0,
    -4482444167858.0 / 7529755066697.0,
    11266239266428.0 / 11593286722821.0,
    GAMMA,
];

/// The strictly lower triangle of `A` and then the weights `B`, as rows of six: the layout of
/// [`crate::solver::StepLinearization`].
pub const ROWS: [[f64; 6]; STAGES + 1] = rows();

/// The diagonal of `A` (the first stage is explicit).
pub const DIAGONAL: [f64; STAGES] = [0.0, GAMMA, GAMMA, GAMMA];

const fn rows() -> [[f64; 6]; STAGES + 1] {
    let mut rows = [[0.0; 6]; STAGES + 1];
    let mut i = 0;
    while i < STAGES {
        let mut j = 0;
        while j < A[i].len() {
            rows[i][j] = A[i][j];
            j += 1;
        }
        rows[STAGES][i] = B[i];
        i += 1;
    }
    rows
}

/// Weights of the embedded second-order solution.
pub const B_HAT: [f64; STAGES] = [
    2756255671327.0 / 12835298489170.0,
    -10771552573575.0 / 22201958757719.0,
    9247589265047.0 / 10645013368117.0,
    2193209047091.0 / 5459859503100.0,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The full `A` as a dense matrix.
    fn dense() -> [[f64; STAGES]; STAGES] {
        let mut a = [[0.0; STAGES]; STAGES];
        for (i, row) in A.iter().enumerate() {
            a[i][..i].copy_from_slice(row);
            if i > 0 {
                a[i][i] = GAMMA;
            }
        }
        a
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The defects of the order conditions of orders 1, 2, 3 (two trees) for weights `b`.
    fn defects(b: &[f64; STAGES]) -> [f64; 4] {
        let a = dense();
        let c2: Vec<f64> = C.iter().map(|c| c * c).collect();
        let ac: Vec<f64> = a.iter().map(|row| dot(row, &C)).collect();
        [
            (b.iter().sum::<f64>() - 1.0).abs(),
            (dot(b, &C) - 0.5).abs(),
            (dot(b, &c2) - 1.0 / 3.0).abs(),
            (dot(b, &ac) - 1.0 / 6.0).abs(),
        ]
    }

    #[test]
    fn rows_sum_to_the_nodes_and_the_stage_order_is_two() {
        let a = dense();
        for i in 0..STAGES {
            let sum: f64 = a[i].iter().sum();
            assert!((sum - C[i]).abs() < 1e-15, "row {i}: {sum} vs {}", C[i]);
            let ac = dot(&a[i], &C);
            assert!(
                (ac - C[i] * C[i] / 2.0).abs() < 1e-15,
                "stage order, row {i}"
            );
        }
        assert_eq!(&B[..STAGES - 1], A[STAGES - 1]);
    }

    #[test]
    fn the_main_weights_have_order_three_and_the_embedded_ones_order_two() {
        let main = defects(&B);
        assert!(main.iter().all(|&d| d < 1e-15), "{main:?}");
        let embedded = defects(&B_HAT);
        assert!(embedded[..2].iter().all(|&d| d < 1e-15), "{embedded:?}");
        // Not of order three, so that the difference estimates the local error.
        assert!(embedded[2] > 1e-3, "{embedded:?}");
    }

    /// The stability function `R(z) = 1 + z b^T (I - z A)^{-1} 1` for real `z`.
    fn stability(b: &[f64; STAGES], z: f64) -> f64 {
        let a = dense();
        let mut y = [0.0; STAGES];
        for i in 0..STAGES {
            let explicit: f64 = (0..i).map(|j| a[i][j] * y[j]).sum();
            y[i] = (1.0 + z * explicit) / (1.0 - z * a[i][i]);
        }
        1.0 + z * dot(b, &y)
    }

    #[test]
    fn the_method_damps_infinitely_stiff_components() {
        assert!(stability(&B, -1e8).abs() < 1e-6);
        assert!((1..300).all(|k| stability(&B, -1.1f64.powi(k)).abs() <= 1.0));
        assert!((stability(&B, -0.01) - (-0.01f64).exp()).abs() < 1e-8);
    }
}
