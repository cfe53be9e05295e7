//! Simulation results read from CSV: a header of signal names (first column time) and rows of
//! numbers, as FMPy and the Reference-FMUs write them. FMPy writes an array variable as one
//! column of space-separated elements; it is read as one signal per element, `y[1]`, `y[2]`, ...
//! (flat 1-based positions, which are Tandem's names for one-dimensional arrays).

use std::path::Path;

/// Signals sampled at common time points.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    /// Column names; the first is `time`.
    pub names: Vec<String>,
    /// One row per time point.
    pub rows: Vec<Vec<f64>>,
}

impl Trajectory {
    /// Reads a CSV file.
    pub fn read_csv(path: &Path) -> Result<Self, String> {
        let error = |e: csv::Error| format!("{}: {e}", path.display());
        let mut reader = csv::Reader::from_path(path).map_err(error)?;
        let headers: Vec<String> = reader
            .headers()
            .map_err(error)?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut cells = Vec::new();
        for (line, record) in reader.records().enumerate() {
            let record = record.map_err(error)?;
            // FMPy writes Booleans as True and False.
            let row = record
                .iter()
                .map(|field| match field.split_whitespace().count() {
                    // An empty field fails as the number it should be.
                    0 => field.trim().parse::<f64>().map(|x| vec![x]),
                    _ => field.split_whitespace().map(number).collect(),
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("{}: data row {}: {e}", path.display(), line + 1))?;
            cells.push(row);
        }
        let widths: Vec<usize> = match cells.first() {
            Some(row) => row.iter().map(Vec::len).collect(),
            None => vec![1; headers.len()],
        };
        let names = headers
            .iter()
            .zip(&widths)
            .flat_map(|(name, &width)| match width {
                1 => vec![name.clone()],
                _ => (1..=width).map(|i| format!("{name}[{i}]")).collect(),
            })
            .collect();
        let mut rows = Vec::new();
        for (line, row) in cells.into_iter().enumerate() {
            let row_widths: Vec<usize> = row.iter().map(Vec::len).collect();
            if row_widths != widths {
                return Err(format!(
                    "{}: data row {}: {row_widths:?} values per column, the first row has {widths:?}",
                    path.display(),
                    line + 1
                ));
            }
            rows.push(row.into_iter().flatten().collect());
        }
        Ok(Trajectory { names, rows })
    }

    /// The values of signal `name` in the last row.
    pub fn last(&self, name: &str) -> f64 {
        let column = self.column_index(name);
        self.rows
            .last()
            .unwrap_or_else(|| panic!("the trajectory has no rows"))[column]
    }

    /// The whole column `name`.
    pub fn column(&self, name: &str) -> Vec<f64> {
        let column = self.column_index(name);
        self.rows.iter().map(|row| row[column]).collect()
    }

    /// For every signal of `self`: the largest difference to `other` at the times both
    /// recorded once (event rows repeat their time), relative to the signal's `scale` in
    /// `self`; also the number of common times. Panics if `other` lacks a signal.
    pub fn differences(&self, other: &Trajectory, scale: Scale) -> (Vec<(String, f64)>, usize) {
        let rows_other = other.single_rows();
        let pairs: Vec<(&Vec<f64>, &Vec<f64>)> = self
            .single_rows()
            .into_iter()
            .filter_map(|row| {
                rows_other
                    .iter()
                    .find(|o| same_time(o[0], row[0]))
                    .map(|o| (row, *o))
            })
            .collect();
        let differences = self.names[1..]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let j = other
                    .names
                    .iter()
                    .position(|n| n == name)
                    .unwrap_or_else(|| panic!("no signal {name} among {:?}", other.names));
                let values: Vec<f64> = self.rows.iter().map(|row| row[i + 1]).collect();
                let largest = pairs
                    .iter()
                    .map(|(a, b)| (a[i + 1] - b[j]).abs())
                    .fold(0.0, f64::max);
                (name.clone(), largest / scale.of(&values))
            })
            .collect();
        (differences, pairs.len())
    }

    /// Rows at times that occur once (event rows repeat their time).
    fn single_rows(&self) -> Vec<&Vec<f64>> {
        let time = |i: usize| self.rows[i][0];
        (0..self.rows.len())
            .filter(|&i| {
                (i == 0 || !same_time(time(i - 1), time(i)))
                    && (i + 1 == self.rows.len() || !same_time(time(i), time(i + 1)))
            })
            .map(|i| &self.rows[i])
            .collect()
    }

    fn column_index(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no signal `{name}` among {:?}", self.names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_headers_and_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        std::fs::write(&path, "\"time\",\"x\"\n0.0,1.5\n0.5,-2e-3\n").unwrap();
        let t = Trajectory::read_csv(&path).unwrap();
        assert_eq!(t.names, ["time", "x"]);
        assert_eq!(t.column("time"), [0.0, 0.5]);
        assert_eq!(t.last("x"), -2e-3);
        std::fs::write(&path, "\"time\",\"y\"\n0.0,1 2 3\n1.0,4 5 6\n").unwrap();
        let t = Trajectory::read_csv(&path).unwrap();
        assert_eq!(t.names, ["time", "y[1]", "y[2]", "y[3]"]);
        assert_eq!(t.column("y[2]"), [2.0, 5.0]);
        std::fs::write(&path, "time,x\n0.0,oops\n").unwrap();
        assert!(Trajectory::read_csv(&path)
            .unwrap_err()
            .contains("data row 1"));
    }
}

/// What a difference between two signals is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The signal's largest magnitude.
    Magnitude,
    /// The signal's range (largest minus smallest value); its largest magnitude for a constant
    /// signal, and 1 for a signal that is zero throughout.
    Range,
}

impl Scale {
    /// The scale of `values`, never zero.
    pub fn of(self, values: &[f64]) -> f64 {
        let magnitude = values.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let scale = match self {
            Scale::Magnitude => magnitude,
            Scale::Range => {
                let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let min = values.iter().copied().fold(f64::INFINITY, f64::min);
                let range = max - min;
                if range > 0.0 {
                    range
                } else if magnitude > 0.0 {
                    magnitude
                } else {
                    1.0
                }
            }
        };
        scale.max(f64::MIN_POSITIVE)
    }
}

/// A number as FMPy writes it: Booleans as `True` and `False`.
fn number(text: &str) -> Result<f64, std::num::ParseFloatError> {
    match text {
        "True" | "true" => Ok(1.0),
        "False" | "false" => Ok(0.0),
        _ => text.parse(),
    }
}

/// Whether two times are the same output point.
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}
