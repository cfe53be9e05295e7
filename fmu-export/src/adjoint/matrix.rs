//! Dense row-major matrices for the Jacobian blocks of a linearized step.

/// A dense `rows x cols` matrix, stored row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// The zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Matrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// A matrix from its row-major entries.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(
            data.len(),
            rows * cols,
            "a {rows} x {cols} matrix needs {} entries",
            rows * cols
        );
        Matrix { rows, cols, data }
    }

    /// Makes this the `rows x cols` zero matrix, keeping its allocation (a linearization
    /// refilled for every step VJP allocates nothing once its matrices have their size).
    pub fn reset(&mut self, rows: usize, cols: usize) {
        self.rows = rows;
        self.cols = cols;
        self.data.clear();
        self.data.resize(rows * cols, 0.0);
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    /// Sets entry `(i, j)`.
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.cols + j] = value;
    }

    /// The row-major entries.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// Column `j`.
    pub fn column(&self, j: usize) -> Vec<f64> {
        (0..self.rows).map(|i| self.get(i, j)).collect()
    }

    /// `y += A x`.
    pub fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!((x.len(), y.len()), (self.cols, self.rows));
        for (row, yi) in self.data.chunks(self.cols.max(1)).zip(y.iter_mut()) {
            *yi += row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
        }
    }

    /// `y += A^T x`.
    pub fn transpose_mul_add(&self, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!((x.len(), y.len()), (self.rows, self.cols));
        for (row, &xi) in self.data.chunks(self.cols.max(1)).zip(x) {
            y.iter_mut().zip(row).for_each(|(yj, a)| *yj += a * xi);
        }
    }
}

/// The dot product of two equally long slices.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_with_the_matrix_and_its_transpose() {
        let a = Matrix::from_row_major(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let mut y = vec![1.0, 1.0];
        a.mul_add(&[1.0, 0.0, -1.0], &mut y);
        assert_eq!(y, [-1.0, -1.0]);
        let mut z = vec![0.0; 3];
        a.transpose_mul_add(&[1.0, -1.0], &mut z);
        assert_eq!(z, [-3.0, -3.0, -3.0]);
        assert_eq!(a.column(1), [2.0, 5.0]);
        let mut b = a.clone();
        b.reset(3, 1);
        assert_eq!((b.rows(), b.cols(), b.data()), (3, 1, [0.0; 3].as_slice()));
        assert_eq!(dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
    }
}
