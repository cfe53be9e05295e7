//! The FMI 3.0 parts of modelDescription.xml: typed variable elements (Float64, Int8, ...,
//! Binary, Clock), `<Type>Type` definitions, interfaces and the value-reference ModelStructure.

use super::parse::{self, capabilities, start_value, text_attr, unknown, variable_head};
use super::xml::Element;
use super::{
    Alias, CoSimulation, Dimension, FmiVersion, ModelDescription, ModelExchange, ModelStructure,
    ParseError, ScheduledExecution, TypeDefinition, Variable, VariableType,
};

/// Fills the version-specific parts of `description` from the FMI 3.0 root element.
pub fn read(root: &Element, description: &mut ModelDescription) -> Result<(), ParseError> {
    if let Some(me) = root.child("ModelExchange") {
        description.model_exchange = Some(ModelExchange {
            model_identifier: me.required("modelIdentifier")?.to_string(),
            capabilities: capabilities(me, FmiVersion::V3)?,
            needs_completed_integrator_step: me.flag("needsCompletedIntegratorStep", false)?,
        });
    }
    if let Some(cs) = root.child("CoSimulation") {
        description.co_simulation = Some(CoSimulation {
            model_identifier: cs.required("modelIdentifier")?.to_string(),
            capabilities: capabilities(cs, FmiVersion::V3)?,
            can_handle_variable_communication_step_size: cs
                .flag("canHandleVariableCommunicationStepSize", false)?,
            can_interpolate_inputs: false,
            max_output_derivative_order: cs.parsed("maxOutputDerivativeOrder")?.unwrap_or(0),
            can_run_asynchronuously: false,
            fixed_internal_step_size: cs.parsed("fixedInternalStepSize")?,
            recommended_intermediate_input_smoothness: cs
                .parsed("recommendedIntermediateInputSmoothness")?
                .unwrap_or(0),
            provides_intermediate_update: cs.flag("providesIntermediateUpdate", false)?,
            might_return_early_from_do_step: cs.flag("mightReturnEarlyFromDoStep", false)?,
            can_return_early_after_intermediate_update: cs
                .flag("canReturnEarlyAfterIntermediateUpdate", false)?,
            has_event_mode: cs.flag("hasEventMode", false)?,
        });
    }
    if let Some(se) = root.child("ScheduledExecution") {
        description.scheduled_execution = Some(ScheduledExecution {
            model_identifier: se.required("modelIdentifier")?.to_string(),
            capabilities: capabilities(se, FmiVersion::V3)?,
        });
    }
    if let Some(types) = root.child("TypeDefinitions") {
        description.type_definitions = types
            .children
            .iter()
            .map(type_definition)
            .collect::<Result<_, _>>()?;
    }
    if let Some(variables) = root.child("ModelVariables") {
        description.variables = variables
            .children
            .iter()
            .map(|element| variable(element, root.child("TypeDefinitions")))
            .collect::<Result<_, _>>()?;
    }
    if let Some(structure) = root.child("ModelStructure") {
        let list = |name: &str| -> Result<Vec<_>, ParseError> {
            structure
                .children_named(name)
                .map(|u| unknown(u, "valueReference"))
                .collect()
        };
        description.model_structure = ModelStructure {
            outputs: list("Output")?,
            derivatives: list("ContinuousStateDerivative")?,
            clocked_states: list("ClockedState")?,
            initial_unknowns: list("InitialUnknown")?,
            event_indicators: list("EventIndicator")?,
        };
    }
    Ok(())
}

fn type_definition(element: &Element) -> Result<TypeDefinition, ParseError> {
    let ty = element
        .name
        .strip_suffix("Type")
        .and_then(VariableType::from_keyword)
        .ok_or_else(|| {
            element.error(format!(
                "<{}> is not an FMI 3.0 type definition",
                element.name
            ))
        })?;
    parse::type_definition(element, element, ty)
}

/// The variable of `element`; `types` is the TypeDefinitions element, where a Clock's
/// declared type gives the attributes the variable leaves out.
fn variable(element: &Element, types: Option<&Element>) -> Result<Variable, ParseError> {
    let ty = VariableType::from_keyword(&element.name).ok_or_else(|| {
        element.error(format!(
            "<{}> is not an FMI 3.0 variable type",
            element.name
        ))
    })?;
    let name = element.required("name")?.to_string();
    let head = variable_head(element, name, ty, FmiVersion::V3)?;
    let name = &head.name;
    let start_elements: Vec<&str> = element
        .children_named("Start")
        .map(|s| s.required("value"))
        .collect::<Result<_, _>>()?;
    let start = match element.attr("start") {
        Some(text) if matches!(ty, VariableType::String | VariableType::Binary) => {
            Some(start_value(element, name, ty, &[text])?)
        }
        Some(text) => Some(start_value(
            element,
            name,
            ty,
            &text.split_whitespace().collect::<Vec<_>>(),
        )?),
        None if !start_elements.is_empty() => {
            Some(start_value(element, name, ty, &start_elements)?)
        }
        None => None,
    };
    let dimensions = element
        .children_named("Dimension")
        .map(
            |d| match (d.parsed("start")?, d.parsed("valueReference")?) {
                (Some(size), None) => Ok(Dimension::Fixed(size)),
                (None, Some(reference)) => Ok(Dimension::Parameter(reference)),
                _ => Err(d.error(format!(
                    "variable {name}: a <Dimension> needs exactly one of start and valueReference"
                ))),
            },
        )
        .collect::<Result<_, _>>()?;
    let clocks = element
        .attr("clocks")
        .map(|text| {
            text.split_whitespace()
                .map(|item| {
                    item.parse().map_err(|_| {
                        element.error(format!(
                            "variable {name}: clocks entry \"{item}\" is not a value reference"
                        ))
                    })
                })
                .collect::<Result<Vec<u32>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    let aliases = element
        .children_named("Alias")
        .map(|a| {
            Ok(Alias {
                name: a.required("name")?.to_string(),
                description: text_attr(a, "description"),
                display_unit: text_attr(a, "displayUnit"),
            })
        })
        .collect::<Result<_, ParseError>>()?;
    let clock = (ty == VariableType::Clock)
        .then(|| {
            let declared = element.attr("declaredType").and_then(|declared| {
                types?
                    .children_named("ClockType")
                    .find(|t| t.attr("name") == Some(declared))
            });
            super::clock::read(element, declared, name)
        })
        .transpose()?
        .flatten();
    Ok(Variable {
        dimensions,
        clock,
        clocks,
        aliases,
        ..parse::variable(element, element, head, start)?
    })
}
