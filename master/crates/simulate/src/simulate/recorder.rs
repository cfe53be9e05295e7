//! Recording the chosen variables of an instance into the CSV result file (an array one column
//! per element), refusing non-finite values, and keeping a numeric trace of some variables in memory for plots.

use std::path::Path;

use super::selection;
use super::trace::{value_type, Trace};
use crate::csv::CsvWriter;
use fmi_host::import::Fmu;
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{DisplayUnit, Shapes, Values, Variable, VariableType};
use tandem_cosim::column::Column;
use tandem_cosim::{Error, Result};

/// Variables of one type read with one batched call, and the columns taken from what it
/// reads.
struct Group {
    ty: VariableType,
    references: Vec<u32>,
    /// Where each reference's elements begin among the elements read.
    starts: Vec<usize>,
    /// Elements read: one per scalar, every element of an array.
    count: usize,
    /// For each column of the group, its position among the elements read.
    picks: Vec<usize>,
}

/// Columns of scalar variables and array elements, read in batches of one type each, in the
/// order given.
struct Selection {
    names: Vec<String>,
    /// The type of each column's variable.
    types: Vec<VariableType>,
    groups: Vec<Group>,
    /// `(group, column in the group, unit)` of every column shown in an alias's display unit.
    conversions: Vec<(usize, usize, DisplayUnit)>,
    /// What each group read: every element of its variables.
    read: Vec<Values>,
    /// Each group's columns, as the result file takes them.
    columns: Vec<Values>,
}

impl Selection {
    /// The non-clock columns among `columns` (arrays of unknown shape left out), batched by
    /// consecutive type; an array is read whole, once per batch, whatever elements are shown.
    fn new<'a>(
        shapes: &Shapes<'_>,
        columns: impl IntoIterator<Item = (&'a Variable, Column)>,
    ) -> Self {
        let mut groups: Vec<Group> = Vec::new();
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut conversions = Vec::new();
        for (variable, column) in columns {
            let Ok(count) = shapes.count(variable) else {
                continue;
            };
            if matches!(variable.ty, VariableType::Clock) {
                continue;
            }
            if groups.last().is_none_or(|group| group.ty != variable.ty) {
                groups.push(Group {
                    ty: variable.ty,
                    references: Vec::new(),
                    starts: Vec::new(),
                    count: 0,
                    picks: Vec::new(),
                });
            }
            let index = groups.len() - 1;
            let group = &mut groups[index];
            let reference = variable.value_reference;
            let start = match group.references.iter().position(|&r| r == reference) {
                Some(k) => group.starts[k],
                None => {
                    group.references.push(reference);
                    group.starts.push(group.count);
                    group.count += count;
                    group.count - count
                }
            };
            group.picks.push(start + column.element.unwrap_or(0));
            if let Some(unit) = column.display_unit {
                conversions.push((index, group.picks.len() - 1, unit));
            }
            names.push(column.name);
            types.push(variable.ty);
        }
        let read = groups
            .iter()
            .map(|group| match group.ty {
                VariableType::Float64 => Values::Float(vec![0.0; group.count]),
                _ => Values::Float(Vec::new()),
            })
            .collect();
        let columns = groups
            .iter()
            .map(|group| match group.ty {
                VariableType::Float64 => Values::Float(vec![0.0; group.picks.len()]),
                _ => Values::Float(Vec::new()),
            })
            .collect();
        Selection {
            names,
            types,
            groups,
            conversions,
            read,
            columns,
        }
    }

    /// Reads every batch and takes its columns, one [`Values`] per batch: Float64 batches
    /// in place, without allocating, the others through
    /// [`get_elements`](fmi_host::instance::Common::get_elements).
    fn read(&mut self, instance: &mut dyn FmuInstance) -> Result<()> {
        for ((group, read), columns) in self
            .groups
            .iter()
            .zip(self.read.iter_mut())
            .zip(self.columns.iter_mut())
        {
            match (group.ty, &mut *read) {
                (VariableType::Float64, Values::Float(values)) => {
                    instance.get_real(&group.references, values)?
                }
                _ => *read = instance.get_elements(group.ty, &group.references, group.count)?,
            }
            pick(read, &group.picks, columns);
        }
        for (group, index, unit) in &self.conversions {
            if let Values::Float(values) = &mut self.columns[*group] {
                values[*index] = unit.from_unit(values[*index]);
            }
        }
        Ok(())
    }
}

/// The values of `read` at `picks`, into `columns` (in place, without allocating, for floats).
fn pick(read: &Values, picks: &[usize], columns: &mut Values) {
    match (read, &mut *columns) {
        (Values::Float(read), Values::Float(columns)) if columns.len() == picks.len() => {
            for (column, &p) in columns.iter_mut().zip(picks) {
                *column = read[p];
            }
        }
        (Values::Float(v), _) => *columns = Values::Float(picks.iter().map(|&p| v[p]).collect()),
        (Values::Int(v), _) => *columns = Values::Int(picks.iter().map(|&p| v[p]).collect()),
        (Values::UInt(v), _) => *columns = Values::UInt(picks.iter().map(|&p| v[p]).collect()),
        (Values::Bool(v), _) => *columns = Values::Bool(picks.iter().map(|&p| v[p]).collect()),
        (Values::String(v), _) => {
            *columns = Values::String(picks.iter().map(|&p| v[p].clone()).collect())
        }
        (Values::Binary(v), _) => {
            *columns = Values::Binary(picks.iter().map(|&p| v[p].clone()).collect())
        }
    }
}

/// Reads the recorded variables and appends rows to the result file, if there is one.
pub struct Recorder {
    recorded: Selection,
    writer: Option<CsvWriter>,
    /// Rows recorded, written or not.
    rows: usize,
    traced: Option<(Selection, Trace)>,
    /// What the summary line says about a default choice other than the outputs.
    remark: Option<String>,
    /// The 0/1 flags the master writes after the variables (the clocks of a Scheduled
    /// Execution run), one per flag column, kept to spare an allocation per row.
    flag_values: Values,
}

impl Recorder {
    /// A recorder of `names` (default: see [`selection::default_variables`]) writing to `path`
    /// (none: no file, the rows only checked and traced), which also keeps the numeric variables `traced` in memory; arrays have the shapes
    /// `shapes` give. The columns `flags` follow the variables, written by
    /// [`Recorder::record_with_flags`]. `admit` sees the number of columns (time included)
    /// before the file is created, and may refuse it.
    pub fn create(
        fmu: &Fmu,
        shapes: &Shapes<'_>,
        names: Option<&[String]>,
        path: Option<&Path>,
        traced: Option<&[String]>,
        flags: &[String],
        admit: impl FnOnce(usize) -> Result<()>,
    ) -> Result<Self> {
        let (recorded, remark) = match names {
            Some(names) => (Selection::new(shapes, lookup(fmu, shapes, names)?), None),
            None => {
                let (columns, choice, available) = selection::default_variables(shapes);
                let remark = choice.remark(columns.len(), available);
                (Selection::new(shapes, columns), remark)
            }
        };
        let traced = traced
            .map(|names| -> Result<_> {
                let columns = lookup(fmu, shapes, names)?;
                if let Some((v, _)) = columns.iter().find(|(v, _)| !is_numeric(v)) {
                    return Err(Error::invalid_value(
                        format!("plot variable {}", v.name),
                        format!("{} variables cannot be plotted", v.ty),
                    ));
                }
                let selection = Selection::new(shapes, columns);
                let version = fmu.model_description().fmi_version;
                let types = selection.types.iter();
                let trace = Trace::new(
                    selection.names.clone(),
                    types.map(|&ty| value_type(ty, version)).collect(),
                );
                Ok((selection, trace))
            })
            .transpose()?;
        admit(recorded.names.len() + flags.len() + 1)?;
        let header: Vec<String> = recorded.names.iter().chain(flags).cloned().collect();
        Ok(Recorder {
            writer: path
                .map(|path| CsvWriter::create(path, &header))
                .transpose()?,
            rows: 0,
            flag_values: Values::Float(vec![0.0; flags.len()]),
            remark,
            recorded,
            traced,
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
        debug_assert_eq!(
            flags.len(),
            self.flag_values.len(),
            "one flag per flag column"
        );
        self.recorded.read(instance)?;
        let row = &mut self.recorded.columns;
        let non_finite = non_finite_columns(&self.recorded.names, row);
        if !non_finite.is_empty() {
            return Err(Error::simulation(
                time,
                format!("{} returned {}", instance.name(), non_finite.join(", ")),
            ));
        }
        if let Some(writer) = &mut self.writer {
            write_row(writer, time, row, &mut self.flag_values, flags)?;
        }
        self.rows += 1;
        if let Some((selection, trace)) = &mut self.traced {
            selection.read(instance)?;
            trace.time.push(time);
            let values = selection
                .columns
                .iter()
                .flat_map(|batch| (0..batch.len()).map(move |i| numeric_value(batch, i)));
            for (column, value) in trace.columns.iter_mut().zip(values) {
                column.push(value);
            }
        }
        // At every row, not only every step: one step may pass many rows.
        tandem_cosim::stop::check(time)
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
                .map_or(0, |(selection, _)| selection.groups.len())
    }

    /// Number of rows written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes the rows still buffered to the result file.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.as_mut().map_or(Ok(()), CsvWriter::flush)
    }

    /// The in-memory samples of the traced variables, if any were asked for; the recorder
    /// keeps no more of them.
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.traced.take().map(|(_, trace)| trace)
    }
}

/// Writes the values `row` at `time`, followed by the flag columns: 1 where `flags` is true,
/// else 0 (`flag_values` holds one number per flag column, kept to spare an allocation per
/// row).
fn write_row(
    writer: &mut CsvWriter,
    time: f64,
    row: &mut Vec<Values>,
    flag_values: &mut Values,
    flags: &[bool],
) -> Result<()> {
    if flags.is_empty() {
        return writer.write_row(time, row);
    }
    if let Values::Float(numbers) = flag_values {
        for (number, &flag) in numbers.iter_mut().zip(flags) {
            *number = f64::from(u8::from(flag));
        }
    }
    row.push(std::mem::replace(flag_values, Values::Float(Vec::new())));
    let written = writer.write_row(time, row);
    *flag_values = row.pop().expect("the flags pushed above");
    written
}

/// The variables or aliases `names` name (see [`selection::expand`]) and their columns, or
/// an error naming the first request that names nothing.
fn lookup<'a>(
    fmu: &Fmu,
    shapes: &Shapes<'a>,
    names: &[String],
) -> Result<Vec<(&'a Variable, Column)>> {
    let md = fmu.model_description();
    selection::expand(shapes, names)
        .map_err(|name| Error::from(fmi_host::Error::unknown_variable(fmu.path(), md, &name)))
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
