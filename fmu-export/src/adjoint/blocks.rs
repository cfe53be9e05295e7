//! Jacobians of a function with respect to several argument blocks at once, by forward-mode
//! dual numbers carrying [`LANES`] tangents each: one evaluation yields that many columns, so
//! a step's whole linearization usually takes one evaluation of the model instead of one per
//! column (the work outside the tangents' arithmetic, the model's own bookkeeping and
//! allocations, is paid once).

use std::cell::RefCell;

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
pub fn block_jacobians<F>(blocks: &[&[f64]], rows: usize, f: F) -> (Vec<Matrix>, Vec<f64>)
where
    F: FnMut(&[&[Lanes]], &mut [Lanes]),
{
    let mut matrices: Vec<Matrix> = blocks
        .iter()
        .map(|b| Matrix::zeros(rows, b.len()))
        .collect();
    let mut targets: Vec<&mut Matrix> = matrices.iter_mut().collect();
    let mut value = vec![0.0; rows];
    block_jacobians_into(blocks, rows, &mut targets, Some(&mut value), f);
    (matrices, value)
}

/// [`block_jacobians`] into `jacobians` (one per block, reshaped here, keeping their
/// allocations), and the value of `f` into `value` if given: allocates nothing once the
/// matrices and this thread's evaluation buffers have their sizes.
pub fn block_jacobians_into<F>(
    blocks: &[&[f64]],
    rows: usize,
    jacobians: &mut [&mut Matrix],
    value: Option<&mut [f64]>,
    f: F,
) where
    F: FnMut(&[&[Lanes]], &mut [Lanes]),
{
    assert!(
        blocks.len() <= MAX_BLOCKS,
        "at most {MAX_BLOCKS} argument blocks"
    );
    assert_eq!(
        blocks.len(),
        jacobians.len(),
        "one Jacobian per argument block"
    );
    BUFFERS.with(|buffers| match buffers.try_borrow_mut() {
        Ok(mut buffers) => evaluate(blocks, rows, jacobians, value, f, &mut buffers),
        // `f` itself linearizes something: it gets buffers of its own.
        Err(_) => evaluate(blocks, rows, jacobians, value, f, &mut Buffers::default()),
    })
}

/// The dual point and outputs of [`block_jacobians_into`], kept per thread: a linearization
/// runs for every step VJP, and allocating these each time cost more than the arithmetic.
#[derive(Default)]
struct Buffers {
    point: Vec<f64>,
    x: Vec<Lanes>,
    out: Vec<Lanes>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::default();
}

/// The work of [`block_jacobians_into`] with `buffers`.
fn evaluate<F>(
    blocks: &[&[f64]],
    rows: usize,
    jacobians: &mut [&mut Matrix],
    value: Option<&mut [f64]>,
    mut f: F,
    buffers: &mut Buffers,
) where
    F: FnMut(&[&[Lanes]], &mut [Lanes]),
{
    let Buffers { point, x, out } = buffers;
    point.clear();
    blocks.iter().for_each(|b| point.extend_from_slice(b));
    let cols = point.len();
    x.clear();
    x.extend(point.iter().map(|&v| Lanes::from(v)));
    out.clear();
    out.resize(rows, Lanes::from(0.0));
    for (jacobian, block) in jacobians.iter_mut().zip(blocks) {
        jacobian.reset(rows, block.len());
    }
    for first in (0..cols.max(1)).step_by(LANES) {
        let seeded = first..(first + LANES).min(cols);
        for j in seeded.clone() {
            x[j] = Lanes::from(point[j]).derivative(j - first);
        }
        out.iter_mut().for_each(|o| *o = Lanes::from(0.0));
        let mut parts: [&[Lanes]; MAX_BLOCKS] = [&[]; MAX_BLOCKS];
        let mut rest = x.as_slice();
        for (part, block) in parts.iter_mut().zip(blocks) {
            let (head, tail) = rest.split_at(block.len());
            *part = head;
            rest = tail;
        }
        f(&parts[..blocks.len()], out);
        for (i, o) in out.iter().enumerate() {
            // No tangent at all: the output does not depend on these columns.
            let Some(eps) = &o.eps.0 else { continue };
            let mut offset = 0;
            for jacobian in jacobians.iter_mut() {
                let len = jacobian.cols();
                let columns = seeded.start.max(offset)..seeded.end.min(offset + len);
                for j in columns {
                    jacobian.set(i, j - offset, eps[j - first]);
                }
                offset += len;
            }
        }
        // Unseeded for the next evaluation only: the next call lifts the point afresh.
        if seeded.end < cols {
            for j in seeded {
                x[j] = Lanes::from(point[j]);
            }
        }
    }
    if let Some(value) = value {
        value
            .iter_mut()
            .zip(out.iter())
            .for_each(|(v, o)| *v = o.re);
    }
}

/// The most argument blocks [`block_jacobians`] splits a point into.
const MAX_BLOCKS: usize = 8;

/// A vector lifted into dual numbers once, whose leading entries each evaluation replaces
/// (the differentiated part of a longer vector): no allocation per Jacobian column.
#[derive(Default)]
pub struct Leading {
    values: Vec<Lanes>,
}

impl Leading {
    /// Lifts `values` in place of the previous ones, keeping the allocation.
    pub fn lift(&mut self, values: &[f64]) {
        self.values.clear();
        self.values.extend(values.iter().map(|&v| Lanes::from(v)));
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
            out[0] = all
                .iter()
                .enumerate()
                .map(|(i, v)| *v * (i as f64 + 1.0))
                .sum();
            out[1] = all[0] * all[n - 1].sin();
        });
        assert_eq!(evaluations, 3);
        assert_eq!(
            value[0],
            x.iter()
                .enumerate()
                .map(|(i, v)| v * (i as f64 + 1.0))
                .sum::<f64>()
        );
        let column = |j: usize| {
            let (block, local) = if j < a.len() {
                (0, j)
            } else {
                (1, j - a.len())
            };
            (
                jacobians[block].get(0, local),
                jacobians[block].get(1, local),
            )
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
