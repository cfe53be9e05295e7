//! The `[gradient]` section of a system file: the defaults of `tandem gradient`, each of which
//! the command line overrides, and the problem it describes on its own ([`problem`], for
//! callers without a command line). Other commands' sections are read the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::cost::{CostSource, CostSpec};
use super::problem::{Checkpointing, Problem};
use tandem_cosim::system::{LoadOptions, System};
use tandem_cosim::{Error, Result};

/// The name of the table this section is in.
pub const SECTION: &str = "gradient";

/// `[gradient]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GradientSection {
    /// The parameters, `component.parameter`.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// `least-squares` or `integral:component.output`.
    pub cost: Option<String>,
    /// The measurements (CSV), relative to the system file.
    pub data: Option<PathBuf>,
    /// Weights of measured columns, by column name.
    #[serde(default)]
    pub weights: BTreeMap<String, f64>,
    /// Keep FMU states every this many macro points (0: all).
    pub checkpoint_interval: Option<usize>,
}

impl GradientSection {
    /// The section of the system file `path`, empty when the file has none.
    pub fn of(path: &Path) -> Result<Self> {
        Ok(read(path, SECTION)?.unwrap_or_default())
    }
}

/// Reads the table `name` of the system file `path` as a `T`, if the file has one. The table is
/// resolved against the file (see [`resolve`] for paths inside it).
pub fn read<T: DeserializeOwned>(path: &Path, name: &str) -> Result<Option<T>> {
    let text = tandem_files::read_text(path).map_err(|e| Error::io(path, e))?;
    let invalid = |message: String| Error::InputFile {
        path: path.to_path_buf(),
        message,
    };
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    table
        .remove(name)
        .map(|value| {
            T::deserialize(value)
                .map_err(|e| invalid(format!("[{name}]: {}", e.to_string().trim_end())))
        })
        .transpose()
}

/// A path written in the system file `system`: relative to its folder.
pub fn resolve(system: &Path, written: &Path) -> PathBuf {
    system.parent().unwrap_or(Path::new("")).join(written)
}

/// The gradient problem of the system file `path` as its `[gradient]` section states it
/// (parameters, cost, data, weights, checkpoint interval), the system loaded with `options`.
pub fn problem(path: &Path, options: LoadOptions) -> Result<Problem> {
    let mut sections = options.sections.to_vec();
    if !sections.contains(&SECTION) {
        sections.push(SECTION);
    }
    let options = LoadOptions {
        sections: &sections,
        ..options
    };
    let section: GradientSection = read(path, SECTION)?.ok_or_else(|| Error::InputFile {
        path: path.to_path_buf(),
        message: "no [gradient] section (parameters and cost)".into(),
    })?;
    let system = System::load(path, options)?;
    let data = section.data.as_ref().map(|d| resolve(path, d));
    let weights = section.weights.into_iter().collect();
    let source = CostSource::of(None, path, "gradient");
    let cost = CostSpec::new(section.cost.as_deref(), data, weights, &source)?;
    Ok(
        Problem::new(system, &section.parameters, &cost, "[gradient] parameters")?
            .with_checkpointing(Checkpointing::every(section.checkpoint_interval)),
    )
}
