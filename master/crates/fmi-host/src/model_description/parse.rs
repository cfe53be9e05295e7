//! Reading a modelDescription.xml: version dispatch and the parts FMI 2.0 and 3.0 share.

use super::xml::{parse_document, Element};
use super::{
    BaseUnit, Capabilities, Causality, DefaultExperiment, DependencyKind, DisplayUnit,
    EnumerationItem, FmiVersion, Initial, LogCategory, ModelDescription, ParseError,
    TypeDefinition, Unit, Unknown, Values, Variability, Variable, VariableType,
};

/// Parses modelDescription.xml text of FMI 2.0 or 3.0.
pub fn parse(text: &str) -> Result<ModelDescription, ParseError> {
    let root = parse_document(text)?;
    if root.name != "fmiModelDescription" {
        return Err(root.error(format!(
            "the root element is <{}>, expected <fmiModelDescription>",
            root.name
        )));
    }
    let version_text = root.required("fmiVersion")?.to_string();
    let version = match version_text.split('.').next() {
        Some("2") => FmiVersion::V2,
        Some("3") => FmiVersion::V3,
        _ => {
            let mut error = root.error(format!(
                "fmiVersion=\"{version_text}\" is not supported (FMI 2.0 and 3.0 are)"
            ));
            error.unsupported_version = Some(version_text);
            return Err(error);
        }
    };
    let mut description = ModelDescription {
        fmi_version: version,
        fmi_version_text: version_text,
        model_name: root.required("modelName")?.to_string(),
        instantiation_token: root
            .required(if version == FmiVersion::V2 {
                "guid"
            } else {
                "instantiationToken"
            })?
            .to_string(),
        description: text_attr(&root, "description"),
        author: text_attr(&root, "author"),
        version: text_attr(&root, "version"),
        generation_tool: text_attr(&root, "generationTool"),
        generation_date_and_time: text_attr(&root, "generationDateAndTime"),
        variable_naming_convention: text_attr(&root, "variableNamingConvention"),
        number_of_event_indicators: root.parsed("numberOfEventIndicators")?,
        model_exchange: None,
        co_simulation: None,
        scheduled_execution: None,
        units: root.list("UnitDefinitions", "Unit", unit)?,
        type_definitions: Vec::new(),
        log_categories: root.list("LogCategories", "Category", |c| {
            Ok(LogCategory {
                name: c.required("name")?.to_string(),
                description: text_attr(c, "description"),
            })
        })?,
        default_experiment: root
            .child("DefaultExperiment")
            .map(default_experiment)
            .transpose()?,
        variables: Vec::new(),
        model_structure: Default::default(),
    };
    match version {
        FmiVersion::V2 => super::fmi2::read(&root, &mut description)?,
        FmiVersion::V3 => super::fmi3::read(&root, &mut description)?,
    }
    Ok(description)
}

/// An optional attribute as an owned string.
pub fn text_attr(element: &Element, key: &str) -> Option<String> {
    element.attr(key).map(str::to_string)
}

/// The capability flags shared by all interfaces, under the spelling of `version`.
pub fn capabilities(element: &Element, version: FmiVersion) -> Result<Capabilities, ParseError> {
    let (state, serialize, directional) = match version {
        FmiVersion::V2 => (
            "canGetAndSetFMUstate",
            "canSerializeFMUstate",
            "providesDirectionalDerivative",
        ),
        FmiVersion::V3 => (
            "canGetAndSetFMUState",
            "canSerializeFMUState",
            "providesDirectionalDerivatives",
        ),
    };
    Ok(Capabilities {
        needs_execution_tool: element.flag("needsExecutionTool", false)?,
        can_be_instantiated_only_once_per_process: element
            .flag("canBeInstantiatedOnlyOncePerProcess", false)?,
        can_not_use_memory_management_functions: element
            .flag("canNotUseMemoryManagementFunctions", false)?,
        can_get_and_set_fmu_state: element.flag(state, false)?,
        can_serialize_fmu_state: element.flag(serialize, false)?,
        provides_directional_derivatives: element.flag(directional, false)?,
        provides_adjoint_derivatives: element.flag("providesAdjointDerivatives", false)?,
        provides_per_element_dependencies: element.flag("providesPerElementDependencies", false)?,
        provides_evaluate_discrete_states: element.flag("providesEvaluateDiscreteStates", false)?,
    })
}

fn unit(element: &Element) -> Result<Unit, ParseError> {
    let base_unit = element
        .child("BaseUnit")
        .map(|base| -> Result<BaseUnit, ParseError> {
            let mut exponents = [0; 8];
            for (exponent, name) in exponents.iter_mut().zip(super::BASE_UNIT_NAMES) {
                *exponent = base.parsed(name)?.unwrap_or(0);
            }
            Ok(BaseUnit {
                exponents,
                factor: base.parsed("factor")?.unwrap_or(1.0),
                offset: base.parsed("offset")?.unwrap_or(0.0),
            })
        })
        .transpose()?;
    let display_units = element
        .children_named("DisplayUnit")
        .map(|d| {
            Ok(DisplayUnit {
                name: d.required("name")?.to_string(),
                factor: d.parsed("factor")?.unwrap_or(1.0),
                offset: d.parsed("offset")?.unwrap_or(0.0),
                inverse: d.flag("inverse", false)?,
            })
        })
        .collect::<Result<_, ParseError>>()?;
    Ok(Unit {
        name: element.required("name")?.to_string(),
        base_unit,
        display_units,
    })
}

fn default_experiment(element: &Element) -> Result<DefaultExperiment, ParseError> {
    Ok(DefaultExperiment {
        start_time: element.parsed("startTime")?,
        stop_time: element.parsed("stopTime")?,
        tolerance: element.parsed("tolerance")?,
        step_size: element.parsed("stepSize")?,
    })
}

/// One ModelStructure entry; `reference_key` is `index` (FMI 2.0) or `valueReference` (FMI 3.0).
pub fn unknown(element: &Element, reference_key: &str) -> Result<Unknown, ParseError> {
    let dependencies = element
        .attr("dependencies")
        .map(|text| {
            text.split_whitespace()
                .map(|item| {
                    item.parse().map_err(|_| {
                        element.error(format!(
                            "dependencies entry \"{item}\" is not a non-negative integer"
                        ))
                    })
                })
                .collect::<Result<Vec<u32>, _>>()
        })
        .transpose()?;
    let dependencies_kind = element
        .attr("dependenciesKind")
        .map(|text| {
            text.split_whitespace()
                .map(|item| {
                    DependencyKind::from_keyword(item).ok_or_else(|| {
                        element.error(format!("dependenciesKind entry \"{item}\" is unknown"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok(Unknown {
        reference: element.parsed_required(reference_key)?,
        dependencies,
        dependencies_kind,
        line: element.line,
    })
}

/// Parses start values of type `ty` given as separate texts (one per array element).
pub fn start_value(
    element: &Element,
    variable: &str,
    ty: VariableType,
    texts: &[&str],
) -> Result<Values, ParseError> {
    Values::parse(ty, texts)
        .map_err(|problem| element.error(format!("variable {variable}: start value {problem}")))
}

/// A type definition named and described by `element`, with the type attributes and items of
/// `typed` (FMI 2.0: the SimpleType's typed child; FMI 3.0: the element itself).
pub fn type_definition(
    element: &Element,
    typed: &Element,
    ty: VariableType,
) -> Result<TypeDefinition, ParseError> {
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

/// What a variable is, read alike in both versions: name, type, causality, variability and
/// the `initial` attribute.
pub struct VariableHead {
    /// Unique name.
    pub name: String,
    /// Data type.
    pub ty: VariableType,
    /// Causality (default `local`).
    pub causality: Causality,
    /// Variability (default `continuous` for floats, `discrete` otherwise).
    pub variability: Variability,
    /// `initial` as written.
    pub initial_attribute: Option<Initial>,
}

/// Reads the causality, variability and `initial` of the variable `name` of type `ty` from
/// `element`, with the keywords of `version` (FMI 2.0 has no structural parameters).
pub fn variable_head(
    element: &Element,
    name: String,
    ty: VariableType,
    version: FmiVersion,
) -> Result<VariableHead, ParseError> {
    let causality = match element.attr("causality") {
        Some(text) => Causality::from_keyword(text)
            .filter(|c| version == FmiVersion::V3 || *c != Causality::StructuralParameter)
            .ok_or_else(|| {
                element.error(match version {
                    FmiVersion::V2 => {
                        format!("variable {name}: causality=\"{text}\" is not an FMI 2.0 causality")
                    }
                    FmiVersion::V3 => format!("variable {name}: causality=\"{text}\" is unknown"),
                })
            })?,
        None => Causality::Local,
    };
    let variability = match element.attr("variability") {
        Some(text) => Variability::from_keyword(text).ok_or_else(|| {
            element.error(format!(
                "variable {name}: variability=\"{text}\" is unknown"
            ))
        })?,
        None if ty.is_float() => Variability::Continuous,
        None => Variability::Discrete,
    };
    let initial_attribute = element
        .attr("initial")
        .map(|text| {
            Initial::from_keyword(text).ok_or_else(|| {
                element.error(format!("variable {name}: initial=\"{text}\" is unknown"))
            })
        })
        .transpose()?;
    Ok(VariableHead {
        name,
        ty,
        causality,
        variability,
        initial_attribute,
    })
}

/// The variable `head` with the start values `start`: value reference and description from
/// `element`, type attributes from `typed` (FMI 2.0: the ScalarVariable's typed child; FMI 3.0:
/// the element itself); a scalar without clocks or aliases, which FMI 3.0 adds.
pub fn variable(
    element: &Element,
    typed: &Element,
    head: VariableHead,
    start: Option<Values>,
) -> Result<Variable, ParseError> {
    Ok(Variable {
        value_reference: element.parsed_required("valueReference")?,
        ty: head.ty,
        description: text_attr(element, "description"),
        causality: head.causality,
        variability: head.variability,
        initial_attribute: head.initial_attribute,
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
        clock: None,
        aliases: Vec::new(),
        line: element.line,
        name: head.name,
    })
}
