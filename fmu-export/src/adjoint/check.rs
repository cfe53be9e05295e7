//! Finite-difference checks of derivatives (validation only; no derivative an FMU exports is
//! computed this way).

use super::matrix::Matrix;

/// The Jacobian of the vector function `f` at `point` by central differences with the
/// absolute steps `steps`: column `j` is `(f(p + s_j e_j) - f(p - s_j e_j)) / (2 s_j)`.
pub fn central_difference_jacobian(
    point: &[f64],
    steps: &[f64],
    mut f: impl FnMut(&[f64]) -> Vec<f64>,
) -> Matrix {
    assert_eq!(
        point.len(),
        steps.len(),
        "central differences: one step per coordinate"
    );
    let columns: Vec<Vec<f64>> = (0..point.len())
        .map(|j| {
            let (mut plus, mut minus) = (point.to_vec(), point.to_vec());
            plus[j] += steps[j];
            minus[j] -= steps[j];
            let (up, down) = (f(&plus), f(&minus));
            up.iter()
                .zip(&down)
                .map(|(a, b)| (a - b) / (2.0 * steps[j]))
                .collect()
        })
        .collect();
    let rows = columns.first().map_or(0, Vec::len);
    let data = (0..rows)
        .flat_map(|i| columns.iter().map(move |c| c[i]))
        .collect();
    Matrix::from_row_major(rows, point.len(), data)
}

/// The gradient of the scalar function `f` at `point` by central differences.
pub fn central_differences(
    point: &[f64],
    steps: &[f64],
    mut f: impl FnMut(&[f64]) -> f64,
) -> Vec<f64> {
    central_difference_jacobian(point, steps, |p| vec![f(p)])
        .data()
        .to_vec()
}

/// Steps of `relative * |p_j|` (`relative` where `p_j = 0`).
pub fn relative_steps(point: &[f64], relative: f64) -> Vec<f64> {
    point
        .iter()
        .map(|p| {
            if *p == 0.0 {
                relative
            } else {
                relative * p.abs()
            }
        })
        .collect()
}

/// The largest componentwise relative error `|a_j - b_j| / |b_j|` of `actual` against
/// `reference` (components where the reference is zero count by their absolute error).
pub fn relative_error(actual: &[f64], reference: &[f64]) -> f64 {
    assert_eq!(
        actual.len(),
        reference.len(),
        "relative error: lengths differ"
    );
    actual
        .iter()
        .zip(reference)
        .map(|(a, b)| {
            if *b == 0.0 {
                a.abs()
            } else {
                (a - b).abs() / b.abs()
            }
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn central_differences_are_exact_for_quadratics() {
        let gradient =
            central_differences(&[1.0, -2.0], &[1e-3, 1e-3], |p| p[0] * p[0] + 3.0 * p[1]);
        assert!(
            relative_error(&gradient, &[2.0, 3.0]) < 1e-10,
            "{gradient:?}"
        );
        assert_eq!(relative_steps(&[0.0, -4.0], 1e-6), [1e-6, 4e-6]);
        assert_eq!(relative_error(&[1.1, 0.5], &[1.0, 0.0]), 0.5);
    }
}
