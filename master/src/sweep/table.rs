//! The sweep's table: one row per run, in run order, with the parameters, the status, the wall
//! time and the metrics, written as CSV.

use std::path::Path;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::float_text::format_float;

/// What one run gave.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// The parameters' values.
    pub parameters: Vec<f64>,
    /// The metrics, one per metric column; the error message of a failed run.
    pub outcome: std::result::Result<Vec<f64>, String>,
    /// Wall-clock time of the run.
    pub wall_time: Duration,
}

impl RunRow {
    /// The status column's text: `ok`, or `failed`.
    pub fn status(&self) -> &'static str {
        match self.outcome {
            Ok(_) => "ok",
            Err(_) => "failed",
        }
    }

    /// The message column's text: why the run failed, empty when it did not.
    pub fn message(&self) -> &str {
        self.outcome.as_ref().err().map_or("", String::as_str)
    }
}

/// The rows of a sweep and what its columns hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepTable {
    /// The parameter columns, `component.parameter`.
    pub parameters: Vec<String>,
    /// The metric columns.
    pub metrics: Vec<String>,
    /// One row per run, in run order.
    pub rows: Vec<RunRow>,
}

/// The table's fixed columns between the parameters and the metrics.
pub const STATUS_COLUMNS: [&str; 3] = ["status", "message", "wall_time"];

impl SweepTable {
    /// Runs that failed.
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| r.outcome.is_err()).count()
    }

    /// The column names: `run`, the parameters, [`STATUS_COLUMNS`], the metrics.
    pub fn header(&self) -> Vec<String> {
        std::iter::once("run".to_string())
            .chain(self.parameters.iter().cloned())
            .chain(STATUS_COLUMNS.iter().map(|c| c.to_string()))
            .chain(self.metrics.iter().cloned())
            .collect()
    }

    /// Writes the table as CSV into `file`, the result file `path`: numbers as the result
    /// files write them (shortest text that reads back to the same value), a failed run's
    /// metrics left empty.
    pub fn write_csv(&self, path: &Path, file: impl std::io::Write) -> Result<()> {
        let error = |e: csv::Error| {
            Error::input_file(
                path.to_path_buf(),
                format!("cannot write the sweep table: {e}"),
            )
        };
        let mut writer = csv::Writer::from_writer(file);
        writer.write_record(self.header()).map_err(error)?;
        for (run, row) in self.rows.iter().enumerate() {
            let metrics = match &row.outcome {
                Ok(metrics) => metrics.iter().map(|&m| format_float(m)).collect(),
                Err(_) => vec![String::new(); self.metrics.len()],
            };
            let record = std::iter::once(run.to_string())
                .chain(row.parameters.iter().map(|&p| format_float(p)))
                .chain([
                    row.status().to_string(),
                    row.message().to_string(),
                    format_float(row.wall_time.as_secs_f64()),
                ])
                .chain(metrics);
            writer.write_record(record).map_err(error)?;
        }
        writer.flush().map_err(|e| Error::io(path, e))
    }
}
