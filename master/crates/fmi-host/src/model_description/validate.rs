//! Structural and semantic checks of a model description, of the kind FMPy's validator
//! makes: unique names and value references, causality/variability/initial rules, start
//! values, derivatives, ModelStructure references, units and declared types.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::{
    element_count, Causality, FmiVersion, Initial, ModelDescription, Shapes, Unknown, Values,
    Variability, Variable, VariableType,
};

/// How serious a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The standard is broken: the description is invalid.
    Error,
    /// Allowed by the standard but worth knowing; the description stays valid.
    Note,
}

/// One problem found by [`validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Whether it makes the description invalid.
    pub severity: Severity,
    /// Line in modelDescription.xml the problem is attached to, if any.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// Whether the problem makes the description invalid.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Runs every check and returns the problems found: the description is valid when none is an
/// error.
pub fn validate(md: &ModelDescription) -> Vec<Problem> {
    let mut problems = Problems::default();
    check_interfaces(md, &mut problems);
    check_default_experiment(md, &mut problems);
    check_unique_names(md, &mut problems);
    check_value_references(md, &mut problems);
    check_log_categories(md, &mut problems);
    for variable in &md.variables {
        check_combination(md, variable, &mut problems);
        check_start(variable, &mut problems);
        check_dimensions(md, variable, &mut problems);
        check_bounds(variable, &mut problems);
        check_declared_type(md, variable, &mut problems);
        check_units(md, variable, &mut problems);
    }
    for definition in &md.type_definitions {
        if let Some(unit) = &definition.unit {
            if !md.units.iter().any(|u| &u.name == unit) {
                problems.at(
                    definition.line,
                    format!(
                        "type definition {}: unit \"{unit}\" is not defined in UnitDefinitions",
                        definition.name
                    ),
                );
            }
        }
    }
    check_independent(md, &mut problems);
    check_derivatives(md, &mut problems);
    check_outputs(md, &mut problems);
    check_structure_references(md, &mut problems);
    problems.0
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn at(&mut self, line: usize, message: String) {
        self.0.push(Problem {
            severity: Severity::Error,
            line: Some(line),
            message,
        });
    }

    fn note(&mut self, line: usize, message: String) {
        self.0.push(Problem {
            severity: Severity::Note,
            line: Some(line),
            message,
        });
    }

    fn global(&mut self, message: String) {
        self.0.push(Problem {
            severity: Severity::Error,
            line: None,
            message,
        });
    }
}

fn is_c_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_interfaces(md: &ModelDescription, problems: &mut Problems) {
    let identifiers: Vec<&str> = [
        md.model_exchange
            .as_ref()
            .map(|i| i.model_identifier.as_str()),
        md.co_simulation
            .as_ref()
            .map(|i| i.model_identifier.as_str()),
        md.scheduled_execution
            .as_ref()
            .map(|i| i.model_identifier.as_str()),
    ]
    .into_iter()
    .flatten()
    .collect();
    if identifiers.is_empty() {
        problems.global("the FMU implements no interface (no ModelExchange, CoSimulation or ScheduledExecution element)".into());
    }
    for identifier in identifiers {
        if !is_c_identifier(identifier) {
            problems.global(format!(
                "modelIdentifier \"{identifier}\" is not a valid C identifier"
            ));
        }
    }
}

fn check_default_experiment(md: &ModelDescription, problems: &mut Problems) {
    let Some(experiment) = &md.default_experiment else {
        return;
    };
    if let (Some(start), Some(stop)) = (experiment.start_time, experiment.stop_time) {
        if stop < start {
            problems.global(format!(
                "DefaultExperiment: stopTime {stop} is before startTime {start}"
            ));
        }
    }
    if let Some(tolerance) = experiment.tolerance.filter(|t| *t <= 0.0) {
        problems.global(format!(
            "DefaultExperiment: tolerance {tolerance} must be positive"
        ));
    }
    if let Some(step) = experiment.step_size.filter(|s| *s <= 0.0) {
        problems.global(format!(
            "DefaultExperiment: stepSize {step} must be positive"
        ));
    }
}

fn check_unique_names(md: &ModelDescription, problems: &mut Problems) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for variable in &md.variables {
        for name in std::iter::once(variable.name.as_str())
            .chain(variable.aliases.iter().map(|a| a.name.as_str()))
        {
            if let Some(first) = seen.insert(name, variable.line) {
                problems.at(
                    variable.line,
                    format!(
                        "variable name \"{name}\" is used more than once (first on line {first})"
                    ),
                );
            }
        }
    }
}

/// FMI 3.0 value references are unique; FMI 2.0 ones are unique per base type, where a
/// shared value reference makes the variables aliases of each other.
fn check_value_references(md: &ModelDescription, problems: &mut Problems) {
    if md.fmi_version == FmiVersion::V2 {
        return;
    }
    let mut seen: HashMap<u32, &str> = HashMap::new();
    for variable in &md.variables {
        if let Some(first) = seen.insert(variable.value_reference, &variable.name) {
            problems.at(
                variable.line,
                format!(
                    "variable {}: valueReference {} is already used by {first}",
                    variable.name, variable.value_reference
                ),
            );
        }
    }
}

fn check_log_categories(md: &ModelDescription, problems: &mut Problems) {
    let mut seen = HashSet::new();
    for category in &md.log_categories {
        if !seen.insert(&category.name) {
            problems.global(format!(
                "log category \"{}\" is declared more than once",
                category.name
            ));
        }
    }
}

fn check_combination(md: &ModelDescription, variable: &Variable, problems: &mut Problems) {
    use Causality::*;
    use Variability::*;
    let name = &variable.name;
    let allowed = match variable.causality {
        Parameter | CalculatedParameter | StructuralParameter => {
            matches!(variable.variability, Fixed | Tunable)
        }
        Input => matches!(variable.variability, Discrete | Continuous),
        Output | Local => true,
        Independent => variable.variability == Continuous,
    };
    if !allowed {
        problems.at(
            variable.line,
            format!(
                "variable {name}: causality {} cannot have variability {}",
                variable.causality, variable.variability
            ),
        );
    }
    if variable.variability == Continuous && !variable.ty.is_float() {
        problems.at(
            variable.line,
            format!(
                "variable {name}: only float variables can be continuous, this one is {}",
                variable.ty
            ),
        );
    }
    if variable.causality == StructuralParameter && md.fmi_version == FmiVersion::V2 {
        problems.at(
            variable.line,
            format!("variable {name}: structuralParameter does not exist in FMI 2.0"),
        );
    }
    let Some(initial) = variable.initial_attribute else {
        return;
    };
    let permitted: &[Initial] = match (variable.causality, variable.variability) {
        (Output | Local, Constant) => &[Initial::Exact],
        (Parameter | StructuralParameter, _) => &[Initial::Exact],
        (CalculatedParameter, _) => &[Initial::Calculated, Initial::Approx],
        (Input, _) if md.fmi_version == FmiVersion::V3 => &[Initial::Exact],
        (Input | Independent, _) => &[],
        (Output | Local, _) => &[Initial::Exact, Initial::Approx, Initial::Calculated],
    };
    if !permitted.contains(&initial) {
        problems.at(
            variable.line,
            format!("variable {name}: initial=\"{initial}\" is not allowed for causality {} and variability {}", variable.causality, variable.variability),
        );
    }
}

fn check_start(variable: &Variable, problems: &mut Problems) {
    let name = &variable.name;
    let initial = variable.initial();
    let needs_start = matches!(initial, Some(Initial::Exact | Initial::Approx))
        || variable.causality == Causality::Input;
    if variable.ty == VariableType::Clock {
        return;
    }
    if needs_start && variable.start.is_none() {
        let reason = match initial {
            Some(initial) => format!("initial is {initial}"),
            None => format!("causality is {}", variable.causality),
        };
        problems.at(
            variable.line,
            format!("variable {name}: a start value is required because {reason}"),
        );
    }
    if let Some(start) = &variable.start {
        check_start_values(variable, start, problems);
    }
    if variable.start.is_some() {
        if initial == Some(Initial::Calculated) {
            problems.at(
                variable.line,
                format!(
                    "variable {name}: must not have a start value because initial is calculated"
                ),
            );
        }
        if variable.causality == Causality::Independent {
            problems.at(
                variable.line,
                format!("variable {name}: the independent variable must not have a start value"),
            );
        }
    }
}

/// A start value is a value of the variable's type: an empty start gives a scalar nothing,
/// and a float start must be a number (xs:double has no NaN start and Tandem, like the
/// standard's `fmi3Set` rules, no infinite one: `inf` and `1e999` are no finite xs:double).
fn check_start_values(variable: &Variable, start: &Values, problems: &mut Problems) {
    let name = &variable.name;
    if variable.is_scalar() && start.is_empty() && variable.ty != VariableType::String {
        problems.at(
            variable.line,
            format!("variable {name}: the start value is empty"),
        );
    }
    if let Values::Float(values) = start {
        if let Some(bad) = values.iter().find(|value| !value.is_finite()) {
            problems.at(
                variable.line,
                format!("variable {name}: start value {bad} is not a finite number"),
            );
        }
    }
}

/// Every dimension names an integer structural parameter of a size, and a start value gives
/// every element of the array.
fn check_dimensions(md: &ModelDescription, variable: &Variable, problems: &mut Problems) {
    if variable.is_scalar() {
        return;
    }
    match Shapes::new(md).of(variable) {
        Err(problem) => problems.at(variable.line, problem),
        Ok(shape) => {
            let count = element_count(&shape);
            // String and Binary starts are one value however they are written.
            let elementwise = !matches!(variable.ty, VariableType::String | VariableType::Binary);
            match &variable.start {
                Some(start) if elementwise && start.len() != count => problems.at(
                    variable.line,
                    format!(
                        "variable {}: {} start values for an array of shape {shape:?} ({count} elements)",
                        variable.name,
                        start.len()
                    ),
                ),
                _ => {}
            }
        }
    }
}

fn check_bounds(variable: &Variable, problems: &mut Problems) {
    let name = &variable.name;
    if let (Some(min), Some(max)) = (variable.min, variable.max) {
        if min > max {
            problems.at(
                variable.line,
                format!("variable {name}: min {min} is greater than max {max}"),
            );
        }
    }
    let Some(start) = variable
        .start
        .as_ref()
        .filter(|_| variable.ty.is_numeric())
        .and_then(|s| s.as_f64())
    else {
        return;
    };
    if variable.min.is_some_and(|min| start < min) || variable.max.is_some_and(|max| start > max) {
        problems.at(
            variable.line,
            format!(
                "variable {name}: start {start} is outside [{}, {}]",
                fmt_bound(variable.min, "-inf"),
                fmt_bound(variable.max, "inf")
            ),
        );
    }
}

fn fmt_bound(bound: Option<f64>, unbounded: &str) -> String {
    bound.map_or(unbounded.to_string(), |b| b.to_string())
}

fn check_declared_type(md: &ModelDescription, variable: &Variable, problems: &mut Problems) {
    let Some(declared) = &variable.declared_type else {
        return;
    };
    match md.type_definition(declared) {
        None => problems.at(
            variable.line,
            format!(
                "variable {}: declaredType \"{declared}\" is not defined in TypeDefinitions",
                variable.name
            ),
        ),
        Some(definition) if definition.ty != variable.ty => problems.at(
            variable.line,
            format!(
                "variable {}: is {} but its declaredType \"{declared}\" is {}",
                variable.name, variable.ty, definition.ty
            ),
        ),
        Some(_) => {}
    }
}

fn check_units(md: &ModelDescription, variable: &Variable, problems: &mut Problems) {
    let Some(unit_name) = md.unit_of(variable) else {
        if let Some(display) = &variable.display_unit {
            problems.at(
                variable.line,
                format!(
                    "variable {}: displayUnit \"{display}\" is given without a unit",
                    variable.name
                ),
            );
        }
        return;
    };
    match md.units.iter().find(|u| u.name == unit_name) {
        None => problems.at(
            variable.line,
            format!(
                "variable {}: unit \"{unit_name}\" is not defined in UnitDefinitions",
                variable.name
            ),
        ),
        Some(unit) => {
            if let Some(display) = &variable.display_unit {
                if !unit.display_units.iter().any(|d| &d.name == display) {
                    problems.at(variable.line, format!("variable {}: displayUnit \"{display}\" is not a display unit of \"{unit_name}\"", variable.name));
                }
            }
        }
    }
}

fn check_independent(md: &ModelDescription, problems: &mut Problems) {
    let independents: Vec<&Variable> = md
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Independent)
        .collect();
    if independents.len() > 1 {
        problems.global(format!(
            "there are {} independent variables, at most one is allowed",
            independents.len()
        ));
    }
    if md.fmi_version == FmiVersion::V3 && independents.is_empty() {
        problems.global("FMI 3.0 requires exactly one variable with causality independent".into());
    }
    for variable in independents {
        if !variable.ty.is_float() {
            problems.at(
                variable.line,
                format!(
                    "variable {}: the independent variable must be a float, not {}",
                    variable.name, variable.ty
                ),
            );
        }
    }
}

/// Describes a ModelStructure or `derivative` reference in the terms of the FMI version.
fn reference_text(md: &ModelDescription, reference: u32) -> String {
    match md.fmi_version {
        FmiVersion::V2 => format!("index {reference}"),
        FmiVersion::V3 => format!("valueReference {reference}"),
    }
}

fn check_derivatives(md: &ModelDescription, problems: &mut Problems) {
    let listed: HashSet<usize> = md
        .model_structure
        .derivatives
        .iter()
        .filter_map(|u| md.resolve(u.reference))
        .collect();
    for (index, variable) in md.variables.iter().enumerate() {
        let Some(state) = variable.derivative else {
            continue;
        };
        if !variable.ty.is_float() {
            problems.at(
                variable.line,
                format!(
                    "variable {}: has a derivative attribute but is {}, not a float",
                    variable.name, variable.ty
                ),
            );
        }
        match md.resolve(state) {
            None => problems.at(variable.line, format!("variable {}: derivative refers to {}, which is no variable", variable.name, reference_text(md, state))),
            Some(s) if !md.variables[s].ty.is_float() => problems.at(
                variable.line,
                format!("variable {}: is the derivative of {}, which is {}, not a float", variable.name, md.variables[s].name, md.variables[s].ty),
            ),
            Some(s) if s == index => problems.at(variable.line, format!("variable {}: is declared as its own derivative", variable.name)),
            // The standard asks only that the listed derivatives have the attribute: a
            // variable may name what it is the derivative of without being a state derivative
            // (Dymola does so after its state selection picked other states).
            Some(s) if variable.variability == Variability::Continuous && !listed.contains(&index) => problems.note(
                variable.line,
                format!("variable {}: is the derivative of {} but is not listed among the ModelStructure derivatives, so {} is not a continuous state", variable.name, md.variables[s].name, md.variables[s].name),
            ),
            Some(_) => {}
        }
    }
    for unknown in &md.model_structure.derivatives {
        if let Some(variable) = md.resolve(unknown.reference).map(|i| &md.variables[i]) {
            if variable.derivative.is_none() {
                problems.at(unknown.line, format!("ModelStructure lists {} as a derivative, but it has no derivative attribute", variable.name));
            }
        }
    }
}

fn check_outputs(md: &ModelDescription, problems: &mut Problems) {
    let listed: HashSet<usize> = md
        .model_structure
        .outputs
        .iter()
        .filter_map(|u| md.resolve(u.reference))
        .collect();
    for (index, variable) in md.variables.iter().enumerate() {
        if variable.causality == Causality::Output && !listed.contains(&index) {
            problems.at(
                variable.line,
                format!(
                    "output {} is not listed among the ModelStructure outputs",
                    variable.name
                ),
            );
        }
    }
    for unknown in &md.model_structure.outputs {
        if let Some(variable) = md.resolve(unknown.reference).map(|i| &md.variables[i]) {
            if variable.causality != Causality::Output {
                problems.at(
                    unknown.line,
                    format!(
                        "ModelStructure lists {} as an output, but its causality is {}",
                        variable.name, variable.causality
                    ),
                );
            }
        }
    }
}

fn check_structure_references(md: &ModelDescription, problems: &mut Problems) {
    let structure = &md.model_structure;
    let lists: [(&str, &Vec<Unknown>); 5] = [
        ("output", &structure.outputs),
        ("derivative", &structure.derivatives),
        ("clocked state", &structure.clocked_states),
        ("initial unknown", &structure.initial_unknowns),
        ("event indicator", &structure.event_indicators),
    ];
    for (kind, list) in lists {
        for unknown in list {
            if md.resolve(unknown.reference).is_none() {
                problems.at(
                    unknown.line,
                    format!(
                        "ModelStructure {kind} refers to {}, which is no variable",
                        reference_text(md, unknown.reference)
                    ),
                );
            }
            for &dependency in unknown.dependencies.iter().flatten() {
                if md.resolve(dependency).is_none() {
                    problems.at(
                        unknown.line,
                        format!(
                            "ModelStructure {kind} depends on {}, which is no variable",
                            reference_text(md, dependency)
                        ),
                    );
                }
            }
            if let (Some(dependencies), Some(kinds)) =
                (&unknown.dependencies, &unknown.dependencies_kind)
            {
                if dependencies.len() != kinds.len() {
                    problems.at(unknown.line, format!("ModelStructure {kind}: {} dependencies but {} dependenciesKind entries", dependencies.len(), kinds.len()));
                }
            }
            if unknown.dependencies.is_none() && unknown.dependencies_kind.is_some() {
                problems.at(
                    unknown.line,
                    format!(
                        "ModelStructure {kind}: dependenciesKind is given without dependencies"
                    ),
                );
            }
        }
    }
}
