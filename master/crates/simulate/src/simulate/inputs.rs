//! Input signals from a CSV file (first column time, one column per input variable) or a
//! table of them in memory:
//! linear interpolation for continuous float inputs, the last value for all others. A column
//! of an input Clock holds its ticks instead: a row with a value other than 0 ticks it.

use std::path::{Path, PathBuf};

use fmi_host::import::Fmu;
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{Causality, Values, Variability, VariableType};
use fmi_host::suggest::did_you_mean;
use tandem_cosim::time_table::TimeTable;
use tandem_cosim::{Error, Result};

struct Column {
    name: String,
    /// The column in the table (input clocks take columns too).
    index: usize,
    value_reference: u32,
    ty: VariableType,
    continuous: bool,
}

/// Where a simulation's input signals come from.
#[derive(Debug, Clone)]
pub enum InputSignals {
    /// A CSV file (`--input-file`).
    File(PathBuf),
    /// A table in memory, from a caller that holds the signals in its own data structures.
    Table(TimeTable),
}

/// The input table of a simulation.
pub struct InputTable {
    table: TimeTable,
    columns: Vec<Column>,
    /// `(name, column in the table)` of the input clocks, which are not applied as values.
    clocks: Vec<(String, usize)>,
}

impl InputTable {
    /// The signals `source` gives, each column matched to an input variable of `fmu`.
    pub fn of(fmu: &Fmu, source: &InputSignals) -> Result<Self> {
        match source {
            InputSignals::File(path) => Self::new(fmu, TimeTable::read(path)?),
            InputSignals::Table(table) => Self::new(fmu, table.clone()),
        }
    }

    /// Matches each column of `table` to an input variable of `fmu`.
    pub fn new(fmu: &Fmu, table: TimeTable) -> Result<Self> {
        let md = fmu.model_description();
        let path = table.path.clone();
        let bad = |message: String| Error::input_file(path.clone(), message);
        let mut columns = Vec::new();
        let mut clocks = Vec::new();
        for (index, name) in table.names.iter().enumerate() {
            let variable = md.variable(name).ok_or_else(|| {
                bad(format!(
                    "column \"{name}\" is no variable of {}{}",
                    fmu.path().display(),
                    did_you_mean(name, md.variable_names())
                ))
            })?;
            if variable.causality != Causality::Input {
                return Err(bad(format!(
                    "column \"{name}\": the variable's causality is {}, not input",
                    variable.causality
                )));
            }
            if variable.ty == VariableType::Clock {
                clocks.push((name.to_string(), index));
                continue;
            }
            if !variable.ty.is_numeric() && variable.ty != VariableType::Boolean {
                return Err(bad(format!(
                    "column \"{name}\": {} inputs cannot be read from CSV",
                    variable.ty
                )));
            }
            columns.push(Column {
                name: name.to_string(),
                index,
                value_reference: variable.value_reference,
                ty: variable.ty,
                continuous: variable.ty.is_float()
                    && variable.variability == Variability::Continuous,
            });
        }
        Ok(InputTable {
            table,
            columns,
            clocks,
        })
    }

    /// The input clocks of the table, each with the times of the rows that tick it (a value
    /// other than 0), in file order without repeats.
    pub fn clock_ticks(&self) -> impl Iterator<Item = (&str, Vec<f64>)> {
        self.clocks.iter().map(|(name, index)| {
            let mut times: Vec<f64> = self
                .table
                .times
                .iter()
                .zip(&self.table.columns[*index])
                .filter(|(_, &value)| value != 0.0)
                .map(|(&time, _)| time)
                .collect();
            times.dedup();
            (name.as_str(), times)
        })
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.table.path
    }

    /// The names of the input columns.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }

    /// The value of every column at `time`; at a repeated time the later row applies.
    fn values_at(&self, time: f64) -> impl Iterator<Item = (&Column, f64)> {
        self.columns.iter().map(move |column| {
            let value = self.table.value_at(column.index, time, column.continuous);
            (column, value)
        })
    }

    /// Writes the inputs at `time` into the instance.
    pub fn apply(&self, instance: &mut dyn FmuInstance, time: f64) -> Result<()> {
        for (column, value) in self.values_at(time) {
            let reference = [column.value_reference];
            if column.ty == VariableType::Float64 {
                // The common case, without the allocation of a `Values`.
                instance.set_real(&reference, &[value])?;
            } else {
                let values = Values::from_numbers(column.ty, &[value]);
                instance.set_values(column.ty, &reference, &values)?;
            }
        }
        Ok(())
    }

    /// Whether any input changes continuously (then the integrator must set them at every stage).
    pub fn has_continuous(&self) -> bool {
        self.columns.iter().any(|c| c.continuous)
    }
}
