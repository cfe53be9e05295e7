//! Simulation results read from CSV: a header of signal names (first column time) and rows of
//! numbers, as FMPy and the Reference-FMUs write them.

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
        let names: Vec<String> = reader
            .headers()
            .map_err(error)?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut rows = Vec::new();
        for (line, record) in reader.records().enumerate() {
            let record = record.map_err(error)?;
            let row = record
                .iter()
                .map(|field| field.trim().parse::<f64>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("{}: data row {}: {e}", path.display(), line + 1))?;
            rows.push(row);
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
        std::fs::write(&path, "time,x\n0.0,oops\n").unwrap();
        assert!(Trajectory::read_csv(&path)
            .unwrap_err()
            .contains("data row 1"));
    }
}
