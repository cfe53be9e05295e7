//! Jacobians of a function with respect to several argument blocks at once, by forward-mode
//! dual numbers (one evaluation per column).

use crate::jacobian::jacobian;
use crate::scalar::Dual64;

use super::matrix::Matrix;

/// The Jacobians of `f` (with `rows` outputs) with respect to each of `blocks` at that point,
/// and the value of `f`.
///
/// `f(args, out)` receives the blocks as dual slices, in order, and writes all `rows` outputs.
pub fn block_jacobians<F>(blocks: &[&[f64]], rows: usize, mut f: F) -> (Vec<Matrix>, Vec<f64>)
where
    F: FnMut(&[&[Dual64]], &mut [Dual64]),
{
    let point = blocks.concat();
    let lengths: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
    let (jac, value) = jacobian(&point, rows, |x, out| {
        let mut parts = Vec::with_capacity(lengths.len());
        let mut rest = x;
        for &len in &lengths {
            let (part, tail) = rest.split_at(len);
            parts.push(part);
            rest = tail;
        }
        f(&parts, out)
    });
    let cols = point.len();
    let mut offset = 0;
    let matrices = lengths
        .iter()
        .map(|&len| {
            let data = (0..rows)
                .flat_map(|i| jac[i * cols + offset..i * cols + offset + len].iter().copied())
                .collect();
            offset += len;
            Matrix::from_row_major(rows, len, data)
        })
        .collect();
    (matrices, value)
}

/// `values` lifted into dual numbers, with `leading` replacing the first entries (the
/// differentiated part of a longer vector).
pub fn with_leading(values: &[f64], leading: &[Dual64]) -> Vec<Dual64> {
    let mut out: Vec<Dual64> = values.iter().map(|&v| Dual64::from(v)).collect();
    out[..leading.len()].copy_from_slice(leading);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::DualNum;

    #[test]
    fn blocks_split_the_jacobian_by_argument() {
        let (jacobians, value) = block_jacobians(&[&[2.0], &[3.0, 5.0]], 2, |args, out| {
            out[0] = args[0][0] * args[1][0];
            out[1] = args[1][1].powi(2) + args[0][0];
        });
        assert_eq!(value, [6.0, 27.0]);
        assert_eq!(jacobians[0].data(), [3.0, 1.0]);
        assert_eq!(jacobians[1].data(), [2.0, 0.0, 0.0, 10.0]);
    }
}
