//! ModelStructure: the ordered outputs, state derivatives, initial unknowns and event
//! indicators with their dependencies.

/// How an unknown depends on a known (`dependenciesKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependencyKind {
    /// FMI 3.0: no dependency (reserved).
    Independent,
    /// Linear with a constant factor.
    Constant,
    /// Linear with a factor fixed after initialization.
    Fixed,
    /// Linear with a factor that changes only at events.
    Tunable,
    /// Linear with a factor that changes only at events.
    Discrete,
    /// Any other dependency.
    Dependent,
}

impl DependencyKind {
    /// The kind for a keyword of `dependenciesKind`.
    pub fn from_keyword(text: &str) -> Option<Self> {
        Some(match text {
            "independent" => DependencyKind::Independent,
            "constant" => DependencyKind::Constant,
            "fixed" => DependencyKind::Fixed,
            "tunable" => DependencyKind::Tunable,
            "discrete" => DependencyKind::Discrete,
            "dependent" => DependencyKind::Dependent,
            _ => return None,
        })
    }
}

/// One unknown of the ModelStructure.
///
/// References are as in the file: FMI 2.0 uses 1-based indices into the variable list,
/// FMI 3.0 value references; [`super::ModelDescription::resolve`] maps either to a variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// The unknown variable.
    pub reference: u32,
    /// The knowns it depends on; `None` means "may depend on all knowns".
    pub dependencies: Option<Vec<u32>>,
    /// The kind of each dependency, parallel to `dependencies`.
    pub dependencies_kind: Option<Vec<DependencyKind>>,
    /// Line in modelDescription.xml.
    pub line: usize,
}

/// The ModelStructure element.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelStructure {
    /// Outputs, in the order of the file.
    pub outputs: Vec<Unknown>,
    /// Continuous state derivatives, in state order.
    pub derivatives: Vec<Unknown>,
    /// FMI 3.0 clocked states.
    pub clocked_states: Vec<Unknown>,
    /// Unknowns computed during initialization.
    pub initial_unknowns: Vec<Unknown>,
    /// FMI 3.0 event indicators.
    pub event_indicators: Vec<Unknown>,
}
