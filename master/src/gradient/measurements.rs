//! Measured signals from a CSV file: first column `time`, then one column per measured
//! output named `component.variable`, sampled at increasing times and interpolated linearly.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The measured signals of one file.
#[derive(Debug, Clone)]
pub struct Measurements {
    path: PathBuf,
    times: Vec<f64>,
    columns: Vec<(String, Vec<f64>)>,
}

impl Measurements {
    /// Reads `path`; every error names the file and, for bad values, the line and column.
    pub fn read(path: &Path) -> Result<Self> {
        let bad = |message: String| Error::InputFile {
            path: path.to_path_buf(),
            message,
        };
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| bad(e.to_string()))?;
        let header = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
        if header.get(0) != Some("time") {
            return Err(bad(format!(
                "the first column must be \"time\", found {:?}",
                header.get(0).unwrap_or("")
            )));
        }
        let mut columns: Vec<(String, Vec<f64>)> = Vec::new();
        for name in header.iter().skip(1) {
            if columns.iter().any(|(n, _)| n == name) {
                return Err(bad(format!("column \"{name}\" appears twice")));
            }
            columns.push((name.to_string(), Vec::new()));
        }
        if columns.is_empty() {
            return Err(bad("there are no measured columns after \"time\"".into()));
        }
        let mut times: Vec<f64> = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let line = row + 2;
            let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
            let number = |i: usize| -> Result<f64> {
                let text = record.get(i).unwrap_or("");
                text.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        bad(format!(
                            "line {line}, column {}: \"{text}\" is not a finite number",
                            i + 1
                        ))
                    })
            };
            let time = number(0)?;
            if times.last().is_some_and(|&last| time <= last) {
                return Err(bad(format!(
                    "line {line}: time {time} does not come after the previous row's"
                )));
            }
            times.push(time);
            for (i, (_, values)) in columns.iter_mut().enumerate() {
                values.push(number(i + 1)?);
            }
        }
        if times.len() < 2 {
            return Err(bad("the file needs at least two data rows".into()));
        }
        Ok(Measurements {
            path: path.to_path_buf(),
            times,
            columns,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The column names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|(name, _)| name.as_str())
    }

    /// Column `column` interpolated linearly at `times`, each of which must lie within the
    /// measured interval (up to a rounding margin).
    pub fn sample(&self, column: usize, times: &[f64]) -> Result<Vec<f64>> {
        let (name, values) = &self.columns[column];
        let (first, last) = (self.times[0], self.times[self.times.len() - 1]);
        let margin = 1e-9 * (last - first);
        times
            .iter()
            .map(|&t| {
                if t < first - margin || t > last + margin {
                    return Err(Error::InputFile {
                        path: self.path.clone(),
                        message: format!(
                            "column {name} is measured from t = {first} to {last}, but the cost \
                             needs it at t = {t}"
                        ),
                    });
                }
                let next = self.times.partition_point(|&s| s <= t).clamp(1, self.times.len() - 1);
                let (t0, t1) = (self.times[next - 1], self.times[next]);
                let (v0, v1) = (values[next - 1], values[next]);
                // Clamped into the interval, and exact at both samples.
                let fraction = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
                Ok(if fraction == 1.0 {
                    v1
                } else {
                    v0 + (v1 - v0) * fraction
                })
            })
            .collect()
    }
}
