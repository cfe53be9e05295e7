//! The FMI 2.0 parts of modelDescription.xml: ScalarVariable, SimpleType, interfaces and
//! the index-based ModelStructure.

use super::parse::{capabilities, start_value, type_definition, unknown, variable, variable_head};
use super::xml::Element;
use super::{
    CoSimulation, FmiVersion, ModelDescription, ModelExchange, ModelStructure, ParseError,
    TypeDefinition, Variable, VariableType,
};

/// Fills the version-specific parts of `description` from the FMI 2.0 root element.
pub fn read(root: &Element, description: &mut ModelDescription) -> Result<(), ParseError> {
    if let Some(me) = root.child("ModelExchange") {
        description.model_exchange = Some(ModelExchange {
            model_identifier: me.required("modelIdentifier")?.to_string(),
            capabilities: capabilities(me, FmiVersion::V2)?,
            needs_completed_integrator_step: !me.flag("completedIntegratorStepNotNeeded", false)?,
        });
    }
    if let Some(cs) = root.child("CoSimulation") {
        description.co_simulation = Some(CoSimulation {
            model_identifier: cs.required("modelIdentifier")?.to_string(),
            capabilities: capabilities(cs, FmiVersion::V2)?,
            can_handle_variable_communication_step_size: cs
                .flag("canHandleVariableCommunicationStepSize", false)?,
            can_interpolate_inputs: cs.flag("canInterpolateInputs", false)?,
            max_output_derivative_order: cs.parsed("maxOutputDerivativeOrder")?.unwrap_or(0),
            can_run_asynchronuously: cs.flag("canRunAsynchronuously", false)?,
            fixed_internal_step_size: None,
            recommended_intermediate_input_smoothness: 0,
            provides_intermediate_update: false,
            might_return_early_from_do_step: false,
            can_return_early_after_intermediate_update: false,
            has_event_mode: false,
        });
    }
    description.type_definitions = root.list("TypeDefinitions", "SimpleType", simple_type)?;
    description.variables = root.list("ModelVariables", "ScalarVariable", scalar_variable)?;
    if let Some(structure) = root.child("ModelStructure") {
        let list = |name: &str| structure.list(name, "Unknown", |u| unknown(u, "index"));
        description.model_structure = ModelStructure {
            outputs: list("Outputs")?,
            derivatives: list("Derivatives")?,
            initial_unknowns: list("InitialUnknowns")?,
            ..Default::default()
        };
    }
    Ok(())
}

/// The single typed child (`Real`, `Integer`, ...) of a ScalarVariable or SimpleType.
fn typed_child(element: &Element) -> Result<(&Element, VariableType), ParseError> {
    element
        .children
        .iter()
        .find_map(|child| VariableType::from_fmi2_name(&child.name).map(|ty| (child, ty)))
        .ok_or_else(|| {
            element.error(format!(
                "<{}> has no type element (Real, Integer, Boolean, String or Enumeration)",
                element.name
            ))
        })
}

fn simple_type(element: &Element) -> Result<TypeDefinition, ParseError> {
    let (typed, ty) = typed_child(element)?;
    type_definition(element, typed, ty)
}

fn scalar_variable(element: &Element) -> Result<Variable, ParseError> {
    let name = element.required("name")?.to_string();
    let (typed, ty) = typed_child(element)?;
    let head = variable_head(element, name, ty, FmiVersion::V2)?;
    let start = typed
        .attr("start")
        .map(|text| start_value(typed, &head.name, ty, &[text]))
        .transpose()?;
    variable(element, typed, head, start)
}
