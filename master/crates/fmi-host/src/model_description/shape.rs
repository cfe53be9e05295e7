//! Array shapes of FMI 3.0 variables: fixed sizes, or sizes given by the current values of
//! structural parameters (their start values, unless the user sets them).

use super::{Causality, Dimension, ModelDescription, Variable};

/// The sizes of a variable's dimensions, outermost first; empty for a scalar.
pub type Shape = Vec<usize>;

/// The number of elements of an array of shape `shape` (1 for a scalar).
pub fn element_count(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The shapes of the variables of one model description, with the structural parameters at
/// their start values except those the user set.
#[derive(Debug, Clone)]
pub struct Shapes<'a> {
    md: &'a ModelDescription,
    /// Structural parameter values set by the user, by value reference.
    overrides: Vec<(u32, u64)>,
}

impl<'a> Shapes<'a> {
    /// The shapes with every structural parameter at its start value.
    pub fn new(md: &'a ModelDescription) -> Self {
        Shapes {
            md,
            overrides: Vec::new(),
        }
    }

    /// The shapes with the structural parameter of value reference `reference` at `value`.
    pub fn with(mut self, reference: u32, value: u64) -> Self {
        self.overrides.retain(|(r, _)| *r != reference);
        self.overrides.push((reference, value));
        self
    }

    /// The model description the shapes are of.
    pub fn model_description(&self) -> &'a ModelDescription {
        self.md
    }

    /// The shape of `variable`, or why it has none: a dimension that names no structural
    /// parameter of an integer type, or one whose value is negative or unknown.
    pub fn of(&self, variable: &Variable) -> Result<Shape, String> {
        variable
            .dimensions
            .iter()
            .enumerate()
            .map(|(i, dimension)| match dimension {
                Dimension::Fixed(size) => usize::try_from(*size).map_err(|_| {
                    format!(
                        "variable {}: dimension {} is too large",
                        variable.name,
                        i + 1
                    )
                }),
                Dimension::Parameter(reference) => self.size(*reference).map_err(|problem| {
                    format!("variable {}: dimension {}: {problem}", variable.name, i + 1)
                }),
            })
            .collect()
    }

    /// The number of elements of `variable` (1 for a scalar), or why it has no shape.
    pub fn count(&self, variable: &Variable) -> Result<usize, String> {
        self.of(variable).map(|shape| element_count(&shape))
    }

    /// The size the structural parameter of value reference `reference` gives.
    fn size(&self, reference: u32) -> Result<usize, String> {
        let parameter = self
            .md
            .variables
            .iter()
            .find(|v| v.value_reference == reference)
            .ok_or_else(|| format!("value reference {reference} names no variable"))?;
        let name = &parameter.name;
        if parameter.causality != Causality::StructuralParameter {
            return Err(format!(
                "{name} (value reference {reference}) is a {} variable, not a structural parameter",
                parameter.causality
            ));
        }
        if !parameter.ty.is_integer() || !parameter.is_scalar() {
            return Err(format!(
                "structural parameter {name} is of type {}, not a scalar integer",
                parameter.ty
            ));
        }
        if let Some((_, value)) = self.overrides.iter().find(|(r, _)| *r == reference) {
            return usize::try_from(*value).map_err(|_| format!("{name} = {value} is too large"));
        }
        let start = parameter
            .start
            .as_ref()
            .and_then(|start| start.as_f64())
            .ok_or_else(|| format!("structural parameter {name} has no start value"))?;
        if start < 0.0 {
            return Err(format!(
                "structural parameter {name} has the negative size {start}"
            ));
        }
        Ok(start as usize)
    }
}

impl ModelDescription {
    /// The number of continuous state elements with the structural parameters at their start
    /// values: array states count every element (an unresolved state counts one).
    pub fn continuous_state_elements(&self) -> usize {
        let shapes = Shapes::new(self);
        self.states()
            .into_iter()
            .map(|state| {
                state
                    .and_then(|i| shapes.count(&self.variables[i]).ok())
                    .unwrap_or(1)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description() -> ModelDescription {
        ModelDescription::parse(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{x}">
  <ModelExchange modelIdentifier="m"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="3"/>
    <Int32 name="k" valueReference="2" causality="parameter" variability="fixed" start="2"/>
    <Int32 name="neg" valueReference="3" causality="structuralParameter" variability="fixed" start="-1"/>
    <Float64 name="A" valueReference="4" causality="parameter" variability="fixed" start="1 2 3 4 5 6">
      <Dimension valueReference="1"/><Dimension start="2"/>
    </Float64>
    <Float64 name="x" valueReference="5" causality="local" variability="continuous" initial="exact" start="0 0 0">
      <Dimension valueReference="1"/>
    </Float64>
    <Float64 name="der(x)" valueReference="6" causality="local" variability="continuous" derivative="5">
      <Dimension valueReference="1"/>
    </Float64>
    <Float64 name="bad" valueReference="7" causality="local" variability="continuous"><Dimension valueReference="2"/></Float64>
    <Float64 name="worse" valueReference="8" causality="local" variability="continuous"><Dimension valueReference="3"/></Float64>
  </ModelVariables>
  <ModelStructure><ContinuousStateDerivative valueReference="6"/></ModelStructure>
</fmiModelDescription>"#,
        )
        .unwrap()
    }

    #[test]
    fn shapes_follow_the_structural_parameters() {
        let md = description();
        let a = md.variable("A").unwrap();
        assert_eq!(Shapes::new(&md).of(a).unwrap(), [3, 2]);
        assert_eq!(Shapes::new(&md).with(1, 5).of(a).unwrap(), [5, 2]);
        assert_eq!(Shapes::new(&md).with(1, 0).count(a).unwrap(), 0);
        assert_eq!(
            Shapes::new(&md).of(md.variable("time").unwrap()).unwrap(),
            Vec::<usize>::new()
        );
        assert_eq!(md.continuous_state_elements(), 3);
    }

    #[test]
    fn a_dimension_needs_an_integer_structural_parameter_of_a_size() {
        let md = description();
        let shapes = Shapes::new(&md);
        assert_eq!(
            shapes.of(md.variable("bad").unwrap()).unwrap_err(),
            "variable bad: dimension 1: k (value reference 2) is a parameter variable, not a structural parameter"
        );
        assert_eq!(
            shapes.of(md.variable("worse").unwrap()).unwrap_err(),
            "variable worse: dimension 1: structural parameter neg has the negative size -1"
        );
    }
}
