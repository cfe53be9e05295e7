//! The FMI 2.0 parts of modelDescription.xml: ScalarVariable, SimpleType, interfaces and
//! the index-based ModelStructure.

use super::parse::{capabilities, start_value, text_attr, unknown};
use super::xml::Element;
use super::{
    Causality, CoSimulation, EnumerationItem, FmiVersion, ModelDescription, ModelExchange,
    ModelStructure, ParseError, TypeDefinition, Variability, Variable, VariableType,
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
    if let Some(types) = root.child("TypeDefinitions") {
        description.type_definitions = types
            .children_named("SimpleType")
            .map(simple_type)
            .collect::<Result<_, _>>()?;
    }
    if let Some(variables) = root.child("ModelVariables") {
        description.variables = variables
            .children_named("ScalarVariable")
            .map(scalar_variable)
            .collect::<Result<_, _>>()?;
    }
    if let Some(structure) = root.child("ModelStructure") {
        let list = |name: &str| -> Result<Vec<_>, ParseError> {
            match structure.child(name) {
                Some(list) => list
                    .children_named("Unknown")
                    .map(|u| unknown(u, "index"))
                    .collect(),
                None => Ok(Vec::new()),
            }
        };
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
    Ok(TypeDefinition {
        name: element.required("name")?.to_string(),
        ty,
        description: text_attr(element, "description"),
        quantity: text_attr(typed, "quantity"),
        unit: text_attr(typed, "unit"),
        display_unit: text_attr(typed, "displayUnit"),
        min: typed.parsed("min")?,
        max: typed.parsed("max")?,
        nominal: typed.parsed("nominal")?,
        items: typed
            .children_named("Item")
            .map(|item| {
                Ok(EnumerationItem {
                    name: item.required("name")?.to_string(),
                    value: item.parsed_required("value")?,
                    description: text_attr(item, "description"),
                })
            })
            .collect::<Result<_, ParseError>>()?,
        line: element.line,
    })
}

fn scalar_variable(element: &Element) -> Result<Variable, ParseError> {
    let name = element.required("name")?.to_string();
    let (typed, ty) = typed_child(element)?;
    let causality = match element.attr("causality") {
        Some(text) => Causality::from_keyword(text)
            .filter(|c| *c != Causality::StructuralParameter)
            .ok_or_else(|| {
                element.error(format!(
                    "variable {name}: causality=\"{text}\" is not an FMI 2.0 causality"
                ))
            })?,
        None => Causality::Local,
    };
    let variability = match element.attr("variability") {
        Some(text) => Variability::from_keyword(text).ok_or_else(|| {
            element.error(format!(
                "variable {name}: variability=\"{text}\" is unknown"
            ))
        })?,
        None if ty == VariableType::Float64 => Variability::Continuous,
        None => Variability::Discrete,
    };
    let initial_attribute = element
        .attr("initial")
        .map(|text| {
            super::Initial::from_keyword(text).ok_or_else(|| {
                element.error(format!("variable {name}: initial=\"{text}\" is unknown"))
            })
        })
        .transpose()?;
    let start = typed
        .attr("start")
        .map(|text| start_value(typed, &name, ty, &[text]))
        .transpose()?;
    Ok(Variable {
        value_reference: element.parsed_required("valueReference")?,
        ty,
        description: text_attr(element, "description"),
        causality,
        variability,
        initial_attribute,
        start,
        declared_type: text_attr(typed, "declaredType"),
        quantity: text_attr(typed, "quantity"),
        unit: text_attr(typed, "unit"),
        display_unit: text_attr(typed, "displayUnit"),
        min: typed.parsed("min")?,
        max: typed.parsed("max")?,
        nominal: typed.parsed("nominal")?,
        derivative: typed.parsed("derivative")?,
        reinit: typed.flag("reinit", false)?,
        dimensions: Vec::new(),
        clocks: Vec::new(),
        aliases: Vec::new(),
        line: element.line,
        name,
    })
}
