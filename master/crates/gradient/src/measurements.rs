//! Measured signals for a least-squares cost: a CSV file read as a [`TimeTable`] (first column
//! `time`, then one column per measured output named `component.variable`), interpolated
//! linearly to the times the cost needs, which the measurements must cover.

use std::path::Path;

use tandem_cosim::time_table::TimeTable;
use tandem_cosim::{Error, Result};

/// The measured signals of one file.
#[derive(Debug, Clone)]
pub struct Measurements {
    table: TimeTable,
}

impl Measurements {
    /// Reads `path`; every error names the file and, for bad values, the line and column.
    pub fn read(path: &Path) -> Result<Self> {
        let table = TimeTable::read(path)?;
        let bad = |message: String| Error::InputFile {
            path: path.to_path_buf(),
            message,
        };
        if table.names.is_empty() {
            return Err(bad("there are no measured columns after \"time\"".into()));
        }
        for (i, name) in table.names.iter().enumerate() {
            if table.names[..i].contains(name) {
                return Err(bad(format!("column \"{name}\" appears twice")));
            }
            if let Some(row) = table.columns[i].iter().position(|v| !v.is_finite()) {
                return Err(bad(format!(
                    "line {}, column \"{name}\": {} is not a finite number",
                    row + 2,
                    table.columns[i][row]
                )));
            }
        }
        Ok(Measurements { table })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.table.path
    }

    /// The column names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.table.names.iter().map(String::as_str)
    }

    /// Column `column` interpolated linearly at `times`, each of which must lie within the
    /// measured interval (up to a rounding margin).
    pub fn sample(&self, column: usize, times: &[f64]) -> Result<Vec<f64>> {
        let measured = &self.table.times;
        let (first, last) = (measured[0], measured[measured.len() - 1]);
        let margin = 1e-9 * (last - first).max(first.abs()).max(f64::MIN_POSITIVE);
        times
            .iter()
            .map(|&t| {
                if t < first - margin || t > last + margin {
                    return Err(Error::InputFile {
                        path: self.table.path.clone(),
                        message: format!(
                            "column {} is measured from t = {first} to {last}, but the cost \
                             needs it at t = {t}",
                            self.table.names[column]
                        ),
                    });
                }
                Ok(self.table.value_at(column, t, true))
            })
            .collect()
    }
}
