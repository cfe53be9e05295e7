//! The Jacobian `df/dx` an implicit method iterates with, stored densely or on a known
//! sparsity pattern, and filled colour by colour: one product `J s` (a directional derivative
//! or a forward difference) per group of columns that share no row.

use nalgebra::DMatrix;

use super::colouring::Colouring;
use super::sparsity::Sparsity;

/// `df/dx` with the grouping of its columns into products.
#[derive(Debug, Clone)]
pub struct Jacobian {
    colouring: Colouring,
    values: Values,
}

/// The entries.
#[derive(Debug, Clone)]
enum Values {
    /// Every entry.
    Dense(DMatrix<f64>),
    /// The entries of the pattern, ordered like it.
    Sparse {
        sparsity: Sparsity,
        values: Vec<f64>,
    },
}

impl Jacobian {
    /// A dense `n x n` Jacobian, one product per column.
    pub fn dense(n: usize) -> Self {
        Jacobian {
            colouring: Colouring::dense(n),
            values: Values::Dense(DMatrix::zeros(n, n)),
        }
    }

    /// A Jacobian on `sparsity`, its columns coloured greedily.
    pub fn sparse(sparsity: Sparsity) -> Self {
        Jacobian {
            colouring: Colouring::greedy(&sparsity),
            values: Values::Sparse {
                values: vec![0.0; sparsity.nonzeros()],
                sparsity,
            },
        }
    }

    /// The Jacobian of an `n`-dimensional problem with the pattern `sparsity`: on it when it
    /// has dimension `n`, dense otherwise (no pattern, or one of another dimension).
    pub fn for_problem(n: usize, sparsity: Option<&Sparsity>) -> Self {
        match sparsity {
            Some(sparsity) if sparsity.n() == n => Jacobian::sparse(sparsity.clone()),
            _ => Jacobian::dense(n),
        }
    }

    /// The dimension `n`.
    pub fn n(&self) -> usize {
        match &self.values {
            Values::Dense(matrix) => matrix.nrows(),
            Values::Sparse { sparsity, .. } => sparsity.n(),
        }
    }

    /// Number of colours: the products [`Self::store`] needs for the whole Jacobian.
    pub fn colours(&self) -> usize {
        self.colouring.count()
    }

    /// The columns of colour `colour`: a product seeded by the sum of their unit vectors (each
    /// scaled by its increment, for differences) yields them all.
    pub fn columns(&self, colour: usize) -> &[usize] {
        self.colouring.columns(colour)
    }

    /// Stores the columns of colour `colour` from `product`, the product `J s` with `s` the sum
    /// of their unit vectors each times `step(j)`: entry `(i, j)` is `product[i] / step(j)`.
    pub fn store(&mut self, colour: usize, product: &[f64], step: impl Fn(usize) -> f64) {
        let columns = self.colouring.columns(colour);
        match &mut self.values {
            Values::Dense(matrix) => {
                for &j in columns {
                    let step = step(j);
                    for (entry, p) in matrix.column_mut(j).iter_mut().zip(product) {
                        *entry = p / step;
                    }
                }
            }
            Values::Sparse { sparsity, values } => {
                for &j in columns {
                    let step = step(j);
                    for (k, &i) in sparsity.positions(j).zip(sparsity.column(j)) {
                        values[k] = product[i] / step;
                    }
                }
            }
        }
    }

    /// Sets entry `(i, j)`; `false` (and nothing set) when the pattern excludes it.
    pub fn set(&mut self, i: usize, j: usize, value: f64) -> bool {
        match self.position(i, j) {
            Some(Position::Dense) => {
                if let Values::Dense(matrix) = &mut self.values {
                    matrix[(i, j)] = value;
                }
                true
            }
            Some(Position::Sparse(k)) => {
                if let Values::Sparse { values, .. } = &mut self.values {
                    values[k] = value;
                }
                true
            }
            None => false,
        }
    }

    /// Entry `(i, j)` (zero outside the pattern).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match (&self.values, self.position(i, j)) {
            (Values::Dense(matrix), _) => matrix[(i, j)],
            (Values::Sparse { values, .. }, Some(Position::Sparse(k))) => values[k],
            _ => 0.0,
        }
    }

    fn position(&self, i: usize, j: usize) -> Option<Position> {
        match &self.values {
            Values::Dense(_) => Some(Position::Dense),
            Values::Sparse { sparsity, .. } => sparsity
                .column(j)
                .binary_search(&i)
                .ok()
                .map(|offset| Position::Sparse(sparsity.positions(j).start + offset)),
        }
    }

    /// The pattern and its entries, when the Jacobian is stored sparse.
    pub fn as_sparse(&self) -> Option<(&Sparsity, &[f64])> {
        match &self.values {
            Values::Dense(_) => None,
            Values::Sparse { sparsity, values } => Some((sparsity, values)),
        }
    }

    /// Every entry, as a matrix.
    pub fn to_dense(&self) -> DMatrix<f64> {
        match &self.values {
            Values::Dense(matrix) => matrix.clone(),
            Values::Sparse { sparsity, values } => {
                let mut matrix = DMatrix::zeros(sparsity.n(), sparsity.n());
                for j in 0..sparsity.n() {
                    for (k, &i) in sparsity.positions(j).zip(sparsity.column(j)) {
                        matrix[(i, j)] = values[k];
                    }
                }
                matrix
            }
        }
    }

    /// The dense matrix, when the Jacobian is stored dense.
    pub fn as_dense(&self) -> Option<&DMatrix<f64>> {
        match &self.values {
            Values::Dense(matrix) => Some(matrix),
            Values::Sparse { .. } => None,
        }
    }

    /// The largest absolute row sum, an upper bound of the spectral radius.
    pub fn infinity_norm(&self) -> f64 {
        match &self.values {
            Values::Dense(matrix) => matrix
                .row_iter()
                .map(|row| row.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max),
            Values::Sparse { sparsity, values } => {
                let mut sums = vec![0.0; sparsity.n()];
                for (&i, v) in sparsity.rows().iter().zip(values) {
                    sums[i] += v.abs();
                }
                sums.into_iter().fold(0.0, f64::max)
            }
        }
    }
}

/// Where an entry is kept.
enum Position {
    Dense,
    Sparse(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coloured_product_fills_the_columns_of_its_colour() {
        // Tridiagonal 4x4: colours {0, 3}, {1}, {2}.
        let rows: Vec<Vec<usize>> = (0..4usize)
            .map(|i| (i.saturating_sub(1)..(i + 2).min(4)).collect())
            .collect();
        let full = DMatrix::from_fn(4, 4, |i, j| {
            if i.abs_diff(j) <= 1 {
                (1 + 4 * i + j) as f64
            } else {
                0.0
            }
        });
        let mut jacobian = Jacobian::sparse(Sparsity::from_rows(&rows).unwrap());
        assert_eq!(jacobian.colours(), 3);
        for colour in 0..jacobian.colours() {
            let mut seed = nalgebra::DVector::zeros(4);
            for &j in jacobian.columns(colour) {
                seed[j] = 2.0;
            }
            let product = &full * seed;
            jacobian.store(colour, product.as_slice(), |_| 2.0);
        }
        assert_eq!(jacobian.to_dense(), full);
        assert!(!jacobian.set(0, 3, 1.0));
        assert_eq!(jacobian.get(2, 1), full[(2, 1)]);
        assert_eq!(jacobian.infinity_norm(), 10.0 + 11.0 + 12.0);
    }
}
