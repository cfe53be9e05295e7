//! Jacobians of a function with respect to several argument blocks at once, by forward-mode
//! dual numbers carrying [`LANES`] tangents each: one evaluation yields that many columns, so
//! a step's whole linearization usually takes one evaluation of the model instead of one per
//! column (the work outside the tangents' arithmetic, the model's own bookkeeping and
//! allocations, is paid once).

use num_dual::DualSVec64;

use super::matrix::Matrix;

/// Jacobian columns one evaluation computes.
pub const LANES: usize = 16;

/// A dual number with [`LANES`] tangents, the scalar the linearizations evaluate models in.
pub type Lanes = DualSVec64<LANES>;

/// The Jacobians of `f` (with `rows` outputs) with respect to each of `blocks` at that point,
/// and the value of `f`.
///
/// `f(args, out)` receives the blocks as dual slices, in order, and writes all `rows` outputs.
/// It runs once per [`LANES`] columns, each run seeding the next columns' unit tangents.
pub fn block_jacobians<F>(blocks: &[&[f64]], rows: usize, mut f: F) -> (Vec<Matrix>, Vec<f64>)
where
    F: FnMut(&[&[Lanes]], &mut [Lanes]),
{
    assert!(blocks.len() <= MAX_BLOCKS, "at most {MAX_BLOCKS} argument blocks");
    let point = blocks.concat();
    let lengths: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
    let cols = point.len();
    let mut x: Vec<Lanes> = point.iter().map(|&v| Lanes::from(v)).collect();
    let mut out = vec![Lanes::from(0.0); rows];
    // Row-major over all blocks' columns.
    let mut jac = vec![0.0; rows * cols];
    let mut value = vec![0.0; rows];
    for first in (0..cols.max(1)).step_by(LANES) {
        let seeded = first..(first + LANES).min(cols);
        for j in seeded.clone() {
            x[j] = Lanes::from(point[j]).derivative(j - first);
        }
        out.iter_mut().for_each(|o| *o = Lanes::from(0.0));
        let mut parts: [&[Lanes]; MAX_BLOCKS] = [&[]; MAX_BLOCKS];
        let mut rest = x.as_slice();
        for (part, &len) in parts.iter_mut().zip(&lengths) {
            let (head, tail) = rest.split_at(len);
            *part = head;
            rest = tail;
        }
        f(&parts[..lengths.len()], &mut out);
        for (i, o) in out.iter().enumerate() {
            // No tangent at all: the output does not depend on these columns.
            if let Some(eps) = &o.eps.0 {
                for j in seeded.clone() {
                    jac[i * cols + j] = eps[j - first];
                }
            }
        }
        if first == 0 {
            value.iter_mut().zip(&out).for_each(|(v, o)| *v = o.re);
        }
        for j in seeded {
            x[j] = Lanes::from(point[j]);
        }
    }
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
    values: Vec<Lanes>,
}

impl Leading {
    /// `values` lifted, with zero tangents.
    pub fn new(values: &[f64]) -> Self {
        Leading { values: values.iter().map(|&v| Lanes::from(v)).collect() }
    }

    /// The lifted values with `leading` replacing the first entries.
    pub fn with(&mut self, leading: &[Lanes]) -> &[Lanes] {
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

    #[test]
    fn columns_beyond_one_evaluation_are_seeded_in_turn() {
        // 2 * LANES + 3 columns over two blocks: three evaluations, the last one partial.
        let n = 2 * LANES + 3;
        let x: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 + 0.3).collect();
        let (a, b) = x.split_at(LANES + 1);
        let mut evaluations = 0;
        let (jacobians, value) = block_jacobians(&[a, b], 2, |args, out| {
            evaluations += 1;
            let all: Vec<Lanes> = args[0].iter().chain(args[1]).copied().collect();
            out[0] = all.iter().enumerate().map(|(i, v)| *v * (i as f64 + 1.0)).sum();
            out[1] = all[0] * all[n - 1].sin();
        });
        assert_eq!(evaluations, 3);
        assert_eq!(value[0], x.iter().enumerate().map(|(i, v)| v * (i as f64 + 1.0)).sum::<f64>());
        let column = |j: usize| {
            let (block, local) = if j < a.len() { (0, j) } else { (1, j - a.len()) };
            (jacobians[block].get(0, local), jacobians[block].get(1, local))
        };
        for j in 0..n {
            let expected_second = match j {
                0 => x[n - 1].sin(),
                j if j == n - 1 => x[0] * x[n - 1].cos(),
                _ => 0.0,
            };
            assert_eq!(column(j), (j as f64 + 1.0, expected_second), "column {j}");
        }
    }
}
