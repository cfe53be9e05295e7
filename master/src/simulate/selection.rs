//! Which variables `tandem simulate` records: the names, aliases, glob patterns (`mass.*`) and
//! `all` given on the command line, else what FMPy records by default: the numeric and
//! Boolean outputs (String outputs only when named); for an FMU without such outputs the first
//! continuous states, else the first local variables.

use glob::Pattern;

use crate::model_description::{Causality, ModelDescription, Variable, VariableType};
use crate::output::column::Column;

/// How many states or local variables the default records (FMPy's limit).
const DEFAULT_LIMIT: usize = 5;

/// What the default selection holds, for the summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultChoice {
    /// Every output.
    Outputs,
    /// The first continuous states: the FMU declares no outputs.
    States,
    /// The first local variables: the FMU declares no outputs and no states.
    Locals,
    /// The first variables of any kind: no outputs, states or local variables.
    Any,
}

impl DefaultChoice {
    /// What the summary line says about `recorded` variables chosen this way (nothing for
    /// outputs, the usual case), with how many of the kind there are.
    pub fn remark(self, recorded: usize, available: usize) -> Option<String> {
        let what = match self {
            DefaultChoice::Outputs => return None,
            DefaultChoice::States => "continuous states",
            DefaultChoice::Locals => "local variables",
            DefaultChoice::Any => "variables",
        };
        let which = if recorded < available {
            format!("the first {recorded} of {available} {what}")
        } else {
            format!("the {recorded} {what}")
        };
        let why = match self {
            DefaultChoice::States => "the FMU declares no outputs",
            _ => "the FMU declares no outputs and no continuous states",
        };
        Some(format!(
            "recorded {which} ({why}; choose with --output-variable)"
        ))
    }
}

/// Scalar numbers and booleans, which the result file holds (the time is its own column).
fn recordable(variable: &Variable) -> bool {
    variable.is_scalar()
        && variable.causality != Causality::Independent
        && (variable.ty.is_numeric() || variable.ty == VariableType::Boolean)
}

/// The variables recorded when none are named, why, and how many of that kind there are.
pub fn default_variables(md: &ModelDescription) -> (Vec<&Variable>, DefaultChoice, usize) {
    let outputs: Vec<&Variable> = md
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output && recordable(v))
        .collect();
    if !outputs.is_empty() {
        let count = outputs.len();
        return (outputs, DefaultChoice::Outputs, count);
    }
    let states: Vec<&Variable> = md
        .states()
        .into_iter()
        .flatten()
        .map(|i| &md.variables[i])
        .filter(|v| recordable(v))
        .collect();
    let locals = || {
        md.variables
            .iter()
            .filter(|v| v.causality == Causality::Local && recordable(v))
            .collect::<Vec<_>>()
    };
    let (mut chosen, choice) = if !states.is_empty() {
        (states, DefaultChoice::States)
    } else if !locals().is_empty() {
        (locals(), DefaultChoice::Locals)
    } else {
        let any = md.variables.iter().filter(|v| recordable(v)).collect();
        (any, DefaultChoice::Any)
    };
    let available = chosen.len();
    chosen.truncate(DEFAULT_LIMIT);
    (chosen, choice, available)
}

/// The columns recorded when none are named ([`default_variables`]), as FMPy records them: each
/// output followed by its FMI 3.0 aliases (in their display units); why; and how many of that
/// kind there are.
pub fn default_columns(md: &ModelDescription) -> (Vec<(&Variable, Column)>, DefaultChoice, usize) {
    let (variables, choice, available) = default_variables(md);
    let columns = variables
        .into_iter()
        .flat_map(|variable| {
            let aliases = variable
                .aliases
                .iter()
                .filter(move |_| choice == DefaultChoice::Outputs)
                .filter_map(move |alias| Column::named(md, &alias.name));
            std::iter::once((variable, Column::plain(variable))).chain(aliases)
        })
        .collect();
    (columns, choice, available)
}

/// The variables `requests` name, each with its column, in the order asked (a pattern's
/// matches in file order, each variable once per name): a variable or alias name, `all` (every
/// recordable variable), or a glob pattern (`*`, `?`, `[...]`) over variable and alias names.
/// The error is the first request that names nothing.
pub fn expand<'a>(
    md: &'a ModelDescription,
    requests: &[String],
) -> Result<Vec<(&'a Variable, Column)>, String> {
    let mut chosen: Vec<(&Variable, Column)> = Vec::new();
    let mut push = |variable: &'a Variable, column: Column| {
        if !chosen.iter().any(|(_, c)| c.name == column.name) {
            chosen.push((variable, column));
        }
    };
    for request in requests {
        // An exact name wins: names such as `x[1]` would otherwise read as patterns.
        if let Some((variable, column)) = Column::named(md, request) {
            push(variable, column);
            continue;
        }
        if request == "all" {
            for variable in md.variables.iter().filter(|v| recordable(v)) {
                push(variable, Column::plain(variable));
            }
            continue;
        }
        let pattern = Pattern::new(request).map_err(|_| request.clone())?;
        let names = md.variables.iter().flat_map(|v| {
            std::iter::once(v.name.as_str()).chain(v.aliases.iter().map(|a| a.name.as_str()))
        });
        let mut found = false;
        for name in names.filter(|name| pattern.matches(name)) {
            let (variable, column) = Column::named(md, name).expect("a name of the description");
            if recordable(variable) {
                push(variable, column);
                found = true;
            }
        }
        if !found {
            return Err(request.clone());
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Dymola-style description: no outputs; `structure` holds the ModelStructure's body.
    fn description(structure: &str) -> ModelDescription {
        ModelDescription::parse(&format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{{x}}">
  <ModelExchange modelIdentifier="m"/>
  <UnitDefinitions><Unit name="m"><DisplayUnit name="mm" factor="1000"/></Unit></UnitDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="k" valueReference="1" causality="parameter" variability="fixed" start="2"/>
    <Float64 name="mass.x" valueReference="2" causality="local" variability="continuous" initial="exact" start="0" unit="m">
      <Alias name="mass.x_mm" displayUnit="mm"/>
    </Float64>
    <Float64 name="mass.v" valueReference="3" causality="local" variability="continuous" initial="exact" start="0"/>
    <Float64 name="der(mass.x)" valueReference="4" causality="local" variability="continuous" derivative="2"/>
    <Float64 name="der(mass.v)" valueReference="5" causality="local" variability="continuous" derivative="3"/>
    <Float64 name="spring.f" valueReference="6" causality="local" variability="continuous"/>
    <Float64 name="x[1]" valueReference="7" causality="local" variability="continuous"/>
  </ModelVariables>
  <ModelStructure>{structure}</ModelStructure>
</fmiModelDescription>"#
        ))
        .unwrap()
    }

    const STATES: &str = r#"<ContinuousStateDerivative valueReference="4"/>
    <ContinuousStateDerivative valueReference="5"/>"#;

    fn names(variables: &[&Variable]) -> Vec<String> {
        variables.iter().map(|v| v.name.clone()).collect()
    }

    fn expanded(md: &ModelDescription, requests: &[&str]) -> Result<Vec<String>, String> {
        let requests: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
        expand(md, &requests).map(|list| list.into_iter().map(|(_, c)| c.name).collect())
    }

    #[test]
    fn string_outputs_are_recorded_only_when_named() {
        let md = ModelDescription::parse(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{x}">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="y" valueReference="1" causality="output" variability="continuous"/>
    <String name="label" valueReference="2" causality="output" variability="discrete"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1"/><Output valueReference="2"/></ModelStructure>
</fmiModelDescription>"#,
        )
        .unwrap();
        let (chosen, choice, _) = default_variables(&md);
        assert_eq!((names(&chosen), choice), (vec!["y".to_string()], DefaultChoice::Outputs));
        assert_eq!(expanded(&md, &["label", "y"]).unwrap(), ["label", "y"]);
    }

    #[test]
    fn without_outputs_the_states_are_recorded_and_the_summary_says_why() {
        let md = description(STATES);
        let (chosen, choice, available) = default_variables(&md);
        assert_eq!(names(&chosen), ["mass.x", "mass.v"]);
        assert_eq!(
            choice.remark(chosen.len(), available).unwrap(),
            "recorded the 2 continuous states (the FMU declares no outputs; choose with \
             --output-variable)"
        );
    }

    #[test]
    fn without_outputs_and_states_the_first_five_locals_are_recorded() {
        let md = description("");
        let (chosen, choice, available) = default_variables(&md);
        assert_eq!(choice, DefaultChoice::Locals);
        assert_eq!(
            names(&chosen),
            ["mass.x", "mass.v", "der(mass.x)", "der(mass.v)", "spring.f"]
        );
        assert_eq!(available, 6);
        assert!(choice
            .remark(chosen.len(), available)
            .unwrap()
            .starts_with("recorded the first 5 of 6 local variables"));
    }

    #[test]
    fn patterns_all_and_exact_names_expand_in_order() {
        let md = description(STATES);
        assert_eq!(
            expanded(&md, &["mass.*"]).unwrap(),
            ["mass.x", "mass.x_mm", "mass.v"]
        );
        // An exact name is not a pattern, and a variable is recorded once per name.
        assert_eq!(expanded(&md, &["x[1]", "k", "k"]).unwrap(), ["x[1]", "k"]);
        assert_eq!(expanded(&md, &["all"]).unwrap().len(), 7);
        assert_eq!(
            expanded(&md, &["spring.*", "nothing.*"]).unwrap_err(),
            "nothing.*"
        );
        assert_eq!(expanded(&md, &["[unclosed"]).unwrap_err(), "[unclosed");
    }

    #[test]
    fn an_alias_column_converts_to_its_display_unit() {
        let md = description(STATES);
        let (variable, column) = Column::named(&md, "mass.x_mm").unwrap();
        assert_eq!(variable.name, "mass.x");
        assert_eq!(column.show(0.25), 250.0);
        assert_eq!(Column::named(&md, "mass.x").unwrap().1.show(0.25), 0.25);
    }
}
