//! SSP 1.0 system structure descriptions (`.ssd`): the subset that maps onto a Tandem system,
//! read into a [`SystemDescription`]. One flat `ssd:System` of FMU components, connections
//! between their connectors, parameter values (`ssv` parameter sets inline or in `.ssv` files),
//! the default experiment, and a Tandem annotation for what SSP does not describe (the macro
//! step, the schedule, the recorded variables, component steps). Anything else that would
//! change the system's meaning (nested systems, system connectors, signal dictionaries,
//! parameter mappings, transformations) is rejected with the element that uses it.

use std::path::Path;

use serde::de::{value::StrDeserializer, IntoDeserializer};
use serde::Deserialize;

use super::description::{
    ComponentDescription, ConnectionDescription, Located, Location, ScheduleDescription,
    SystemDescription, ValueDescription, ValueKind,
};
use super::parameter_set::{self, Parameter};
use super::xml_file::{children, local_name, XmlFile};
use crate::error::Result;
use crate::model_description::xml::Element;
use crate::model_description::InterfaceType;

/// The `type` of `ssc:Annotation` elements that hold Tandem settings.
pub const ANNOTATION_TYPE: &str = "tandem";

/// The component type of FMUs (the default of `ssd:Component type`).
const FMU_TYPE: &str = "application/x-fmu-sharedlibrary";

/// The parameter source type of SSP parameter sets (the default of `ssd:ParameterBinding type`).
const PARAMETER_SET_TYPE: &str = "application/x-ssp-parameter-set";

/// Reads the SSD `folder/file` of the system `system_path` (the `.ssd` itself, or the `.ssp`
/// it was unpacked from when `packaged`).
pub fn read(
    system_path: &Path,
    folder: &Path,
    file: &Path,
    packaged: bool,
) -> Result<SystemDescription> {
    let label = packaged.then(|| file.display().to_string());
    let xml = XmlFile::read(system_path, folder, file, label)?;
    let root = xml.root_named("SystemStructureDescription")?;
    let mut systems = children(root, "System");
    let system = systems
        .next()
        .ok_or_else(|| xml.error(root, "the description has no ssd:System"))?;
    let reader = Reader {
        xml: &xml,
        system_path,
        folder,
    };
    let mut description = SystemDescription {
        path: system_path.to_path_buf(),
        folder: folder.to_path_buf(),
        packaged,
        start: None,
        stop: None,
        step: None,
        components: Vec::new(),
        connections: Vec::new(),
        schedule: ScheduleDescription::default(),
        recorded: None,
        output_file: None,
        bonds: Vec::new(),
        energy: None,
        at: Some(xml.at(system)),
    };
    if let Some(experiment) = children(root, "DefaultExperiment").next() {
        let at = xml.at(experiment);
        let number = |key| xml.number(experiment, key);
        description.start = number("startTime")?.map(|v| Located::new(v, at.clone()));
        description.stop = number("stopTime")?.map(|v| Located::new(v, at.clone()));
    }
    reader.system(system, &mut description)?;
    Ok(description)
}

/// What reading one SSD needs: the file and where its references are resolved.
struct Reader<'a> {
    xml: &'a XmlFile,
    system_path: &'a Path,
    /// The folder of the SSD, against which sources are resolved.
    folder: &'a Path,
}

impl Reader<'_> {
    /// Reads the top-level `ssd:System` into `description`.
    fn system(&self, system: &Element, description: &mut SystemDescription) -> Result<()> {
        let xml = self.xml;
        let mut system_values = Vec::new();
        for child in &system.children {
            match local_name(&child.name) {
                "Elements" => {
                    for element in &child.children {
                        match local_name(&element.name) {
                            "Component" => description.components.push(self.component(element)?),
                            "System" => {
                                return Err(xml.unsupported(
                                    element,
                                    "a nested system (flatten it into the top-level system)",
                                ))
                            }
                            _ => return Err(xml.unsupported(element, "this element")),
                        }
                    }
                }
                "Connections" => {
                    for connection in children(child, "Connection") {
                        description.connections.push(self.connection(connection)?);
                    }
                }
                "ParameterBindings" => system_values = self.bindings(child)?,
                "Annotations" => self.system_annotations(child, description)?,
                // The system's own connectors are only used by connections, which are checked.
                "Connectors" | "ElementGeometry" | "SystemGeometry" | "GraphicalElements"
                | "SignalDictionaries" => {}
                _ => return Err(xml.unsupported(child, "this element")),
            }
        }
        // System-level values take precedence over the components' own.
        for value in system_values {
            let name = value.name.clone();
            let (component, variable) = name.split_once('.').ok_or_else(|| {
                value.at.error(
                    self.system_path,
                    format!(
                        "parameter {name}: system-level names are component.variable \
                         (system connectors are not supported)"
                    ),
                )
            })?;
            let target = description
                .components
                .iter_mut()
                .find(|c| c.name.value == component)
                .ok_or_else(|| {
                    value.at.error(
                        self.system_path,
                        format!("parameter {name}: unknown component \"{component}\""),
                    )
                })?;
            set_value(
                &mut target.values,
                ValueDescription {
                    name: variable.to_string(),
                    ..value
                },
            );
        }
        Ok(())
    }

    /// One `ssd:Component` that references an FMU.
    fn component(&self, element: &Element) -> Result<ComponentDescription> {
        let xml = self.xml;
        let name = xml.required(element, "name")?;
        let kind = element.attr("type").unwrap_or(FMU_TYPE);
        if kind != FMU_TYPE {
            return Err(xml.unsupported(
                element,
                format!("component {name}: type \"{kind}\" (only FMUs, {FMU_TYPE})"),
            ));
        }
        let source = decode_uri(xml.required(element, "source")?)
            .map_err(|m| xml.error(element, format!("component {name}: source: {m}")))?;
        let interface = match element.attr("implementation").unwrap_or("any") {
            "any" => None,
            "CoSimulation" => Some(InterfaceType::CoSimulation),
            "ModelExchange" => Some(InterfaceType::ModelExchange),
            other => {
                return Err(xml.error(
                    element,
                    format!(
                        "component {name}: implementation=\"{other}\" (expected any, \
                         CoSimulation or ModelExchange)"
                    ),
                ))
            }
        };
        let mut component = ComponentDescription {
            name: Located::new(name.to_string(), xml.at(element)),
            fmu: Located::new(source, xml.at(element)),
            interface: interface.map(|i| Located::new(i, xml.at(element))),
            step: None,
            tolerance: None,
            extrapolation: None,
            values: Vec::new(),
        };
        for child in &element.children {
            match local_name(&child.name) {
                "ParameterBindings" => {
                    for value in self.bindings(child)? {
                        set_value(&mut component.values, value);
                    }
                }
                "Annotations" => {
                    for settings in self.tandem_settings(child)? {
                        let [step, tolerance] =
                            self.settings(settings, "Component", ["step", "tolerance"])?;
                        let located = |v: f64| Located::new(v, xml.at(settings));
                        component.step = step.map(located).or(component.step);
                        component.tolerance = tolerance.map(located).or(component.tolerance);
                    }
                }
                "Connectors" | "ElementGeometry" => {}
                _ => return Err(xml.unsupported(child, "this element")),
            }
        }
        Ok(component)
    }

    /// One `ssd:Connection` between connectors of two components; its direction follows the
    /// connectors' causalities.
    fn connection(&self, element: &Element) -> Result<ConnectionDescription> {
        let xml = self.xml;
        let end = |element_key: &str, connector_key: &str| -> Result<String> {
            let connector = xml.required(element, connector_key)?;
            let owner = element.attr(element_key).ok_or_else(|| {
                xml.unsupported(
                    element,
                    format!(
                        "a connection to the system's own connector {connector} (no {element_key})"
                    ),
                )
            })?;
            Ok(format!("{owner}.{connector}"))
        };
        let from = end("startElement", "startConnector")?;
        let to = end("endElement", "endConnector")?;
        for child in &element.children {
            match local_name(&child.name) {
                "ConnectionGeometry" | "Annotations" => {}
                _ => {
                    return Err(xml.unsupported(
                        child,
                        format!("connection {from} -> {to}: a transformation"),
                    ))
                }
            }
        }
        Ok(ConnectionDescription {
            from,
            to,
            directed: false,
            at: xml.at(element),
        })
    }

    /// The values of an `ssd:ParameterBindings` element, later bindings overriding earlier
    /// ones, with each binding's prefix applied.
    fn bindings(&self, bindings: &Element) -> Result<Vec<ValueDescription>> {
        let xml = self.xml;
        let mut values = Vec::new();
        for binding in children(bindings, "ParameterBinding") {
            let kind = binding.attr("type").unwrap_or(PARAMETER_SET_TYPE);
            if kind != PARAMETER_SET_TYPE {
                return Err(
                    xml.unsupported(binding, format!("a parameter source of type \"{kind}\""))
                );
            }
            if binding.attr("sourceBase") == Some("component") {
                return Err(xml.unsupported(
                    binding,
                    "sourceBase=\"component\" (a parameter file inside the FMU)",
                ));
            }
            let prefix = binding.attr("prefix").unwrap_or_default();
            let mut inline = Vec::new();
            for child in &binding.children {
                match local_name(&child.name) {
                    "ParameterValues" => inline.push(child),
                    "ParameterMapping" => return Err(xml.unsupported(child, "a parameter mapping")),
                    "Annotations" => {}
                    _ => return Err(xml.unsupported(child, "this element")),
                }
            }
            let parameters = match (binding.attr("source"), inline.as_slice()) {
                (Some(source), []) => {
                    let source = decode_uri(source)
                        .map_err(|m| xml.error(binding, format!("source: {m}")))?;
                    parameter_set::read_file(self.system_path, self.folder, &source)?
                }
                (None, [values]) => {
                    let mut parameters = Vec::new();
                    for set in children(values, "ParameterSet") {
                        parameters.extend(parameter_set::parameters(xml, set)?);
                    }
                    parameters
                }
                (None, []) => Vec::new(),
                _ => {
                    return Err(xml.error(
                        binding,
                        "give the parameter values either by source or inline in one ssd:ParameterValues",
                    ))
                }
            };
            for Parameter {
                name,
                text,
                unit,
                at,
            } in parameters
            {
                let value = ValueDescription {
                    name: format!("{prefix}{name}"),
                    text,
                    kind: ValueKind::Any,
                    unit,
                    at,
                };
                set_value(&mut values, value);
            }
        }
        Ok(values)
    }

    /// The Tandem settings of the top-level system: macro step, schedule and recorded variables.
    fn system_annotations(
        &self,
        annotations: &Element,
        description: &mut SystemDescription,
    ) -> Result<()> {
        let xml = self.xml;
        for settings in self.tandem_settings(annotations)? {
            let at = xml.at(settings);
            match local_name(&settings.name) {
                "Experiment" => {
                    let [step] = self.settings(settings, "Experiment", ["step"])?;
                    description.step = step.map(|v| Located::new(v, at));
                }
                "Schedule" => {
                    self.check_attributes(settings, &["kind", "order", "extrapolation"])?;
                    let schedule = &mut description.schedule;
                    if let Some(kind) = settings.attr("kind") {
                        schedule.kind = self.enumeration(settings, "kind", kind)?;
                    }
                    if let Some(extrapolation) = settings.attr("extrapolation") {
                        schedule.extrapolation =
                            self.enumeration(settings, "extrapolation", extrapolation)?;
                    }
                    schedule.order = settings
                        .attr("order")
                        .map(|order| Located::new(names(order, &at), at.clone()));
                }
                "Output" => {
                    self.check_attributes(settings, &["variables", "file"])?;
                    description.recorded = settings.attr("variables").map(|v| names(v, &at));
                    description.output_file = settings.attr("file").map(str::to_string);
                }
                _ => {
                    return Err(xml.error(
                        settings,
                        "unknown Tandem setting (expected Experiment, Schedule or Output)",
                    ))
                }
            }
        }
        Ok(())
    }

    /// The elements inside the `ssc:Annotation`s of type [`ANNOTATION_TYPE`] in `annotations`.
    fn tandem_settings<'e>(&self, annotations: &'e Element) -> Result<Vec<&'e Element>> {
        Ok(children(annotations, "Annotation")
            .filter(|a| a.attr("type") == Some(ANNOTATION_TYPE))
            .flat_map(|a| a.children.iter())
            .collect())
    }

    /// The numeric attributes `keys` of the Tandem setting `element`, which must be named
    /// `expected` and have no other attributes.
    fn settings<const N: usize>(
        &self,
        element: &Element,
        expected: &str,
        keys: [&str; N],
    ) -> Result<[Option<f64>; N]> {
        if local_name(&element.name) != expected {
            return Err(self.xml.error(
                element,
                format!("unknown Tandem setting (expected {expected})"),
            ));
        }
        self.check_attributes(element, &keys)?;
        let mut values = [None; N];
        for (value, key) in values.iter_mut().zip(keys) {
            *value = self.xml.number(element, key)?;
        }
        Ok(values)
    }

    /// Rejects attributes of a Tandem setting other than `known` (and namespace declarations).
    fn check_attributes(&self, element: &Element, known: &[&str]) -> Result<()> {
        match element
            .attributes
            .iter()
            .map(|(key, _)| key.as_str())
            .find(|key| !known.contains(key) && !key.starts_with("xmlns"))
        {
            Some(key) => Err(self.xml.error(
                element,
                format!("unknown attribute {key} (expected {})", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    /// A schedule setting by the names the TOML system file uses.
    fn enumeration<T: for<'de> Deserialize<'de>>(
        &self,
        element: &Element,
        key: &str,
        text: &str,
    ) -> Result<T> {
        let deserializer: StrDeserializer<'_, serde::de::value::Error> = text.into_deserializer();
        T::deserialize(deserializer).map_err(|e| self.xml.error(element, format!("{key}: {e}")))
    }
}

/// Adds `value` to `values`, replacing an earlier value of the same variable.
fn set_value(values: &mut Vec<ValueDescription>, value: ValueDescription) {
    match values.iter_mut().find(|v| v.name == value.name) {
        Some(slot) => *slot = value,
        None => values.push(value),
    }
}

/// A list of names separated by white space or commas, each located at `at`.
fn names(text: &str, at: &Location) -> Vec<Located<String>> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|name| !name.is_empty())
        .map(|name| Located::new(name.to_string(), at.clone()))
        .collect()
}

/// A relative URI reference as a path: `%XX` escapes decoded; schemes, queries and fragments
/// are not supported.
fn decode_uri(uri: &str) -> std::result::Result<String, String> {
    if uri.contains(['?', '#']) || uri.split('/').next().is_some_and(|s| s.contains(':')) {
        return Err(format!(
            "\"{uri}\" is not a relative path (URI schemes, queries and fragments are not supported)"
        ));
    }
    let bytes = uri.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = uri
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("\"{uri}\" has a malformed %-escape"))?;
            decoded.push(hex);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).map_err(|_| format!("\"{uri}\" does not decode to UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `ssd` written to a temporary folder as `system.ssd`.
    fn read_text(ssd: &str) -> Result<SystemDescription> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("system.ssd");
        std::fs::write(&path, ssd).unwrap();
        read(&path, dir.path(), Path::new("system.ssd"), false)
    }

    /// An SSD with one system holding `body`, under the usual prefixes.
    fn system(body: &str) -> String {
        format!(
            r#"<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0" name="s">
<ssd:System name="s">{body}</ssd:System>
</ssd:SystemStructureDescription>"#
        )
    }

    /// A parameter binding with inline values `(name, value)`, and `attributes`.
    fn binding(attributes: &str, values: &[(&str, &str)]) -> String {
        let parameters: String = values
            .iter()
            .map(|(n, v)| {
                format!(r#"<ssv:Parameter name="{n}"><ssv:Real value="{v}"/></ssv:Parameter>"#)
            })
            .collect();
        format!(
            r#"<ssd:ParameterBinding {attributes}><ssd:ParameterValues><ssv:ParameterSet version="1.0" name="p"><ssv:Parameters>{parameters}</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"#
        )
    }

    fn values(component: &ComponentDescription) -> Vec<(&str, &str)> {
        component
            .values
            .iter()
            .map(|v| (v.name.as_str(), v.text.as_str()))
            .collect()
    }

    #[test]
    fn later_bindings_and_system_bindings_take_precedence() {
        let text = system(&format!(
            r#"<ssd:ParameterBindings>{}{}</ssd:ParameterBindings>
<ssd:Elements>
<ssd:Component name="a" source="a.fmu"><ssd:ParameterBindings>{}{}</ssd:ParameterBindings></ssd:Component>
<ssd:Component name="b" source="b.fmu"/>
</ssd:Elements>"#,
            binding(r#"prefix="a.""#, &[("k", "3"), ("c", "4")]),
            binding("", &[("a.c", "5"), ("b.k", "6")]),
            binding("", &[("k", "1"), ("m", "1")]),
            binding("", &[("k", "2")]),
        ));
        let description = read_text(&text).unwrap();
        let [a, b] = &description.components[..] else {
            panic!("two components");
        };
        assert_eq!(values(a), [("k", "3"), ("m", "1"), ("c", "5")]);
        assert_eq!(values(b), [("k", "6")]);
        assert!(a.values.iter().all(|v| v.kind == ValueKind::Any));
    }

    #[test]
    fn connections_are_undirected_and_located() {
        let text = system(
            r#"<ssd:Elements><ssd:Component name="a" source="a.fmu"/></ssd:Elements>
<ssd:Connections><ssd:Connection startElement="a" startConnector="u" endElement="a" endConnector="y"/></ssd:Connections>"#,
        );
        let description = read_text(&text).unwrap();
        let connection = &description.connections[0];
        assert_eq!(
            (connection.from.as_str(), connection.to.as_str()),
            ("a.u", "a.y")
        );
        assert!(!connection.directed);
        assert_eq!(connection.at.line, 5);
        assert_eq!(connection.at.element.as_deref(), Some("ssd:Connection"));
    }

    #[test]
    fn the_default_experiment_and_tandem_settings_are_read() {
        let text = system(
            r#"<ssd:Elements><ssd:Component name="a" source="a.fmu" implementation="ModelExchange">
<ssd:Annotations><ssc:Annotation type="tandem"><Component tolerance="1e-9"/></ssc:Annotation></ssd:Annotations>
</ssd:Component></ssd:Elements>
<ssd:Annotations><ssc:Annotation type="tandem"><Experiment step="0.01"/>
<Schedule kind="gauss-seidel" order="a" extrapolation="soh"/><Output variables="a.y, a.z" file="out.csv"/></ssc:Annotation></ssd:Annotations>"#,
        )
        .replace(
            "</ssd:System>",
            r#"</ssd:System><ssd:DefaultExperiment startTime="1" stopTime="3"/>"#,
        );
        let d = read_text(&text).unwrap();
        assert_eq!(d.start.as_ref().map(|s| s.value), Some(1.0));
        assert_eq!(d.stop.as_ref().map(|s| s.value), Some(3.0));
        assert_eq!(d.step.as_ref().map(|s| s.value), Some(0.01));
        assert_eq!(d.schedule.kind, crate::coupling::ScheduleKind::GaussSeidel);
        assert_eq!(
            d.schedule.extrapolation,
            crate::coupling::Extrapolation::Soh
        );
        let recorded: Vec<&str> = d
            .recorded
            .iter()
            .flatten()
            .map(|n| n.value.as_str())
            .collect();
        assert_eq!(recorded, ["a.y", "a.z"]);
        assert_eq!(d.output_file.as_deref(), Some("out.csv"));
        let a = &d.components[0];
        assert_eq!(
            a.interface.as_ref().map(|i| i.value),
            Some(InterfaceType::ModelExchange)
        );
        assert_eq!(a.tolerance.as_ref().map(|t| t.value), Some(1e-9));
    }

    #[test]
    fn uris_decode_to_relative_paths() {
        assert_eq!(
            decode_uri("resources/my%20model.fmu").unwrap(),
            "resources/my model.fmu"
        );
        assert_eq!(decode_uri("../a.fmu").unwrap(), "../a.fmu");
        for bad in ["file:///a.fmu", "a.fmu#x", "a%2", "a%zz.fmu"] {
            assert!(decode_uri(bad).is_err(), "{bad}");
        }
    }
}
