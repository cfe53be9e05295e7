//! Signals over time from a CSV file: first column `time`, then one named column of numbers
//! each (`true`/`false` read as 1/0), times never decreasing. Read by `--input-file` and by
//! the measurements of a cost; a caller with the signals in memory makes the same table of
//! them, checked the same way ([`TimeTable::new`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The columns of a CSV file over its time column.
#[derive(Debug, Clone)]
pub struct TimeTable {
    /// The file, or the name messages give a table made in memory.
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
            check_time(times.last().copied(), time)
                .map_err(|problem| bad(format!("line {line}: {problem}")))?;
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

    /// The table of `columns` named `names` over `times`, one value per time each, checked as
    /// a file's rows are: finite times that never decrease, values that are numbers, at least
    /// one row. `source` is what messages call the table.
    pub fn new(
        source: impl Into<PathBuf>,
        names: Vec<String>,
        times: Vec<f64>,
        columns: Vec<Vec<f64>>,
    ) -> Result<Self> {
        let path = source.into();
        let bad = |message: String| Error::InputFile {
            path: path.clone(),
            message,
        };
        if times.is_empty() {
            return Err(bad("the table has no rows".into()));
        }
        if names.len() != columns.len() {
            return Err(bad(format!(
                "{} names for {} columns",
                names.len(),
                columns.len()
            )));
        }
        for (row, &time) in times.iter().enumerate() {
            let previous = row.checked_sub(1).map(|before| times[before]);
            check_time(previous, time)
                .map_err(|problem| bad(format!("row {}: {problem}", row + 1)))?;
        }
        for (name, values) in names.iter().zip(&columns) {
            if values.len() != times.len() {
                return Err(bad(format!(
                    "column \"{name}\" has {} values for {} times",
                    values.len(),
                    times.len()
                )));
            }
            if let Some(row) = values.iter().position(|value| value.is_nan()) {
                return Err(bad(format!(
                    "row {}, column \"{name}\": NaN is not a number",
                    row + 1
                )));
            }
        }
        Ok(TimeTable {
            path,
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

/// Why `time` cannot follow a row at `previous` (none: it is the first row), if it cannot.
fn check_time(previous: Option<f64>, time: f64) -> std::result::Result<(), String> {
    if !time.is_finite() {
        return Err(format!("time {time} is not a finite number"));
    }
    if previous.is_some_and(|last| time < last) {
        return Err(format!("time {time} is before the previous row's"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(times: Vec<f64>, values: Vec<f64>) -> Result<TimeTable> {
        TimeTable::new("input", vec!["u".into()], times, vec![values])
    }

    #[test]
    fn a_table_in_memory_is_checked_as_a_file_is() {
        let message = |result: Result<TimeTable>| result.unwrap_err().to_string();
        assert_eq!(
            message(table(vec![0.0, 1.0, 0.5], vec![0.0; 3])),
            "input: row 3: time 0.5 is before the previous row's"
        );
        assert_eq!(
            message(table(vec![0.0, f64::INFINITY], vec![0.0; 2])),
            "input: row 2: time inf is not a finite number"
        );
        assert_eq!(
            message(table(vec![0.0, 1.0], vec![1.0, f64::NAN])),
            "input: row 2, column \"u\": NaN is not a number"
        );
        assert_eq!(
            message(table(vec![0.0, 1.0], vec![1.0])),
            "input: column \"u\" has 1 values for 2 times"
        );
        assert_eq!(
            message(table(Vec::new(), Vec::new())),
            "input: the table has no rows"
        );
        let signals = table(vec![0.0, 1.0], vec![2.0, 4.0]).unwrap();
        assert_eq!(signals.value_at(0, 0.25, true), 2.5);
    }
}
