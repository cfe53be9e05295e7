//! Signals over time from a CSV file: first column `time`, then one named column of numbers
//! each (`true`/`false` read as 1/0), times never decreasing. Read by `--input-file` and by
//! the measurements of a cost.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The columns of a CSV file over its time column.
#[derive(Debug, Clone)]
pub struct TimeTable {
    /// The file.
    pub path: PathBuf,
    /// The column names after `time`.
    pub names: Vec<String>,
    /// The times, in file order.
    pub times: Vec<f64>,
    /// Per column, one value per time.
    pub columns: Vec<Vec<f64>>,
}

impl TimeTable {
    /// Reads `path`; every error names the file and, for bad values, the line and column.
    pub fn read(path: &Path) -> Result<Self> {
        let bad = |message: String| Error::InputFile {
            path: path.to_path_buf(),
            message,
        };
        let file = tandem_files::open_data(path).map_err(|e| bad(e.to_string()))?;
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(file);
        let header = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
        if header.get(0) != Some("time") {
            return Err(bad(format!(
                "the first column must be \"time\", found {:?}",
                header.get(0).unwrap_or("")
            )));
        }
        let names: Vec<String> = header.iter().skip(1).map(str::to_string).collect();
        let mut columns = vec![Vec::new(); names.len()];
        let mut times = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let line = row + 2;
            let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
            let number = |i: usize| -> Result<f64> {
                let text = record.get(i).unwrap_or("");
                match text {
                    "true" => Ok(1.0),
                    "false" => Ok(0.0),
                    _ => match text.parse::<f64>() {
                        Ok(value) if !value.is_nan() => Ok(value),
                        _ => Err(bad(format!(
                            "line {line}, column {}: \"{text}\" is not a number",
                            i + 1
                        ))),
                    },
                }
            };
            let time = number(0)?;
            if !time.is_finite() {
                return Err(bad(format!(
                    "line {line}: time {time} is not a finite number"
                )));
            }
            if times.last().is_some_and(|&last| time < last) {
                return Err(bad(format!(
                    "line {line}: time {time} is before the previous row's"
                )));
            }
            times.push(time);
            for (i, values) in columns.iter_mut().enumerate() {
                values.push(number(i + 1)?);
            }
        }
        if times.is_empty() {
            return Err(bad("the file has no data rows".into()));
        }
        Ok(TimeTable {
            path: path.to_path_buf(),
            names,
            times,
            columns,
        })
    }

    /// Column `column` at `time`: interpolated linearly between the rows around it (`linear`),
    /// or the value of the last row at or before it; the first value before the first row,
    /// the last after the last row, the later row at a repeated time. Exact at every row.
    pub fn value_at(&self, column: usize, time: f64, linear: bool) -> f64 {
        let values = &self.columns[column];
        let next = self.times.partition_point(|&t| t <= time);
        if next == 0 {
            values[0]
        } else if next == self.times.len() || !linear {
            values[next - 1]
        } else {
            let (t0, t1) = (self.times[next - 1], self.times[next]);
            let (v0, v1) = (values[next - 1], values[next]);
            v0 + (v1 - v0) * (time - t0) / (t1 - t0)
        }
    }
}
