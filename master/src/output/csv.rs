//! Result files in the Reference-FMUs CSV convention: a quoted header `"time","name",...`,
//! then one row per output point; rows are flushed as they are written so that a failing
//! run leaves the results up to the failure on disk.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model_description::Values;

/// A CSV result file being written.
pub struct CsvWriter {
    path: PathBuf,
    writer: BufWriter<File>,
    columns: usize,
    rows: usize,
}

impl CsvWriter {
    /// Creates `path` and writes the header: `time` and then `names`.
    pub fn create(path: &Path, names: &[String]) -> Result<Self> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut writer = CsvWriter {
            path: path.to_path_buf(),
            writer: BufWriter::new(file),
            columns: names.len(),
            rows: 0,
        };
        let header: Vec<String> = std::iter::once("time")
            .chain(names.iter().map(String::as_str))
            .map(quote)
            .collect();
        writer.line(&header.join(","))?;
        Ok(writer)
    }

    /// Writes and flushes one row; `values` holds one batch per group of columns, in header order.
    pub fn write_row(&mut self, time: f64, values: &[Values]) -> Result<()> {
        let mut fields = vec![format_float(time)];
        for batch in values {
            for i in 0..batch.len() {
                fields.push(format_value(batch, i));
            }
        }
        if fields.len() != self.columns + 1 {
            return Err(Error::InvalidValue {
                item: self.path.display().to_string(),
                message: format!(
                    "a row has {} values for {} columns",
                    fields.len() - 1,
                    self.columns
                ),
            });
        }
        self.line(&fields.join(","))?;
        self.rows += 1;
        Ok(())
    }

    /// Number of data rows written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn line(&mut self, text: &str) -> Result<()> {
        writeln!(self.writer, "{text}")
            .and_then(|_| self.writer.flush())
            .map_err(|e| Error::io(&self.path, e))
    }
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Shortest text that reads back to the same f64, in exponent form for very large or small
/// magnitudes.
pub fn format_float(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || (1e-4..1e15).contains(&magnitude) || !value.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

fn format_value(values: &Values, i: usize) -> String {
    match values {
        Values::Float(v) => format_float(v[i]),
        Values::Int(v) => v[i].to_string(),
        Values::UInt(v) => v[i].to_string(),
        Values::Bool(v) => u8::from(v[i]).to_string(),
        Values::String(v) => quote(&v[i]),
        Values::Binary(v) => v[i].iter().map(|b| format!("{b:02x}")).collect(),
    }
}
