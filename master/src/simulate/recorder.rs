//! Recording the chosen variables of an instance into the CSV result file, refusing
//! non-finite values, and keeping a numeric trace of some variables in memory for plots.

use std::path::Path;

use super::selection;
use crate::error::{Error, Result};
use crate::instance::FmuInstance;
use crate::model_description::{DisplayUnit, Values, Variable, VariableType};
use crate::output::column::Column;
use crate::output::csv::CsvWriter;
use crate::Fmu;

/// Variables read with one batched call.
struct Group {
    ty: VariableType,
    references: Vec<u32>,
}

/// Scalar variables in batches of one type each, in the order given.
struct Selection {
    names: Vec<String>,
    groups: Vec<Group>,
    /// `(group, index in the group, unit)` of every column shown in an alias's display unit.
    conversions: Vec<(usize, usize, DisplayUnit)>,
}

impl Selection {
    /// The scalar, non-clock variables among `columns`, batched by consecutive type.
    fn new<'a>(columns: impl IntoIterator<Item = (&'a Variable, Column)>) -> Self {
        let mut selection = Selection {
            names: Vec::new(),
            groups: Vec::new(),
            conversions: Vec::new(),
        };
        for (variable, column) in columns {
            if !variable.is_scalar() || matches!(variable.ty, VariableType::Clock) {
                continue;
            }
            match selection.groups.last_mut() {
                Some(group) if group.ty == variable.ty => {
                    group.references.push(variable.value_reference)
                }
                _ => selection.groups.push(Group {
                    ty: variable.ty,
                    references: vec![variable.value_reference],
                }),
            }
            if let Some(unit) = column.display_unit {
                let group = selection.groups.len() - 1;
                let index = selection.groups[group].references.len() - 1;
                selection.conversions.push((group, index, unit));
            }
            selection.names.push(column.name);
        }
        selection
    }

    /// A buffer of the right shape for [`Selection::read`].
    fn buffer(&self) -> Vec<Values> {
        self.groups
            .iter()
            .map(|group| match group.ty {
                VariableType::Float64 => Values::Float(vec![0.0; group.references.len()]),
                _ => Values::Float(Vec::new()),
            })
            .collect()
    }

    /// Reads every batch into `buffer` (made by [`Selection::buffer`]): Float64 batches in
    /// place, without allocating, the others through [`FmuInstance::get_values`].
    fn read(&self, instance: &mut dyn FmuInstance, buffer: &mut [Values]) -> Result<()> {
        for (group, values) in self.groups.iter().zip(buffer.iter_mut()) {
            match (group.ty, &mut *values) {
                (VariableType::Float64, Values::Float(values)) => {
                    instance.get_real(&group.references, values)?
                }
                _ => *values = instance.get_values(group.ty, &group.references)?,
            }
        }
        for (group, index, unit) in &self.conversions {
            if let Values::Float(values) = &mut buffer[*group] {
                values[*index] = unit.from_unit(values[*index]);
            }
        }
        Ok(())
    }
}

/// Numeric samples of some variables at every recorded row, kept for plotting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Variable names.
    pub names: Vec<String>,
    /// Row times.
    pub time: Vec<f64>,
    /// One column per name.
    pub columns: Vec<Vec<f64>>,
}

/// Reads the recorded variables and appends rows to the result file.
pub struct Recorder {
    recorded: Selection,
    writer: CsvWriter,
    buffer: Vec<Values>,
    traced: Option<(Selection, Vec<Values>, Trace)>,
    /// What the summary line says about a default choice other than the outputs.
    remark: Option<String>,
    /// How many columns of 0/1 flags the master writes after the variables (the clocks of a
    /// Scheduled Execution run).
    flags: usize,
}

impl Recorder {
    /// A recorder of `names` (default: see [`selection::default_columns`]) writing to `path`, which also
    /// keeps the numeric variables `traced` in memory. The columns `flags` follow the
    /// variables, written by [`Recorder::record_with_flags`]. `admit` sees the number of
    /// columns (time included) before the file is created, and may refuse it.
    pub fn create(
        fmu: &Fmu,
        names: Option<&[String]>,
        path: &Path,
        traced: Option<&[String]>,
        flags: &[String],
        admit: impl FnOnce(usize) -> Result<()>,
    ) -> Result<Self> {
        let md = fmu.model_description();
        let (recorded, remark) = match names {
            Some(names) => (Selection::new(lookup(fmu, names)?), None),
            None => {
                let (columns, choice, available) = selection::default_columns(md);
                // Aliases come only with outputs, which make no remark.
                let remark = choice.remark(columns.len(), available);
                (Selection::new(columns), remark)
            }
        };
        let traced = traced
            .map(|names| -> Result<_> {
                let variables = lookup(fmu, names)?;
                if let Some((v, _)) = variables.iter().find(|(v, _)| !is_numeric(v)) {
                    return Err(Error::InvalidValue {
                        item: format!("plot variable {}", v.name),
                        message: format!("{} variables cannot be plotted", v.ty),
                    });
                }
                let selection = Selection::new(variables);
                let trace = Trace {
                    columns: vec![Vec::new(); selection.names.len()],
                    names: selection.names.clone(),
                    time: Vec::new(),
                };
                Ok((selection.buffer(), selection, trace))
            })
            .transpose()?;
        admit(recorded.names.len() + flags.len() + 1)?;
        let header: Vec<String> = recorded.names.iter().chain(flags).cloned().collect();
        Ok(Recorder {
            writer: CsvWriter::create(path, &header)?,
            flags: flags.len(),
            remark,
            buffer: recorded.buffer(),
            recorded,
            traced: traced.map(|(buffer, selection, trace)| (selection, buffer, trace)),
        })
    }

    /// Reads the variables at `time` and writes one row; a non-finite Float value is an error
    /// naming the variables, and the row is not written. A signal received is an error once
    /// the row is written.
    pub fn record(&mut self, instance: &mut dyn FmuInstance, time: f64) -> Result<()> {
        self.record_with_flags(instance, time, &[])
    }

    /// [`Recorder::record`] with the flag columns: 1 where `flags` is true, else 0 (one flag
    /// per column given at creation).
    pub fn record_with_flags(
        &mut self,
        instance: &mut dyn FmuInstance,
        time: f64,
        flags: &[bool],
    ) -> Result<()> {
        debug_assert_eq!(flags.len(), self.flags, "one flag per flag column");
        self.recorded.read(instance, &mut self.buffer)?;
        let non_finite = non_finite_columns(&self.recorded.names, &self.buffer);
        if !non_finite.is_empty() {
            return Err(Error::Simulation {
                time,
                message: format!("{} returned {}", instance.name(), non_finite.join(", ")),
            });
        }
        if self.flags == 0 {
            self.writer.write_row(time, &self.buffer)?;
        } else {
            let numbers = flags
                .iter()
                .map(|&flag| f64::from(u8::from(flag)))
                .collect();
            self.buffer.push(Values::Float(numbers));
            let written = self.writer.write_row(time, &self.buffer);
            self.buffer.pop();
            written?;
        }
        if let Some((selection, buffer, trace)) = &mut self.traced {
            selection.read(instance, buffer)?;
            trace.time.push(time);
            let values = buffer
                .iter()
                .flat_map(|batch| (0..batch.len()).map(move |i| numeric_value(batch, i)));
            for (column, value) in trace.columns.iter_mut().zip(values) {
                column.push(value);
            }
        }
        // At every row, not only every step: one step may pass many rows.
        crate::interrupt::check(time)
    }

    /// Why the recorded variables are not the outputs, when they were chosen by default.
    pub fn remark(&self) -> Option<&str> {
        self.remark.as_deref()
    }

    /// The FMU calls one row makes (one per batch of one type, recorded and traced).
    pub fn calls_per_row(&self) -> usize {
        self.recorded.groups.len()
            + self
                .traced
                .as_ref()
                .map_or(0, |(selection, _, _)| selection.groups.len())
    }

    /// Number of rows written.
    pub fn rows(&self) -> usize {
        self.writer.rows()
    }

    /// Writes the rows still buffered to the result file.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush()
    }

    /// The in-memory samples of the traced variables, if any were asked for.
    pub fn trace(&self) -> Option<&Trace> {
        self.traced.as_ref().map(|(_, _, trace)| trace)
    }
}

/// The variables or aliases `names` name (see [`selection::expand`]) and their columns, or
/// an error naming the first request that names nothing.
fn lookup<'a>(fmu: &'a Fmu, names: &[String]) -> Result<Vec<(&'a Variable, Column)>> {
    let md = fmu.model_description();
    selection::expand(md, names).map_err(|name| Error::unknown_variable(fmu.path(), md, &name))
}

/// Whether the variable's values can be drawn as numbers.
pub(super) fn is_numeric(variable: &Variable) -> bool {
    !matches!(
        variable.ty,
        VariableType::String | VariableType::Binary | VariableType::Clock
    )
}

/// `name = value` for every non-finite Float value of a row (batches in column order).
fn non_finite_columns(names: &[String], row: &[Values]) -> Vec<String> {
    let mut column = 0;
    let mut found = Vec::new();
    for batch in row {
        if let Values::Float(values) = batch {
            for (offset, value) in values.iter().enumerate() {
                if !value.is_finite() {
                    found.push(format!("{} = {value}", names[column + offset]));
                }
            }
        }
        column += batch.len();
    }
    found
}

/// Value `i` of a numeric batch as f64 (Booleans as 0 and 1; the traced variables are
/// numeric, checked when the recorder is made).
fn numeric_value(batch: &Values, i: usize) -> f64 {
    match batch {
        Values::Float(v) => v[i],
        Values::Int(v) => v[i] as f64,
        Values::UInt(v) => v[i] as f64,
        Values::Bool(v) => f64::from(u8::from(v[i])),
        Values::String(_) | Values::Binary(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_named_by_column() {
        let names: Vec<String> = ["a", "n", "b", "c"].map(String::from).into();
        let row = [
            Values::Float(vec![1.0]),
            Values::Int(vec![3]),
            Values::Float(vec![f64::NAN, f64::NEG_INFINITY]),
        ];
        assert_eq!(non_finite_columns(&names, &row), ["b = NaN", "c = -inf"]);
        assert!(non_finite_columns(&names[..2], &row[..2]).is_empty());
    }
}
