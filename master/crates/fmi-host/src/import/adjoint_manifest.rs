//! The manifest of the adjoint extension `org.tandem.adjoint` (docs/adjoint-extension.md):
//! `extra/org.tandem.adjoint/manifest.xml` in an FMI 3.0 FMU, read into an
//! [`AdjointManifest`] and checked against the FMU's model description.

use crate::model_description::xml::{parse_document, Element};
use crate::model_description::{
    Causality, FmiVersion, ModelDescription, ParseError, Shapes, VariableType,
};

pub use fmi_abi::adjoint::{
    EXTENSION as ADJOINT_EXTENSION, JACOBIAN_ADJOINT_DERIVATIVE, KEEP_STEP_LINEARIZATIONS,
    MANIFEST as ADJOINT_MANIFEST, VERSION as ADJOINT_EXTENSION_VERSION,
};

/// A parsed adjoint-extension manifest. The order of each list is the order of the entries
/// of the extension's seed arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjointManifest {
    /// The extension's version (always [`ADJOINT_EXTENSION_VERSION`] once parsed).
    pub version: u32,
    /// Length of the discrete state `w`.
    pub n_state: usize,
    /// The inputs `u`.
    pub inputs: Vec<ManifestVariable>,
    /// The parameters `p`.
    pub parameters: Vec<ManifestVariable>,
    /// The outputs `y`.
    pub outputs: Vec<ManifestVariable>,
    /// The optional functions the FMU implements (the root's `capabilities` attribute, names
    /// separated by white space; unknown names are kept and ignored).
    pub capabilities: Vec<String>,
}

/// One variable of a manifest list.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestVariable {
    /// Its value reference in the FMI 3.0 model description.
    pub value_reference: u32,
    /// Its name.
    pub name: String,
    /// For an FMI 3.0 array, which element (0-based, row-major): the manifest lists an array
    /// by element, each with an entry of its own in the seeds.
    pub element: Option<usize>,
}

/// The three lists, with the causality their variables must have.
const LISTS: [(&str, Causality); 3] = [
    ("Inputs", Causality::Input),
    ("Parameters", Causality::Parameter),
    ("Outputs", Causality::Output),
];

impl AdjointManifest {
    /// Parses the text of a manifest and checks every listed variable against `md`: it must
    /// be a Float64 variable of the list's causality with the given name and value reference.
    pub fn parse(text: &str, md: &ModelDescription) -> Result<Self, ParseError> {
        let root = parse_document(text.strip_prefix('\u{feff}').unwrap_or(text))?;
        if root.name != "TandemAdjoint" {
            return Err(root.error(format!(
                "the root element is <{}>, expected <TandemAdjoint>",
                root.name
            )));
        }
        if md.fmi_version != FmiVersion::V3 {
            return Err(root.error(format!(
                "the adjoint extension is defined for FMI 3.0, but the FMU is FMI {}",
                md.fmi_version
            )));
        }
        let version: u32 = root.parsed_required("version")?;
        if version != ADJOINT_EXTENSION_VERSION {
            return Err(root.error(format!(
                "{ADJOINT_EXTENSION} version {version} is not supported (version {ADJOINT_EXTENSION_VERSION} is)"
            )));
        }
        if let Some(other) = root
            .children
            .iter()
            .find(|c| !LISTS.iter().any(|(n, _)| c.name == *n))
        {
            return Err(other.error(format!(
                "unexpected element <{}> (expected <Inputs>, <Parameters> and <Outputs>)",
                other.name
            )));
        }
        let [inputs, parameters, outputs] = LISTS.map(|(name, causality)| {
            root.child(name)
                .map_or(Ok(Vec::new()), |list| variables(list, causality, md))
        });
        Ok(AdjointManifest {
            version,
            n_state: root.parsed_required("nState")?,
            inputs: inputs?,
            parameters: parameters?,
            outputs: outputs?,
            capabilities: root
                .attr("capabilities")
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
        })
    }

    /// Whether the FMU declares the optional function of `capability`.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }

    /// The value references of the inputs, in seed order, one per variable (an array's
    /// elements share theirs), as get and set calls take them.
    pub fn input_references(&self) -> Vec<u32> {
        references(&self.inputs)
    }

    /// The value references of the parameters, as [`Self::input_references`].
    pub fn parameter_references(&self) -> Vec<u32> {
        references(&self.parameters)
    }

    /// The value references of the outputs, as [`Self::input_references`].
    pub fn output_references(&self) -> Vec<u32> {
        references(&self.outputs)
    }
}

/// One value reference per variable of `list`, in order.
fn references(list: &[ManifestVariable]) -> Vec<u32> {
    let mut references: Vec<u32> = list.iter().map(|v| v.value_reference).collect();
    references.dedup();
    references
}

/// The `<Variable>` children of `list`, each checked against `md`.
fn variables(
    list: &Element,
    causality: Causality,
    md: &ModelDescription,
) -> Result<Vec<ManifestVariable>, ParseError> {
    list.children
        .iter()
        .map(|element| {
            if element.name != "Variable" {
                return Err(element.error(format!(
                    "unexpected element <{}> in <{}> (expected <Variable>)",
                    element.name, list.name
                )));
            }
            let value_reference: u32 = element.parsed_required("valueReference")?;
            let name = element.required("name")?;
            let declared = md
                .variables
                .iter()
                .find(|v| v.value_reference == value_reference)
                .ok_or_else(|| {
                    element.error(format!(
                        "{name}: value reference {value_reference} is not in modelDescription.xml"
                    ))
                })?;
            let named = declared.name == name || declared.aliases.iter().any(|a| a.name == name);
            if !named {
                return Err(element.error(format!(
                    "value reference {value_reference} is {} in modelDescription.xml, not {name}",
                    declared.name
                )));
            }
            if declared.ty != VariableType::Float64 || declared.causality != causality {
                return Err(element.error(format!(
                    "{name} is a {} {} in modelDescription.xml, but <{}> lists Float64 {causality}s",
                    declared.ty, declared.causality, list.name
                )));
            }
            let position: Option<usize> = element.parsed("element")?;
            let count = Shapes::new(md)
                .count(declared)
                .map_err(|message| element.error(message))?;
            let problem = match (declared.is_scalar(), position) {
                (true, Some(_)) => Some(format!("{name} is a scalar; it has no elements")),
                (false, None) => Some(format!(
                    "{name} is an array: list it by element (element=\"0\" to \"{}\")",
                    count.saturating_sub(1)
                )),
                (false, Some(e)) if e >= count => Some(format!(
                    "element {e} of {name} is out of range: it has {count} elements"
                )),
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(element.error(problem));
            }
            Ok(ManifestVariable {
                value_reference,
                name: name.to_string(),
                element: position,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESCRIPTION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="mass" instantiationToken="{x}">
  <CoSimulation modelIdentifier="mass"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="local" variability="continuous" initial="exact" start="0"/>
    <Float64 name="F" valueReference="5" causality="input" variability="continuous" start="0"/>
    <Float64 name="m" valueReference="6" causality="parameter" variability="fixed" start="1"/>
    <Float64 name="k" valueReference="7" causality="parameter" variability="tunable" start="2"/>
    <Float64 name="A" valueReference="11" causality="parameter" variability="tunable" start="1 2 3 4 5 6">
      <Dimension start="2"/><Dimension start="3"/>
    </Float64>
    <Float64 name="position" valueReference="9" causality="output" variability="continuous"/>
    <Int32 name="count" valueReference="10" causality="output" variability="discrete"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="9"/>
    <Output valueReference="10"/>
  </ModelStructure>
</fmiModelDescription>
"#;

    fn description() -> ModelDescription {
        ModelDescription::parse(DESCRIPTION).unwrap()
    }

    fn manifest(body: &str) -> String {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<TandemAdjoint version=\"1\" nState=\"3\">\n{body}</TandemAdjoint>\n")
    }

    fn error(text: &str) -> String {
        AdjointManifest::parse(text, &description())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_manifest_is_read_in_seed_order() {
        let text = manifest(
            r#"  <Inputs><Variable valueReference="5" name="F"/></Inputs>
  <Parameters>
    <Variable valueReference="7" name="k"/>
    <Variable valueReference="6" name="m"/>
  </Parameters>
  <Outputs><Variable valueReference="9" name="position"/></Outputs>
"#,
        );
        let parsed = AdjointManifest::parse(&text, &description()).unwrap();
        assert_eq!(parsed.version, 1);
        assert_eq!(parsed.n_state, 3);
        assert_eq!(parsed.input_references(), [5]);
        assert_eq!(parsed.parameter_references(), [7, 6]);
        assert_eq!(parsed.output_references(), [9]);
        assert_eq!(parsed.parameters[1].name, "m");
    }

    #[test]
    fn capabilities_are_listed_and_optional() {
        assert!(AdjointManifest::parse(&manifest(""), &description())
            .unwrap()
            .capabilities
            .is_empty());
        let text = manifest("").replace(
            "nState=\"3\">",
            "nState=\"3\" capabilities=\" keepStepLinearizations  future \">",
        );
        let parsed = AdjointManifest::parse(&text, &description()).unwrap();
        assert_eq!(parsed.capabilities, ["keepStepLinearizations", "future"]);
        assert!(parsed.has(KEEP_STEP_LINEARIZATIONS) && !parsed.has("keepStep"));
    }

    #[test]
    fn missing_lists_are_empty() {
        let parsed = AdjointManifest::parse(&manifest(""), &description()).unwrap();
        assert!(
            parsed.inputs.is_empty() && parsed.parameters.is_empty() && parsed.outputs.is_empty()
        );
    }

    #[test]
    fn mistakes_are_reported_with_their_position() {
        assert_eq!(
            error(&manifest(
                "  <Inputs><Variable valueReference=\"8\" name=\"G\"/></Inputs>\n"
            )),
            "line 3, column 11: G: value reference 8 is not in modelDescription.xml"
        );
        assert!(error(&manifest(
            "<Inputs><Variable valueReference=\"6\" name=\"m\"/></Inputs>"
        ))
        .contains(
            "m is a Float64 parameter in modelDescription.xml, but <Inputs> lists Float64 inputs"
        ));
        assert!(error(&manifest(
            "<Outputs><Variable valueReference=\"10\" name=\"count\"/></Outputs>"
        ))
        .contains("count is a Int32 output"));
        assert!(error(&manifest(
            "<Inputs><Variable valueReference=\"5\" name=\"H\"/></Inputs>"
        ))
        .contains("value reference 5 is F in modelDescription.xml, not H"));
        assert!(error(&manifest("<States/>")).contains("unexpected element <States>"));
        assert!(error(&manifest("<Inputs><Var/></Inputs>"))
            .contains("unexpected element <Var> in <Inputs>"));
        assert!(error(&manifest("<Inputs><Variable name=\"F\"/></Inputs>"))
            .contains("lacks the required attribute valueReference"));
        assert!(error("<TandemAdjoint version=\"2\" nState=\"1\"/>")
            .contains("org.tandem.adjoint version 2 is not supported (version 1 is)"));
        assert!(error("<TandemAdjoint version=\"1\" nState=\"-1\"/>").contains("nState=\"-1\""));
        assert!(
            error("<TandemAdjoint version=\"1\"/>").contains("lacks the required attribute nState")
        );
        assert!(error("<Adjoint/>").contains("expected <TandemAdjoint>"));
        assert!(error("<TandemAdjoint version=\"1\" nState=\"1\">").contains("malformed XML"));
    }

    #[test]
    fn arrays_are_listed_by_element() {
        let list = |elements: &str| {
            manifest(&format!(
                "  <Parameters>\n{elements}    <Variable valueReference=\"7\" name=\"k\"/>\n  </Parameters>\n"
            ))
        };
        let elements: String = [5, 0]
            .map(|e| format!("    <Variable valueReference=\"11\" name=\"A\" element=\"{e}\"/>\n"))
            .concat();
        let parsed = AdjointManifest::parse(&list(&elements), &description()).unwrap();
        let listed: Vec<(u32, Option<usize>)> = parsed
            .parameters
            .iter()
            .map(|p| (p.value_reference, p.element))
            .collect();
        assert_eq!(listed, [(11, Some(5)), (11, Some(0)), (7, None)]);
        assert_eq!(parsed.parameter_references(), [11, 7]);
        let refused = |line: &str| error(&list(&format!("    {line}\n")));
        assert!(refused(r#"<Variable valueReference="11" name="A"/>"#)
            .contains("A is an array: list it by element (element=\"0\" to \"5\")"));
        assert!(
            refused(r#"<Variable valueReference="11" name="A" element="6"/>"#)
                .contains("element 6 of A is out of range: it has 6 elements")
        );
        assert!(
            refused(r#"<Variable valueReference="6" name="m" element="0"/>"#)
                .contains("m is a scalar; it has no elements")
        );
    }

    #[test]
    fn the_extension_needs_an_fmi3_description() {
        let fmi2 = include_str!("../../../../tests/fixtures/fmi2_bouncing_ball.xml");
        let md = ModelDescription::parse(fmi2).unwrap();
        let refused = AdjointManifest::parse(&manifest(""), &md).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("defined for FMI 3.0, but the FMU is FMI 2.0"),
            "{refused}"
        );
    }
}
