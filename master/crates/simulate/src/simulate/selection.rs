//! Which variables `tandem simulate` records: the names, aliases, array elements (`y[2]`), glob
//! patterns (`mass.*`) and `all` given on the command line (an array is one column per
//! element), else what FMPy records by default: the numeric and
//! Boolean outputs (String outputs only when named); for an FMU without such outputs the first
//! continuous states, else the first local variables.

use glob::Pattern;

use fmi_host::model_description::{
    flat_index, parse_element, Causality, Shapes, Variable, VariableType,
};
use tandem_cosim::column::Column;

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

/// Numbers and booleans, which the result file holds (the time is its own column).
fn recordable(variable: &Variable) -> bool {
    variable.causality != Causality::Independent
        && (variable.ty.is_numeric() || variable.ty == VariableType::Boolean)
}

/// The columns of every element of `variable` shown as `column` (one for a scalar), or `None`
/// when its shape cannot be known.
fn element_columns(
    shapes: &Shapes<'_>,
    variable: &Variable,
    column: Column,
) -> Option<Vec<Column>> {
    shapes
        .of(variable)
        .ok()
        .map(|shape| column.elements(&shape))
}

/// Each of `variables` with the columns of its elements, flattened.
fn all_columns<'a>(
    shapes: &Shapes<'a>,
    variables: impl IntoIterator<Item = &'a Variable>,
) -> Vec<(&'a Variable, Column)> {
    variables
        .into_iter()
        .filter_map(|v| Some((v, element_columns(shapes, v, Column::plain(v))?)))
        .flat_map(|(v, columns)| columns.into_iter().map(move |c| (v, c)))
        .collect()
}

/// The columns of `variable` and then of each of its FMI 3.0 aliases (in their display
/// units), as FMPy records an output.
fn with_aliases<'a>(shapes: &Shapes<'a>, variable: &'a Variable) -> Vec<(&'a Variable, Column)> {
    let md = shapes.model_description();
    let aliases = variable
        .aliases
        .iter()
        .filter_map(|alias| Column::named(md, &alias.name).map(|(_, column)| column));
    std::iter::once(Column::plain(variable))
        .chain(aliases)
        .filter_map(|column| element_columns(shapes, variable, column))
        .flatten()
        .map(|column| (variable, column))
        .collect()
}

/// The columns recorded when none are named (each output followed by its aliases, as FMPy
/// records them), why, and how many columns of that kind there are: arrays count by elements.
pub fn default_variables<'a>(
    shapes: &Shapes<'a>,
) -> (Vec<(&'a Variable, Column)>, DefaultChoice, usize) {
    let md = shapes.model_description();
    let outputs: Vec<_> = md
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output && recordable(v))
        .flat_map(|v| with_aliases(shapes, v))
        .collect();
    if !outputs.is_empty() {
        let count = outputs.len();
        return (outputs, DefaultChoice::Outputs, count);
    }
    let states = all_columns(
        shapes,
        md.states()
            .into_iter()
            .flatten()
            .map(|i| &md.variables[i])
            .filter(|v| recordable(v)),
    );
    let locals = || {
        all_columns(
            shapes,
            md.variables
                .iter()
                .filter(|v| v.causality == Causality::Local && recordable(v)),
        )
    };
    let (mut chosen, choice) = if !states.is_empty() {
        (states, DefaultChoice::States)
    } else if !locals().is_empty() {
        (locals(), DefaultChoice::Locals)
    } else {
        let any = all_columns(shapes, md.variables.iter().filter(|v| recordable(v)));
        (any, DefaultChoice::Any)
    };
    let available = chosen.len();
    chosen.truncate(DEFAULT_LIMIT);
    (chosen, choice, available)
}

/// The variable or alias, or the element of an array (`y[2]`, `A[2,3]`), called `name`, and
/// its columns (every element of an array); `None` when `name` names nothing recordable.
fn named<'a>(shapes: &Shapes<'a>, name: &str) -> Option<Vec<(&'a Variable, Column)>> {
    let md = shapes.model_description();
    if let Some((variable, column)) = Column::named(md, name) {
        let columns = element_columns(shapes, variable, column)?;
        return Some(columns.into_iter().map(|c| (variable, c)).collect());
    }
    let (array, indices) = parse_element(name)?;
    let (variable, column) = Column::named(md, array)?;
    let element = flat_index(&shapes.of(variable).ok()?, &indices)?;
    let column = Column {
        name: name.to_string(),
        element: Some(element),
        ..column
    };
    Some(vec![(variable, column)])
}

/// The columns `requests` name, each with its variable, in the order asked (a pattern's
/// matches in file order, each column once): a variable or alias name (every element of an
/// array), an array element (`y[2]`), `all` (every recordable variable), or a glob pattern
/// (`*`, `?`, `[...]`) over variable and alias names. The error is the first request that
/// names nothing.
pub fn expand<'a>(
    shapes: &Shapes<'a>,
    requests: &[String],
) -> Result<Vec<(&'a Variable, Column)>, String> {
    let md = shapes.model_description();
    let mut chosen: Vec<(&Variable, Column)> = Vec::new();
    let mut push = |columns: Vec<(&'a Variable, Column)>| {
        for (variable, column) in columns {
            if !chosen.iter().any(|(_, c)| c.name == column.name) {
                chosen.push((variable, column));
            }
        }
    };
    for request in requests {
        // An exact name wins: names such as `x[1]` would otherwise read as patterns.
        if let Some(columns) = named(shapes, request) {
            push(columns);
            continue;
        }
        if request == "all" {
            push(all_columns(
                shapes,
                md.variables.iter().filter(|v| recordable(v)),
            ));
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
                if let Some(columns) = element_columns(shapes, variable, column) {
                    push(columns.into_iter().map(|c| (variable, c)).collect());
                    found = true;
                }
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
    use fmi_host::model_description::ModelDescription;

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

    fn names(columns: &[(&Variable, Column)]) -> Vec<String> {
        columns.iter().map(|(_, c)| c.name.clone()).collect()
    }

    fn expanded(md: &ModelDescription, requests: &[&str]) -> Result<Vec<String>, String> {
        let requests: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
        expand(&Shapes::new(md), &requests)
            .map(|list| list.into_iter().map(|(_, c)| c.name).collect())
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
        let (chosen, choice, _) = default_variables(&Shapes::new(&md));
        assert_eq!(
            (names(&chosen), choice),
            (vec!["y".to_string()], DefaultChoice::Outputs)
        );
        assert_eq!(expanded(&md, &["label", "y"]).unwrap(), ["label", "y"]);
    }

    #[test]
    fn without_outputs_the_states_are_recorded_and_the_summary_says_why() {
        let md = description(STATES);
        let (chosen, choice, available) = default_variables(&Shapes::new(&md));
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
        let (chosen, choice, available) = default_variables(&Shapes::new(&md));
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

    #[test]
    fn arrays_are_one_column_per_element_whole_or_by_element() {
        let md = ModelDescription::parse(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{x}">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>
    <UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="2"/>
    <Float64 name="A" valueReference="2" causality="parameter" variability="fixed" start="1 2 3 4 5 6">
      <Dimension valueReference="1"/><Dimension start="3"/>
    </Float64>
    <Float64 name="y" valueReference="3" causality="output" variability="continuous"><Dimension valueReference="1"/></Float64>
  </ModelVariables>
  <ModelStructure><Output valueReference="3"/></ModelStructure>
</fmiModelDescription>"#,
        )
        .unwrap();
        let (chosen, choice, available) = default_variables(&Shapes::new(&md));
        assert_eq!(names(&chosen), ["y[1]", "y[2]"]);
        assert_eq!((choice, available), (DefaultChoice::Outputs, 2));
        let elements: Vec<Option<usize>> = chosen.iter().map(|(_, c)| c.element).collect();
        assert_eq!(elements, [Some(0), Some(1)]);
        assert_eq!(
            expanded(&md, &["A[2,3]", "y"]).unwrap(),
            ["A[2,3]", "y[1]", "y[2]"]
        );
        let (_, column) = &expand(&Shapes::new(&md), &["A[2,1]".to_string()]).unwrap()[0];
        assert_eq!(column.element, Some(3));
        assert_eq!(expanded(&md, &["A[3,1]"]).unwrap_err(), "A[3,1]");
        assert_eq!(expanded(&md, &["all"]).unwrap().len(), 1 + 6 + 2);
        let bigger = Shapes::new(&md).with(1, 3);
        let (chosen, _, _) = default_variables(&bigger);
        assert_eq!(names(&chosen), ["y[1]", "y[2]", "y[3]"]);
    }
}
