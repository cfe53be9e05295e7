//! The `[[experiments]]` entries of a system file: several experiments of one system, each
//! with its measurements, its own start values (excitation parameters, initial states) and a
//! weight. This crate reads them; evaluating their sum, on threads or across the ranks of a
//! cluster, is the command line's business.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::section;
use tandem_cosim::{Error, Result};

/// The name of the array of tables the experiments are in.
pub const SECTION: &str = "experiments";

/// One `[[experiments]]` entry as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentEntry {
    /// The measurements (CSV), relative to the system file.
    pub data: PathBuf,
    /// Values of this experiment, `component.variable = number` (parameters or start values).
    #[serde(default)]
    pub start: BTreeMap<String, f64>,
    /// The weight of its cost in the sum (default 1).
    #[serde(default = "one")]
    pub weight: f64,
}

fn one() -> f64 {
    1.0
}

/// The `[[experiments]]` entries of the system file `path` (none when it has none).
pub fn read(path: &Path) -> Result<Vec<ExperimentEntry>> {
    let entries: Vec<ExperimentEntry> = section::read(path, SECTION)?.unwrap_or_default();
    for (index, entry) in entries.iter().enumerate() {
        if !(entry.weight.is_finite() && entry.weight > 0.0) {
            return Err(Error::input_file(
                path.to_path_buf(),
                format!(
                    "[[experiments]] entry {}: weight = {} must be a positive number",
                    index + 1,
                    entry.weight
                ),
            ));
        }
    }
    Ok(entries)
}
