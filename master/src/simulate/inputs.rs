//! Input signals from a CSV file (first column time, one column per input variable):
//! linear interpolation for continuous float inputs, the last value for all others.

use std::path::Path;

use super::time_table::TimeTable;
use crate::error::{Error, Result};
use crate::instance::FmuInstance;
use crate::model_description::{Causality, Values, Variability, VariableType};
use crate::suggest::did_you_mean;
use crate::Fmu;

struct Column {
    name: String,
    value_reference: u32,
    ty: VariableType,
    continuous: bool,
}

/// The input table of a simulation.
pub struct InputTable {
    table: TimeTable,
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
        let table = TimeTable::read(path)?;
        let mut columns = Vec::new();
        for name in &table.names {
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
            });
        }
        Ok(InputTable { table, columns })
    }

    /// The names of the input columns.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }

    /// The value of every column at `time`; at a repeated time the later row applies.
    fn values_at(&self, time: f64) -> impl Iterator<Item = (&Column, f64)> {
        self.columns
            .iter()
            .enumerate()
            .map(move |(i, column)| (column, self.table.value_at(i, time, column.continuous)))
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
