//! `--start-value name=value` options: parsed against the model description and applied
//! before initialization.

use crate::error::{Error, Result};
use crate::instance::FmuInstance;
use crate::model_description::{
    Causality, ModelDescription, Shapes, Values, Variability, Variable, VariableType,
};
use crate::Fmu;

/// A start value ready to be written.
#[derive(Debug, Clone)]
pub struct StartValue {
    /// Variable name.
    pub name: String,
    /// Value reference.
    pub value_reference: u32,
    /// Variable type.
    pub ty: VariableType,
    /// Parsed value.
    pub value: Values,
}

/// Parses `name=value` pairs, checking that each variable exists and may be set.
pub fn parse(fmu: &Fmu, assignments: &[String]) -> Result<Vec<StartValue>> {
    let md = fmu.model_description();
    assignments
        .iter()
        .map(|assignment| {
            let (name, text) = assignment
                .split_once('=')
                .ok_or_else(|| Error::InvalidValue {
                    item: format!("--start-value {assignment}"),
                    message: "expected name=value".into(),
                })?;
            let name = name.trim();
            let variable = md
                .variable(name)
                .ok_or_else(|| Error::unknown_variable(fmu.path(), md, name))?;
            let invalid = |message: String| Error::InvalidValue {
                item: format!("--start-value {name}"),
                message,
            };
            check_settable(variable).map_err(invalid)?;
            let value = Values::parse(variable.ty, &[text]).map_err(invalid)?;
            Ok(StartValue {
                name: name.to_string(),
                value_reference: variable.value_reference,
                ty: variable.ty,
                value,
            })
        })
        .collect()
}

/// Whether a start value may be given for `variable`: not a constant, the independent
/// variable or a calculated parameter, and a scalar. The error says why not.
pub fn check_settable(variable: &Variable) -> std::result::Result<(), String> {
    let name = &variable.name;
    if variable.variability == Variability::Constant
        || matches!(
            variable.causality,
            Causality::Independent | Causality::CalculatedParameter
        )
    {
        return Err(format!(
            "{name} is a {} {} variable and cannot be set",
            variable.variability, variable.causality
        ));
    }
    if !variable.is_scalar() {
        return Err(format!(
            "{name} is an array; only scalar start values are supported"
        ));
    }
    Ok(())
}

/// The shapes of `md`'s arrays with the structural parameters among `start_values` at the
/// values given.
pub fn shapes<'a>(md: &'a ModelDescription, start_values: &[StartValue]) -> Shapes<'a> {
    start_values
        .iter()
        .filter(|start| is_structural(md, start))
        .fold(Shapes::new(md), |shapes, start| {
            let size = start.value.as_f64().unwrap_or(0.0).max(0.0);
            shapes.with(start.value_reference, size as u64)
        })
}

/// Whether `start` sets a structural parameter.
fn is_structural(md: &ModelDescription, start: &StartValue) -> bool {
    md.variable(&start.name)
        .is_some_and(|v| v.causality == Causality::StructuralParameter)
}

/// Writes the start values into an instantiated FMU.
pub fn apply(instance: &mut dyn FmuInstance, start_values: &[StartValue]) -> Result<()> {
    for start in start_values {
        instance.set_values(start.ty, &[start.value_reference], &start.value)?;
    }
    Ok(())
}
