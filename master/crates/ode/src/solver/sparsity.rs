//! Which entries of a square Jacobian may be non-zero: the pattern a coloured evaluation fills
//! and a sparse factorization works on, by column (compressed sparse column).

/// The structurally non-zero entries of an `n x n` matrix, column by column with ascending
/// rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sparsity {
    n: usize,
    /// Where each column's rows start in `rows`; `n + 1` entries.
    column_starts: Vec<usize>,
    rows: Vec<usize>,
}

impl Sparsity {
    /// The pattern whose row `i` holds the columns `rows[i]` (in any order, repetitions
    /// allowed); `None` when a column is not below `rows.len()`.
    pub fn from_rows(rows: &[Vec<usize>]) -> Option<Self> {
        let n = rows.len();
        let mut counts = vec![0usize; n + 1];
        for row in rows {
            for &j in row {
                *counts.get_mut(j + 1)? += 1;
            }
        }
        let mut column_starts = counts;
        for j in 0..n {
            column_starts[j + 1] += column_starts[j];
        }
        let mut next = column_starts.clone();
        let mut entries = vec![0usize; column_starts[n]];
        // Rows are visited in ascending order, so each column's rows come out sorted.
        for (i, row) in rows.iter().enumerate() {
            for &j in row {
                entries[next[j]] = i;
                next[j] += 1;
            }
        }
        let mut sparsity = Sparsity {
            n,
            column_starts: vec![0; n + 1],
            rows: Vec::with_capacity(entries.len()),
        };
        for j in 0..n {
            let mut column = entries[column_starts[j]..column_starts[j + 1]].to_vec();
            column.dedup();
            sparsity.rows.extend(column);
            sparsity.column_starts[j + 1] = sparsity.rows.len();
        }
        Some(sparsity)
    }

    /// The dimension `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of structurally non-zero entries.
    pub fn nonzeros(&self) -> usize {
        self.rows.len()
    }

    /// The rows of column `j`, ascending.
    pub fn column(&self, j: usize) -> &[usize] {
        &self.rows[self.column_starts[j]..self.column_starts[j + 1]]
    }

    /// Where column `j`'s entries lie in a value array ordered like the pattern.
    pub fn positions(&self, j: usize) -> std::ops::Range<usize> {
        self.column_starts[j]..self.column_starts[j + 1]
    }

    /// Where each column starts among the entries (`n + 1` offsets).
    pub fn column_starts(&self) -> &[usize] {
        &self.column_starts
    }

    /// The row of every entry, column after column.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// The pattern with the diagonal added (that of `I - c J`).
    pub fn with_diagonal(&self) -> Sparsity {
        let rows: Vec<Vec<usize>> = self
            .transposed_rows()
            .into_iter()
            .enumerate()
            .map(|(i, mut columns)| {
                columns.push(i);
                columns
            })
            .collect();
        Sparsity::from_rows(&rows).expect("the columns of a pattern are below its dimension")
    }

    /// The columns of every row (the pattern by rows).
    pub fn transposed_rows(&self) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); self.n];
        for j in 0..self.n {
            for &i in self.column(j) {
                rows[i].push(j);
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_sorted_columns_without_repetitions() {
        let sparsity = Sparsity::from_rows(&[vec![1, 0, 1], vec![2], vec![0]]).unwrap();
        assert_eq!(sparsity.column(0), &[0, 2]);
        assert_eq!(sparsity.column(1), &[0]);
        assert_eq!(sparsity.column(2), &[1]);
        assert_eq!(sparsity.nonzeros(), 4);
        assert_eq!(sparsity.with_diagonal().column(1), &[0, 1]);
        assert_eq!(sparsity.with_diagonal().nonzeros(), 6);
    }

    #[test]
    fn a_column_outside_the_matrix_is_no_pattern() {
        assert_eq!(Sparsity::from_rows(&[vec![0], vec![2]]), None);
    }
}
