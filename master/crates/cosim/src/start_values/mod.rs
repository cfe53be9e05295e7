//! `--start-value name=value` options: parsed against the model description and applied
//! before initialization. An array takes a list (`u=[1,2,3]`, `A=[[1,2],[3,4]]`) or one element
//! (`x0[2]=5`); structural parameters are set first, in Configuration Mode, and size the
//! arrays the other values fill.
//!
//! Systems give their components' start values the same way, so both the single-FMU
//! simulation and the systems build on this module.

mod array_literal;

use crate::error::{Error, Result};
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{
    element_count, flat_index, parse_element, Causality, ModelDescription, Shapes, Values,
    Variability, Variable, VariableType,
};
use fmi_host::Fmu;

/// A start value ready to be written.
#[derive(Debug, Clone)]
pub struct StartValue {
    /// Variable name.
    pub name: String,
    /// Value reference.
    pub value_reference: u32,
    /// Variable type.
    pub ty: VariableType,
    /// Parsed value: one per element of an array, in row-major order.
    pub value: Values,
    /// Whether the variable is a structural parameter, set in Configuration Mode.
    pub structural: bool,
}

impl StartValue {
    /// The value `value` for `variable`.
    pub fn new(variable: &Variable, value: Values) -> Self {
        StartValue {
            name: variable.name.clone(),
            value_reference: variable.value_reference,
            ty: variable.ty,
            value,
            structural: variable.causality == Causality::StructuralParameter,
        }
    }
}

/// Parses `name=value` pairs, checking that each variable exists and may be set, and that a
/// list has the shape of its array (with the structural parameters given among the pairs).
pub fn parse(fmu: &Fmu, assignments: &[String]) -> Result<Vec<StartValue>> {
    let md = fmu.model_description();
    let pairs = assignments
        .iter()
        .map(|assignment| {
            let (name, text) = assignment
                .split_once('=')
                .ok_or_else(|| Error::InvalidValue {
                    item: format!("--start-value {assignment}"),
                    message: "expected name=value".into(),
                })?;
            Ok((name.trim(), text))
        })
        .collect::<Result<Vec<_>>>()?;
    let is_structural = |name: &str| {
        md.variable(name)
            .is_some_and(|v| v.causality == Causality::StructuralParameter)
    };
    // Structural parameters first: the shapes of the other values depend on them.
    let ordered = pairs
        .iter()
        .filter(|(name, _)| is_structural(name))
        .chain(pairs.iter().filter(|(name, _)| !is_structural(name)));
    let mut values: Vec<StartValue> = Vec::new();
    for &(name, text) in ordered {
        let invalid = |message: String| Error::InvalidValue {
            item: format!("--start-value {name}"),
            message,
        };
        let shapes = shapes(md, &values);
        if let Some(variable) = md.variable(name) {
            check_settable_array(variable).map_err(invalid)?;
            let value = array_value(&shapes, variable, text).map_err(invalid)?;
            set(&mut values, StartValue::new(variable, value));
            continue;
        }
        let (variable, index) = element(&shapes, name)
            .ok_or_else(|| fmi_host::Error::unknown_variable(fmu.path(), md, name))?
            .map_err(invalid)?;
        check_settable_array(variable).map_err(invalid)?;
        let element = Values::parse(variable.ty, &[text]).map_err(invalid)?;
        let mut whole = match values
            .iter()
            .find(|v| v.value_reference == variable.value_reference)
        {
            Some(given) => given.value.clone(),
            None => default_array(&shapes, variable).map_err(invalid)?,
        };
        replace(&mut whole, index, element);
        set(&mut values, StartValue::new(variable, whole));
    }
    Ok(values)
}

/// Adds `start`, replacing an earlier value of its variable.
fn set(values: &mut Vec<StartValue>, start: StartValue) {
    match values
        .iter_mut()
        .find(|v| v.value_reference == start.value_reference)
    {
        Some(given) => *given = start,
        None => values.push(start),
    }
}

/// The array and the row-major position of the element `name` names (`x0[2]`), or `None`
/// when `name` is not an element of an array variable; the error says why the indices do not
/// fit the array.
fn element<'a>(
    shapes: &Shapes<'a>,
    name: &str,
) -> Option<std::result::Result<(&'a Variable, usize), String>> {
    let (array, indices) = parse_element(name)?;
    let variable = shapes.model_description().variable(array)?;
    if variable.is_scalar() {
        return None;
    }
    Some(shapes.of(variable).and_then(|shape| {
        flat_index(&shape, &indices)
            .map(|index| (variable, index))
            .ok_or_else(|| format!("{array} has the shape {shape:?}: there is no element {name}"))
    }))
}

/// The values of every element of `variable` before one is set alone: its start values from
/// the model description, which must fill its current shape.
fn default_array(shapes: &Shapes<'_>, variable: &Variable) -> std::result::Result<Values, String> {
    let count = shapes.count(variable)?;
    match &variable.start {
        Some(start) if start.len() == count => Ok(start.clone()),
        _ => Err(format!(
            "{} has no start value for each of its {count} elements; give the whole array",
            variable.name
        )),
    }
}

/// Puts the single value `element` at `index` of `values` (of the same type).
fn replace(values: &mut Values, index: usize, element: Values) {
    match (values, element) {
        (Values::Float(v), Values::Float(e)) => v[index] = e[0],
        (Values::Int(v), Values::Int(e)) => v[index] = e[0],
        (Values::UInt(v), Values::UInt(e)) => v[index] = e[0],
        (Values::Bool(v), Values::Bool(e)) => v[index] = e[0],
        (Values::String(v), Values::String(mut e)) => v[index] = e.remove(0),
        (Values::Binary(v), Values::Binary(mut e)) => v[index] = e.remove(0),
        // Both were parsed for the variable's one type.
        _ => unreachable!("the values of one variable have one type"),
    }
}

/// The value `text` gives `variable`: a plain value for a scalar, a list of its shape (in
/// `shapes`) for an array.
pub fn array_value(
    shapes: &Shapes<'_>,
    variable: &Variable,
    text: &str,
) -> std::result::Result<Values, String> {
    if variable.is_scalar() {
        return Values::parse(variable.ty, &[text]);
    }
    let shape = shapes.of(variable)?;
    let (elements, given) = array_literal::parse(text)?;
    if given.is_empty() {
        return Err(format!(
            "{} is an array of shape {shape:?}: give a list such as {}",
            variable.name,
            example(&shape)
        ));
    }
    // A flat list may fill a matrix row by row, as the model description's start attribute does.
    if given != shape && !(given.len() == 1 && elements.len() == element_count(&shape)) {
        return Err(format!(
            "{} has the shape {shape:?} but the list has the shape {given:?}",
            variable.name
        ));
    }
    Values::parse(variable.ty, &elements)
}

/// A list of zeros of `shape`, for messages.
fn example(shape: &[usize]) -> String {
    match shape.split_first() {
        None => "0".to_string(),
        Some((&size, inner)) => {
            let item = example(inner);
            format!("[{}]", vec![item; size.clamp(1, 3)].join(", "))
        }
    }
}

/// Whether a start value may be given for `variable`: not a constant, the independent
/// variable or a calculated parameter, and a scalar. The error says why not.
pub fn check_settable(variable: &Variable) -> std::result::Result<(), String> {
    check_settable_array(variable)?;
    if !variable.is_scalar() {
        return Err(format!(
            "{} is an array; only scalar values are supported here",
            variable.name
        ));
    }
    Ok(())
}

/// Whether a start value may be given for `variable`, scalar or array: not a constant, the
/// independent variable or a calculated parameter. The error says why not.
pub fn check_settable_array(variable: &Variable) -> std::result::Result<(), String> {
    if variable.variability == Variability::Constant
        || matches!(
            variable.causality,
            Causality::Independent | Causality::CalculatedParameter
        )
    {
        return Err(format!(
            "{} is a {} {} variable and cannot be set",
            variable.name, variable.variability, variable.causality
        ));
    }
    Ok(())
}

/// The shapes of `md`'s arrays with the structural parameters among `start_values` at the
/// values given.
pub fn shapes<'a>(md: &'a ModelDescription, start_values: &[StartValue]) -> Shapes<'a> {
    start_values
        .iter()
        .filter(|start| start.structural)
        .fold(Shapes::new(md), |shapes, start| {
            let size = start.value.as_f64().unwrap_or(0.0).max(0.0);
            shapes.with(start.value_reference, size as u64)
        })
}

/// Writes the start values into an instantiated FMU: structural parameters in Configuration
/// Mode first (which the FMU leaves with the arrays resized), then the others.
pub fn apply(instance: &mut dyn FmuInstance, start_values: &[StartValue]) -> Result<()> {
    if start_values.iter().any(|start| start.structural) {
        instance.enter_configuration_mode()?;
        for start in start_values.iter().filter(|start| start.structural) {
            instance.set_values(start.ty, &[start.value_reference], &start.value)?;
        }
        instance.exit_configuration_mode()?;
    }
    for start in start_values.iter().filter(|start| !start.structural) {
        instance.set_values(start.ty, &[start.value_reference], &start.value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description() -> ModelDescription {
        ModelDescription::parse(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{x}">
  <CoSimulation modelIdentifier="m"/>
  <ModelVariables>
    <UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="2"/>
    <Float64 name="A" valueReference="2" causality="parameter" variability="fixed" start="1 2 3 4">
      <Dimension valueReference="1"/><Dimension valueReference="1"/>
    </Float64>
    <Int32 name="k" valueReference="3" causality="parameter" variability="fixed" start="1 2 3"><Dimension start="3"/></Int32>
  </ModelVariables>
</fmiModelDescription>"#,
        )
        .unwrap()
    }

    #[test]
    fn a_list_must_have_the_shape_of_its_array() {
        let md = description();
        let shapes = Shapes::new(&md);
        let a = md.variable("A").unwrap();
        assert_eq!(
            array_value(&shapes, a, "[[1, 2], [3, 4.5]]").unwrap(),
            Values::Float(vec![1.0, 2.0, 3.0, 4.5])
        );
        assert_eq!(
            array_value(&shapes, a, "[1, 2, 3, 4]").unwrap(),
            Values::Float(vec![1.0, 2.0, 3.0, 4.0])
        );
        assert_eq!(
            array_value(&shapes, a, "[[1, 2, 3], [4, 5, 6]]").unwrap_err(),
            "A has the shape [2, 2] but the list has the shape [2, 3]"
        );
        assert_eq!(
            array_value(&shapes, a, "1").unwrap_err(),
            "A is an array of shape [2, 2]: give a list such as [[0, 0], [0, 0]]"
        );
        let bigger = Shapes::new(&md).with(1, 3);
        assert_eq!(
            array_value(&bigger, a, "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]")
                .unwrap()
                .len(),
            9
        );
        let k = md.variable("k").unwrap();
        assert_eq!(
            array_value(&shapes, k, "[4, 5, 6]").unwrap(),
            Values::Int(vec![4, 5, 6])
        );
        assert!(array_value(&shapes, k, "[4, 5.5, 6]").is_err());
    }

    #[test]
    fn an_element_starts_from_the_arrays_start_values() {
        let md = description();
        let shapes = Shapes::new(&md);
        let (k, index) = element(&shapes, "k[2]").unwrap().unwrap();
        assert_eq!((k.name.as_str(), index), ("k", 1));
        let mut whole = default_array(&shapes, k).unwrap();
        replace(&mut whole, index, Values::Int(vec![9]));
        assert_eq!(whole, Values::Int(vec![1, 9, 3]));
        assert_eq!(
            element(&shapes, "A[3,1]").unwrap().unwrap_err(),
            "A has the shape [2, 2]: there is no element A[3,1]"
        );
        assert!(element(&shapes, "n[1]").is_none());
        // With n = 3, A's four start values no longer fill it.
        let bigger = Shapes::new(&md).with(1, 3);
        assert_eq!(
            default_array(&bigger, md.variable("A").unwrap()).unwrap_err(),
            "A has no start value for each of its 9 elements; give the whole array"
        );
    }
}
