//! The Butcher tableau of `ESDIRK4(3)6L[2]SA` (Kennedy & Carpenter, "Diagonally implicit
//! Runge-Kutta methods for ordinary differential equations. A review", NASA technical
//! memorandum, 2016, NTRS document 20160005923, table 16).
//!
//! Six stages, explicit first stage, diagonal `GAMMA = 1/4`, stage order 2, stiffly accurate
//! (`b` is the last row of `A`), L-stable; the embedded third-order weights `B_HAT` give an
//! L-stable method too, so its error estimate needs no filtering on stiff components.
//!
//! The coefficients are the double-precision values of the closed forms in the paper (with
//! `s = sqrt(2)`); the tests recompute the closed forms and check the order conditions.

/// Number of stages.
pub const STAGES: usize = 6;

/// The diagonal coefficient `a_ii` of the implicit stages.
pub const GAMMA: f64 = 0.25;

/// Nodes `c_i`: `0, 1/2, (2 - s)/4, 5/8, 26/25, 1`.
pub const C: [f64; STAGES] = [0.0, 0.5, 0.1464466094067262, 0.625, 1.04, 1.0];

/// The strictly lower triangle of `A` (row `i` holds `a_i1 .. a_i,i-1`; `a_ii = GAMMA` for
/// `i >= 2`, `a_11 = 0`).
pub const A: [&[f64]; STAGES] = [
    &[],
    &[0.25],
    &[-0.05177669529663689, -0.05177669529663689],
    &[
        -0.07655460838455727,
        -0.07655460838455727,
        0.5281092167691145,
    ],
    &[
        -0.7274063478261299,
        -0.7274063478261299,
        1.5849950617406794,
        0.6598176339115805,
    ],
    &[
        -0.01558763503571651,
        -0.01558763503571651,
        0.3876576709132033,
        0.5017726195721631,
        -0.10825502041393352,
    ],
];

/// Weights `b_i` of the fourth-order solution: the last row of `A` (stiffly accurate).
pub const B: [f64; STAGES] = [
    -0.01558763503571651,
    -0.01558763503571651,
    0.3876576709132033,
    0.5017726195721631,
    -0.10825502041393352,
    GAMMA,
];

/// Weights of the embedded third-order solution.
pub const B_HAT: [f64; STAGES] = [
    -0.09651334216818033,
    -0.09651334216818033,
    0.5228199509962342,
    0.5205678646221885,
    -0.08255805440762122,
    0.23219692312555915,
];

/// The diagonal entry `a_ii` of stage `i`.
pub fn diagonal(i: usize) -> f64 {
    if i == 0 {
        0.0
    } else {
        GAMMA
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full `A` as a dense matrix.
    fn dense() -> [[f64; STAGES]; STAGES] {
        let mut a = [[0.0; STAGES]; STAGES];
        for (i, row) in A.iter().enumerate() {
            a[i][..i].copy_from_slice(row);
            a[i][i] = diagonal(i);
        }
        a
    }

    fn times(a: &[[f64; STAGES]; STAGES], v: &[f64; STAGES]) -> [f64; STAGES] {
        std::array::from_fn(|i| (0..STAGES).map(|j| a[i][j] * v[j]).sum())
    }

    fn dot(a: &[f64; STAGES], b: &[f64; STAGES]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    fn pointwise(a: &[f64; STAGES], b: &[f64; STAGES]) -> [f64; STAGES] {
        std::array::from_fn(|i| a[i] * b[i])
    }

    /// The order conditions up to order four, as (elementary weight vector, 1 / gamma(tree)),
    /// grouped by order.
    fn conditions() -> Vec<Vec<([f64; STAGES], f64)>> {
        let a = dense();
        let one = [1.0; STAGES];
        let c2 = pointwise(&C, &C);
        let ac = times(&a, &C);
        vec![
            vec![(one, 1.0)],
            vec![(C, 1.0 / 2.0)],
            vec![(c2, 1.0 / 3.0), (ac, 1.0 / 6.0)],
            vec![
                (pointwise(&c2, &C), 1.0 / 4.0),
                (pointwise(&C, &ac), 1.0 / 8.0),
                (times(&a, &c2), 1.0 / 12.0),
                (times(&a, &ac), 1.0 / 24.0),
            ],
        ]
    }

    /// The largest violation of the order conditions of each order for weights `b`.
    fn defects(b: &[f64; STAGES]) -> Vec<f64> {
        conditions()
            .iter()
            .map(|order| {
                order
                    .iter()
                    .map(|(v, r)| (dot(b, v) - r).abs())
                    .fold(0.0, f64::max)
            })
            .collect()
    }

    #[test]
    fn coefficients_match_the_closed_forms() {
        let s = 2f64.sqrt();
        let closed: [&[f64]; STAGES] = [
            &[],
            &[0.25],
            &[(1.0 - s) / 8.0, (1.0 - s) / 8.0],
            &[
                (5.0 - 7.0 * s) / 64.0,
                (5.0 - 7.0 * s) / 64.0,
                7.0 * (1.0 + s) / 32.0,
            ],
            &[
                (-13796.0 - 54539.0 * s) / 125000.0,
                (-13796.0 - 54539.0 * s) / 125000.0,
                (506605.0 + 132109.0 * s) / 437500.0,
                166.0 * (-97.0 + 376.0 * s) / 109375.0,
            ],
            &[
                (1181.0 - 987.0 * s) / 13782.0,
                (1181.0 - 987.0 * s) / 13782.0,
                47.0 * (-267.0 + 1783.0 * s) / 273343.0,
                -16.0 * (-22922.0 + 3525.0 * s) / 571953.0,
                -15625.0 * (97.0 + 376.0 * s) / 90749876.0,
            ],
        ];
        let b_hat = [
            -480923228411.0 / 4982971448372.0,
            -480923228411.0 / 4982971448372.0,
            6709447293961.0 / 12833189095359.0,
            3513175791894.0 / 6748737351361.0,
            -498863281070.0 / 6042575550617.0,
            2077005547802.0 / 8945017530137.0,
        ];
        let close = |x: f64, y: f64| (x - y).abs() <= 4.0 * f64::EPSILON * y.abs().max(1.0);
        for (row, expected) in A.iter().zip(closed) {
            assert!(
                row.iter().zip(expected).all(|(&x, &y)| close(x, y)),
                "{row:?}"
            );
        }
        assert!(B_HAT.iter().zip(b_hat).all(|(&x, y)| close(x, y)));
        assert!(close(C[2], (2.0 - s) / 4.0));
        // Stiffly accurate: b is the last row of A.
        assert_eq!(B[..STAGES - 1], *A[STAGES - 1]);
        assert_eq!(B[STAGES - 1], diagonal(STAGES - 1));
    }

    #[test]
    fn row_sums_are_the_nodes_and_the_stage_order_is_two() {
        let a = dense();
        let row_sums = times(&a, &[1.0; STAGES]);
        let ac = times(&a, &C);
        for i in 0..STAGES {
            assert!(
                (row_sums[i] - C[i]).abs() < 1e-15,
                "row {i}: {} vs {}",
                row_sums[i],
                C[i]
            );
            assert!(
                (ac[i] - C[i] * C[i] / 2.0).abs() < 1e-15,
                "stage order, row {i}"
            );
        }
    }

    #[test]
    fn the_main_weights_have_order_four_and_the_embedded_ones_order_three() {
        let main = defects(&B);
        assert!(main.iter().all(|&d| d < 1e-15), "{main:?}");
        let embedded = defects(&B_HAT);
        assert!(embedded[..3].iter().all(|&d| d < 1e-15), "{embedded:?}");
        // Not of order four, so that the difference estimates the local error.
        assert!(embedded[3] > 1e-4, "{embedded:?}");
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
    fn both_solutions_damp_infinitely_stiff_components() {
        for b in [&B, &B_HAT] {
            assert!(stability(b, -1e8).abs() < 1e-6);
            // A-stable along the negative real axis, and close to exp(z) for small z.
            assert!((1..200).all(|k| stability(b, -1.1f64.powi(k)).abs() <= 1.0));
            assert!((stability(b, -0.01) - (-0.01f64).exp()).abs() < 1e-9);
        }
    }
}
