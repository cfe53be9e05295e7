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
            let row = record
                .iter()
                .map(|field| match field.split_whitespace().count() {
                    // An empty field fails as the number it should be.
                    0 => field.trim().parse::<f64>().map(|x| vec![x]),
                    _ => field
                        .split_whitespace()
                        .map(str::parse::<f64>)
                        .collect::<Result<Vec<_>, _>>(),
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
