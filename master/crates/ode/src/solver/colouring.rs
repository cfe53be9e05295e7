//! A colouring of a Jacobian's columns such that no two columns of one colour share a row
//! (a distance-2 colouring of the column intersection graph): one product `J s` with the seed
//! `s` the sum of a colour's unit vectors then yields every column of that colour, each
//! non-zero row of the product belonging to exactly one of them (Curtis, Powell and Reid).

use super::sparsity::Sparsity;

/// Columns grouped into colours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colouring {
    /// Where each colour's columns start in `columns`.
    starts: Vec<usize>,
    /// The columns, colour after colour, ascending within a colour.
    columns: Vec<usize>,
}

impl Colouring {
    /// One colour per column, for a Jacobian without a known pattern.
    pub fn dense(n: usize) -> Self {
        Colouring {
            starts: (0..=n).collect(),
            columns: (0..n).collect(),
        }
    }

    /// The greedy colouring of `sparsity`'s columns in their natural order: each column takes
    /// the smallest colour that no column sharing a row with it has. A banded pattern of
    /// bandwidth `w` gets `w` colours (3 for a tridiagonal one).
    pub fn greedy(sparsity: &Sparsity) -> Self {
        let n = sparsity.n();
        let by_rows = sparsity.transposed_rows();
        let mut colour_of = vec![usize::MAX; n];
        // forbidden[c] == j: colour c is taken by a neighbour of column j.
        let mut forbidden: Vec<usize> = Vec::new();
        let mut colours = 0;
        for j in 0..n {
            for &i in sparsity.column(j) {
                for &k in &by_rows[i] {
                    if let Some(&c) = colour_of.get(k).filter(|&&c| c != usize::MAX) {
                        forbidden[c] = j;
                    }
                }
            }
            let colour = (0..colours).find(|&c| forbidden[c] != j).unwrap_or(colours);
            if colour == colours {
                colours += 1;
                forbidden.push(usize::MAX);
            }
            colour_of[j] = colour;
        }
        let mut starts = vec![0usize; colours + 1];
        for &c in &colour_of {
            starts[c + 1] += 1;
        }
        for c in 0..colours {
            starts[c + 1] += starts[c];
        }
        let mut next = starts.clone();
        let mut columns = vec![0; n];
        for (j, &c) in colour_of.iter().enumerate() {
            columns[next[c]] = j;
            next[c] += 1;
        }
        Colouring { starts, columns }
    }

    /// Number of colours: the products one Jacobian takes.
    pub fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The columns of colour `colour`.
    pub fn columns(&self, colour: usize) -> &[usize] {
        &self.columns[self.starts[colour]..self.starts[colour + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(n: usize, half_width: usize) -> Sparsity {
        let rows: Vec<Vec<usize>> = (0..n)
            .map(|i| (i.saturating_sub(half_width)..(i + half_width + 1).min(n)).collect())
            .collect();
        Sparsity::from_rows(&rows).unwrap()
    }

    /// Whether no two columns of one colour share a row, and every column has one colour.
    fn is_valid(colouring: &Colouring, sparsity: &Sparsity) -> bool {
        let mut seen = vec![0; sparsity.n()];
        for c in 0..colouring.count() {
            let mut rows = vec![false; sparsity.n()];
            for &j in colouring.columns(c) {
                seen[j] += 1;
                for &i in sparsity.column(j) {
                    if std::mem::replace(&mut rows[i], true) {
                        return false;
                    }
                }
            }
        }
        seen.iter().all(|&s| s == 1)
    }

    #[test]
    fn a_tridiagonal_pattern_takes_three_colours_and_a_pentadiagonal_five() {
        for (half_width, colours) in [(1, 3), (2, 5)] {
            let sparsity = band(50, half_width);
            let colouring = Colouring::greedy(&sparsity);
            assert_eq!(colouring.count(), colours);
            assert!(is_valid(&colouring, &sparsity));
        }
    }

    #[test]
    fn a_full_row_forces_one_colour_per_column() {
        // Row 0 depends on every state: an arrow pattern.
        let mut rows: Vec<Vec<usize>> = (0..6).map(|i| vec![i]).collect();
        rows[0] = (0..6).collect();
        let sparsity = Sparsity::from_rows(&rows).unwrap();
        let colouring = Colouring::greedy(&sparsity);
        assert_eq!(colouring.count(), 6);
        assert!(is_valid(&colouring, &sparsity));
        assert_eq!(Colouring::dense(4).columns(2), &[2]);
    }

    #[test]
    fn a_diagonal_pattern_takes_one_colour() {
        let sparsity = band(7, 0);
        assert_eq!(Colouring::greedy(&sparsity).count(), 1);
    }
}
