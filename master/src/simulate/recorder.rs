//! Recording the chosen variables of an instance into the CSV result file.

use std::path::Path;

use crate::error::{Error, Result};
use crate::instance::FmuInstance;
use crate::model_description::{Causality, ModelDescription, Values, VariableType};
use crate::output::csv::CsvWriter;
use crate::Fmu;

/// Variables read with one batched call.
struct Group {
    ty: VariableType,
    references: Vec<u32>,
}

/// Reads the recorded variables and appends rows to the result file.
pub struct Recorder {
    groups: Vec<Group>,
    writer: CsvWriter,
    buffer: Vec<Values>,
}

impl Recorder {
    /// A recorder of `names` (default: every scalar output) writing to `path`.
    pub fn create(fmu: &Fmu, names: Option<&[String]>, path: &Path) -> Result<Self> {
        let md = fmu.model_description();
        let chosen: Vec<&crate::model_description::Variable> = match names {
            Some(names) => names
                .iter()
                .map(|name| {
                    md.variable(name).ok_or_else(|| Error::UnknownVariable {
                        fmu: fmu.path().to_path_buf(),
                        name: name.clone(),
                    })
                })
                .collect::<Result<_>>()?,
            None => default_outputs(md),
        };
        let mut groups: Vec<Group> = Vec::new();
        let mut header = Vec::new();
        // Consecutive variables of one type share a batch; the header follows the batches.
        for variable in chosen {
            if !variable.is_scalar() || matches!(variable.ty, VariableType::Clock) {
                continue;
            }
            match groups.last_mut() {
                Some(group) if group.ty == variable.ty => {
                    group.references.push(variable.value_reference)
                }
                _ => groups.push(Group {
                    ty: variable.ty,
                    references: vec![variable.value_reference],
                }),
            }
            header.push(variable.name.clone());
        }
        Ok(Recorder {
            groups,
            writer: CsvWriter::create(path, &header)?,
            buffer: Vec::new(),
        })
    }

    /// Reads the variables at `time` and writes one row.
    pub fn record(&mut self, instance: &mut dyn FmuInstance, time: f64) -> Result<()> {
        self.buffer.clear();
        for group in &self.groups {
            self.buffer
                .push(instance.get_values(group.ty, &group.references)?);
        }
        self.writer.write_row(time, &self.buffer)
    }

    /// Number of rows written.
    pub fn rows(&self) -> usize {
        self.writer.rows()
    }
}

fn default_outputs(md: &ModelDescription) -> Vec<&crate::model_description::Variable> {
    md.variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .collect()
}
