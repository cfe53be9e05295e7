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
    assert!(blocks.len() <= MAX_BLOCKS, "at most {MAX_BLOCKS} argument blocks");
    let point = blocks.concat();
    let lengths: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
    let (jac, value) = jacobian(&point, rows, |x, out| {
        // On the stack: this runs once per column.
        let mut parts: [&[Dual64]; MAX_BLOCKS] = [&[]; MAX_BLOCKS];
        let mut rest = x;
        for (part, &len) in parts.iter_mut().zip(&lengths) {
            let (head, tail) = rest.split_at(len);
            *part = head;
            rest = tail;
        }
        f(&parts[..lengths.len()], out)
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

/// The most argument blocks [`block_jacobians`] splits a point into.
const MAX_BLOCKS: usize = 8;

/// A vector lifted into dual numbers once, whose leading entries each evaluation replaces
/// (the differentiated part of a longer vector): no allocation per Jacobian column.
pub struct Leading {
    values: Vec<Dual64>,
}

impl Leading {
    /// `values` lifted, with zero tangents.
    pub fn new(values: &[f64]) -> Self {
        Leading { values: values.iter().map(|&v| Dual64::from(v)).collect() }
    }

    /// The lifted values with `leading` replacing the first entries.
    pub fn with(&mut self, leading: &[Dual64]) -> &[Dual64] {
        self.values[..leading.len()].copy_from_slice(leading);
        &self.values
    }
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
