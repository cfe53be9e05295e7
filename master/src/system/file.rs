//! The system file as written: its TOML schema, read with serde, keeping the position of
//! every item a later check may have to point at.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::energy::{BondEntry, EnergyEntry};
use crate::schedule::{Extrapolation, ScheduleKind};

/// A system file as written, before any check against the FMUs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemFile {
    /// Short-form connections, `"a.y -> b.u"` (a top-level key: it must come before the first table).
    #[serde(default)]
    pub connections: Vec<Spanned<String>>,
    /// `[experiment]`.
    pub experiment: ExperimentEntry,
    /// The `[[component]]` tables.
    #[serde(default, rename = "component")]
    pub components: Vec<ComponentEntry>,
    /// The `[[connection]]` tables.
    #[serde(default, rename = "connection")]
    pub connection_tables: Vec<ConnectionEntry>,
    /// `[schedule]`.
    #[serde(default)]
    pub schedule: ScheduleEntry,
    /// `[output]`.
    #[serde(default)]
    pub output: OutputEntry,
    /// The `[[bond]]` tables: power bonds between components.
    #[serde(default, rename = "bond")]
    pub bonds: Vec<BondEntry>,
    /// `[energy]`: energy monitoring and correction.
    pub energy: Option<EnergyEntry>,
}

/// `[experiment]`: the simulated interval and the macro (communication) step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentEntry {
    /// Start time (default 0).
    pub start: Option<Spanned<f64>>,
    /// Stop time.
    pub stop: Spanned<f64>,
    /// Macro step H.
    pub step: Spanned<f64>,
}

/// One `[[component]]`: an FMU instance with its settings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentEntry {
    /// Instance name, used as `name.variable` in connections and result columns.
    pub name: Spanned<String>,
    /// The .fmu file, relative to the system file.
    pub fmu: Spanned<String>,
    /// The component's own step: the macro step divided by a whole number (default: the macro step).
    pub step: Option<Spanned<f64>>,
    /// The component's own input extrapolation (default: `[schedule] extrapolation`).
    pub extrapolation: Option<Extrapolation>,
    /// Parameter values, set before initialization.
    #[serde(default)]
    pub parameters: BTreeMap<String, Spanned<toml::Value>>,
    /// Start values of other variables (states, inputs), set before initialization.
    #[serde(default)]
    pub start: BTreeMap<String, Spanned<toml::Value>>,
}

/// One `[[connection]]`: an output feeding an input.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionEntry {
    /// `component.output`.
    pub from: Spanned<String>,
    /// `component.input`.
    pub to: Spanned<String>,
}

/// `[schedule]`: how the components advance over a macro step.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleEntry {
    /// `"jacobi"` (default) or `"gauss-seidel"`.
    #[serde(default)]
    pub kind: ScheduleKind,
    /// Gauss-Seidel: the order in which the components step (default: file order).
    pub order: Option<Spanned<Vec<Spanned<String>>>>,
    /// `"zoh"` (default), `"foh"` or `"soh"`.
    #[serde(default)]
    pub extrapolation: Extrapolation,
}

/// `[output]`: what is recorded and where.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputEntry {
    /// Result file, relative to the system file.
    pub file: Option<Spanned<String>>,
    /// Recorded variables as `component.variable` (default: every output of every component).
    pub variables: Option<Vec<Spanned<String>>>,
}
