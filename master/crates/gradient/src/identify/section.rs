//! The `[identify]` section of a system file: the defaults of `tandem identify`, each of which
//! the command line overrides (read like [`crate::section`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

/// The name of the table this section is in.
pub const SECTION: &str = "identify";

/// `[identify]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct IdentifySection {
    /// The parameters with bounds, `component.parameter=lower:upper`.
    #[serde(default)]
    pub parameters: Vec<String>,
    /// The measurements (CSV), relative to the system file.
    pub data: Option<PathBuf>,
    /// Weights of measured columns, by column name.
    #[serde(default)]
    pub weights: BTreeMap<String, f64>,
    /// Most L-BFGS iterations.
    pub max_iterations: Option<u64>,
    /// Stop when the gradient's norm falls below this fraction of its start value.
    pub gradient_tolerance: Option<f64>,
    /// Keep FMU states every this many macro points (0: all).
    pub checkpoint_interval: Option<usize>,
    /// Where to write the fitted parameters (`.toml` or `.csv`), relative to the system file.
    pub output: Option<PathBuf>,
    /// Where to draw measured and fitted outputs (`.png` or `.svg`), relative to the system file.
    pub plot: Option<PathBuf>,
}
