//! modelDescription.xml of FMI 2.0 and FMI 3.0 as typed structs.

mod clock;
mod element;
mod experiment;
mod fmi2;
mod fmi3;
mod interface;
mod parse;
mod shape;
mod structure;
mod units;
pub mod validate;
mod variable;
pub mod xml;

pub use clock::{ClockAttributes, IntervalVariability};
pub use element::{element_names, flat_index, parse_element, split_names};
pub use experiment::{DefaultExperiment, LogCategory};
pub use interface::{Capabilities, CoSimulation, InterfaceType, ModelExchange, ScheduledExecution};
pub use shape::{element_count, Shape, Shapes};
pub use structure::{DependencyKind, ModelStructure, Unknown};
pub use units::{BaseUnit, DisplayUnit, EnumerationItem, TypeDefinition, Unit, BASE_UNIT_NAMES};
pub use variable::{
    default_initial, Alias, Causality, Dimension, Initial, Values, Variability, Variable,
    VariableType,
};

use std::fmt;

/// The FMI major version of a model description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0.
    V2,
    /// FMI 3.0.
    V3,
}

impl fmt::Display for FmiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FmiVersion::V2 => "2.0",
            FmiVersion::V3 => "3.0",
        })
    }
}

/// A problem found while reading modelDescription.xml, with its position.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// Set when the file is well-formed but declares an FMI version other than 2.x/3.x.
    pub unsupported_version: Option<String>,
}

impl ParseError {
    /// An error at a position.
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            column,
            message: message.into(),
            unsupported_version: None,
        }
    }
}

/// A parsed modelDescription.xml.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelDescription {
    /// Major version.
    pub fmi_version: FmiVersion,
    /// The `fmiVersion` attribute as written.
    pub fmi_version_text: String,
    /// Model name.
    pub model_name: String,
    /// FMI 3.0 instantiationToken or FMI 2.0 guid.
    pub instantiation_token: String,
    /// Description.
    pub description: Option<String>,
    /// Author.
    pub author: Option<String>,
    /// Model version.
    pub version: Option<String>,
    /// Generating tool.
    pub generation_tool: Option<String>,
    /// Generation date and time.
    pub generation_date_and_time: Option<String>,
    /// `flat` or `structured`.
    pub variable_naming_convention: Option<String>,
    /// FMI 2.0 `numberOfEventIndicators` (FMI 3.0 lists them in the ModelStructure).
    pub number_of_event_indicators: Option<usize>,
    /// Model Exchange interface.
    pub model_exchange: Option<ModelExchange>,
    /// Co-Simulation interface.
    pub co_simulation: Option<CoSimulation>,
    /// Scheduled Execution interface (FMI 3.0).
    pub scheduled_execution: Option<ScheduledExecution>,
    /// Unit definitions.
    pub units: Vec<Unit>,
    /// Type definitions.
    pub type_definitions: Vec<TypeDefinition>,
    /// Log categories.
    pub log_categories: Vec<LogCategory>,
    /// Default experiment.
    pub default_experiment: Option<DefaultExperiment>,
    /// Variables in file order.
    pub variables: Vec<Variable>,
    /// Model structure.
    pub model_structure: ModelStructure,
}

impl ModelDescription {
    /// Parses the text of a modelDescription.xml (FMI 2.0 or 3.0).
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        parse::parse(text)
    }

    /// Every variable's name, FMI 3.0 alias names included.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.variables.iter().flat_map(|v| {
            std::iter::once(v.name.as_str()).chain(v.aliases.iter().map(|a| a.name.as_str()))
        })
    }

    /// The variable with this name (FMI 3.0 alias names included).
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.named(name).map(|(variable, _)| variable)
    }

    /// The variable named `name` and, when `name` is one of its FMI 3.0 aliases, that alias.
    pub fn named(&self, name: &str) -> Option<(&Variable, Option<&Alias>)> {
        if let Some(variable) = self.variables.iter().find(|v| v.name == name) {
            return Some((variable, None));
        }
        self.variables.iter().find_map(|v| {
            v.aliases
                .iter()
                .find(|a| a.name == name)
                .map(|alias| (v, Some(alias)))
        })
    }

    /// The display unit an alias of `variable` shows its values in: the alias's `displayUnit`
    /// among the display units of the variable's unit (`None` when either is not declared).
    pub fn alias_display_unit(&self, variable: &Variable, alias: &Alias) -> Option<&DisplayUnit> {
        let unit = self.unit_of(variable)?;
        let display = alias.display_unit.as_deref()?;
        self.units
            .iter()
            .find(|u| u.name == unit)?
            .display_units
            .iter()
            .find(|d| d.name == display)
    }

    /// Maps a ModelStructure or `derivative` reference to the index of its variable:
    /// FMI 2.0 references are 1-based indices, FMI 3.0 references are value references.
    pub fn resolve(&self, reference: u32) -> Option<usize> {
        match self.fmi_version {
            FmiVersion::V2 => (reference as usize)
                .checked_sub(1)
                .filter(|&i| i < self.variables.len()),
            // Value references are commonly the variables' positions (fmu-export numbers them
            // so): checking that one first keeps resolving a large model's structure linear.
            FmiVersion::V3 => usize::try_from(reference)
                .ok()
                .filter(|&i| {
                    self.variables
                        .get(i)
                        .is_some_and(|v| v.value_reference == reference)
                })
                .or_else(|| {
                    self.variables
                        .iter()
                        .position(|v| v.value_reference == reference)
                }),
        }
    }

    /// The continuous states in the order of the ModelStructure derivatives, as variable indices
    /// (`None` for an entry whose references do not resolve).
    pub fn states(&self) -> Vec<Option<usize>> {
        self.model_structure
            .derivatives
            .iter()
            .map(|unknown| {
                self.resolve(unknown.reference)
                    .and_then(|d| self.variables[d].derivative)
                    .and_then(|s| self.resolve(s))
            })
            .collect()
    }

    /// Number of continuous states.
    pub fn number_of_continuous_states(&self) -> usize {
        self.model_structure.derivatives.len()
    }

    /// Number of event indicators.
    pub fn number_of_event_indicators(&self) -> usize {
        match self.fmi_version {
            FmiVersion::V2 => self.number_of_event_indicators.unwrap_or(0),
            FmiVersion::V3 => self.model_structure.event_indicators.len(),
        }
    }

    /// The type definition named `name`.
    pub fn type_definition(&self, name: &str) -> Option<&TypeDefinition> {
        self.type_definitions.iter().find(|t| t.name == name)
    }

    /// The unit of a variable: its own or its declared type's.
    pub fn unit_of<'a>(&'a self, variable: &'a Variable) -> Option<&'a str> {
        variable.unit.as_deref().or_else(|| {
            variable
                .declared_type
                .as_deref()
                .and_then(|t| self.type_definition(t))
                .and_then(|t| t.unit.as_deref())
        })
    }

    /// The interfaces the FMU implements.
    pub fn interfaces(&self) -> Vec<InterfaceType> {
        let mut list = Vec::new();
        if self.model_exchange.is_some() {
            list.push(InterfaceType::ModelExchange);
        }
        if self.co_simulation.is_some() {
            list.push(InterfaceType::CoSimulation);
        }
        if self.scheduled_execution.is_some() {
            list.push(InterfaceType::ScheduledExecution);
        }
        list
    }

    /// The interfaces the FMU implements as a comma-separated list for messages, "none"
    /// rather than an empty list, which would read as if the list had been lost.
    pub fn interfaces_text(&self) -> String {
        let interfaces = self.interfaces();
        if interfaces.is_empty() {
            return "none".into();
        }
        interfaces
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The model identifier (binary name) and capabilities of an interface, if implemented.
    pub fn interface(&self, interface: InterfaceType) -> Option<(&str, &Capabilities)> {
        match interface {
            InterfaceType::ModelExchange => self
                .model_exchange
                .as_ref()
                .map(|me| (me.model_identifier.as_str(), &me.capabilities)),
            InterfaceType::CoSimulation => self
                .co_simulation
                .as_ref()
                .map(|cs| (cs.model_identifier.as_str(), &cs.capabilities)),
            InterfaceType::ScheduledExecution => self
                .scheduled_execution
                .as_ref()
                .map(|se| (se.model_identifier.as_str(), &se.capabilities)),
        }
    }
}
