//! Input signals from a CSV file (first column time, one column per input variable):
//! linear interpolation for continuous float inputs, the last value for all others.

use std::path::Path;

use crate::error::{Error, Result};
use crate::instance::FmuInstance;
use crate::model_description::{Causality, Values, Variability, VariableType};
use crate::Fmu;

struct Column {
    name: String,
    value_reference: u32,
    ty: VariableType,
    continuous: bool,
    values: Vec<f64>,
}

/// The input table of a simulation.
pub struct InputTable {
    times: Vec<f64>,
    columns: Vec<Column>,
}

impl InputTable {
    /// Reads `path`, matching each column after `time` to an input variable of `fmu`.
    pub fn read(fmu: &Fmu, path: &Path) -> Result<Self> {
        let md = fmu.model_description();
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
        let mut columns = Vec::new();
        for name in header.iter().skip(1) {
            let variable = md.variable(name).ok_or_else(|| {
                bad(format!(
                    "column \"{name}\" is no variable of {}",
                    fmu.path().display()
                ))
            })?;
            if variable.causality != Causality::Input {
                return Err(bad(format!(
                    "column \"{name}\": the variable's causality is {}, not input",
                    variable.causality
                )));
            }
            if !variable.ty.is_numeric() && variable.ty != VariableType::Boolean {
                return Err(bad(format!(
                    "column \"{name}\": {} inputs cannot be read from CSV",
                    variable.ty
                )));
            }
            columns.push(Column {
                name: name.to_string(),
                value_reference: variable.value_reference,
                ty: variable.ty,
                continuous: variable.ty.is_float()
                    && variable.variability == Variability::Continuous,
                values: Vec::new(),
            });
        }
        let mut times = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let line = row + 2;
            let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
            let number = |i: usize| -> Result<f64> {
                let text = record.get(i).unwrap_or("");
                match text {
                    "true" => Ok(1.0),
                    "false" => Ok(0.0),
                    _ => text.parse().map_err(|_| {
                        bad(format!(
                            "line {line}, column {}: \"{text}\" is not a number",
                            i + 1
                        ))
                    }),
                }
            };
            let time = number(0)?;
            if times.last().is_some_and(|&last| time < last) {
                return Err(bad(format!(
                    "line {line}: time {time} is before the previous row's"
                )));
            }
            times.push(time);
            for (i, column) in columns.iter_mut().enumerate() {
                column.values.push(number(i + 1)?);
            }
        }
        if times.is_empty() {
            return Err(bad("the file has no data rows".into()));
        }
        Ok(InputTable { times, columns })
    }

    /// The names of the input columns.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }

    /// The value of every column at `time`; at a repeated time the later row applies.
    fn values_at(&self, time: f64) -> impl Iterator<Item = (&Column, f64)> {
        let next = self.times.partition_point(|&t| t <= time);
        self.columns.iter().map(move |column| {
            let value = if next == 0 {
                column.values[0]
            } else if next == self.times.len() || !column.continuous {
                column.values[next - 1]
            } else {
                let (t0, t1) = (self.times[next - 1], self.times[next]);
                let (v0, v1) = (column.values[next - 1], column.values[next]);
                v0 + (v1 - v0) * (time - t0) / (t1 - t0)
            };
            (column, value)
        })
    }

    /// Writes the inputs at `time` into the instance.
    pub fn apply(&self, instance: &mut dyn FmuInstance, time: f64) -> Result<()> {
        for (column, value) in self.values_at(time) {
            let values = Values::from_numbers(column.ty, &[value]);
            instance.set_values(column.ty, &[column.value_reference], &values)?;
        }
        Ok(())
    }

    /// Whether any input changes continuously (then the integrator must set them at every stage).
    pub fn has_continuous(&self) -> bool {
        self.columns.iter().any(|c| c.continuous)
    }
}
