//! SSP 1.0 system structure descriptions (`.ssd`), read into a [`SystemDescription`]: FMU
//! components, nested systems flattened into components named `system.component`,
//! connections between connectors of components and of systems (joined end to end through the
//! system connectors), parameter values (`ssv` parameter sets inline or in `.ssv` files, with
//! parameter mappings inline or in `.ssm` files), the default experiment, and a Tandem
//! annotation for what SSP does not describe (the macro step, the schedule, the recorded
//! variables, component steps). Anything else that would change the system's meaning (signal
//! dictionaries, transformations on connections, other component types) is rejected with the
//! element that uses it.

use std::collections::HashSet;
use std::path::Path;

use serde::de::{value::StrDeserializer, IntoDeserializer};
use serde::Deserialize;

use super::description::{
    ComponentDescription, ConnectionDescription, Located, Location, ScheduleDescription,
    SystemDescription, ValueDescription, ValueKind,
};
use super::parameter_mapping::{Mapping, Transformation};
use super::parameter_set::{self, Parameter};
use super::system_connectors::{self, End, Link};
use super::transform::{Transform, ValueMap};
use super::xml_file::{children, local_name, XmlFile};
use crate::error::Result;
use fmi_host::model_description::xml::Element;
use fmi_host::model_description::InterfaceType;
use fmi_host::suggest::did_you_mean;

/// The `type` of `ssc:Annotation` elements that hold Tandem settings.
pub const ANNOTATION_TYPE: &str = "tandem";

/// The component type of FMUs (the default of `ssd:Component type`).
const FMU_TYPE: &str = "application/x-fmu-sharedlibrary";

/// The parameter source type of SSP parameter sets (the default of `ssd:ParameterBinding type`).
const PARAMETER_SET_TYPE: &str = "application/x-ssp-parameter-set";

/// The type of SSP parameter mappings (the default of `ssd:ParameterMapping type`).
const PARAMETER_MAPPING_TYPE: &str = "application/x-ssp-parameter-mapping";

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
        nets: Vec::new(),
        schedule: ScheduleDescription::default(),
        recorded: None,
        output_file: None,
        output_interval: None,
        bonds: Vec::new(),
        energy: None,
        at: Some(xml.at(system)),
        ignored: Vec::new(),
    };
    if let Some(experiment) = children(root, "DefaultExperiment").next() {
        let at = xml.at(experiment);
        let number = |key| xml.number(experiment, key);
        description.start = number("startTime")?.map(|v| Located::new(v, at.clone()));
        description.stop = number("stopTime")?.map(|v| Located::new(v, at.clone()));
    }
    let mut flat = Flat::default();
    reader.system(system, "", &mut flat, &mut description)?;
    flat.finish(&mut description);
    Ok(description)
}

/// The system read so far, nested systems flattened: components by full name, the
/// connections between two components, and those through system connectors.
#[derive(Default)]
struct Flat {
    components: Vec<ComponentDescription>,
    connections: Vec<ConnectionDescription>,
    links: Vec<Link>,
    /// The systems' connectors, as `system.connector` (top level: `connector`).
    connectors: HashSet<String>,
    /// Values bound to system connectors, by full connector name; outer systems' values
    /// replace inner ones.
    connector_values: Vec<ValueDescription>,
    /// Values that name nothing in the system, by full name.
    ignored: Vec<Located<String>>,
}

impl Flat {
    /// Applies `value`, bound in the system whose elements' names begin with `prefix`: to a
    /// connector of a system, or a variable of a component (replacing earlier values).
    fn bind(&mut self, prefix: &str, value: ValueDescription) {
        let name = format!("{prefix}{}", value.name);
        if self.connectors.contains(&name) {
            set_value(
                &mut self.connector_values,
                ValueDescription { name, ..value },
            );
            return;
        }
        let target = self.components.iter_mut().find_map(|c| {
            let variable = name
                .strip_prefix(c.name.value.as_str())?
                .strip_prefix('.')?;
            Some((variable.to_string(), c))
        });
        match target {
            Some((variable, component)) => set_value(
                &mut component.values,
                ValueDescription {
                    name: variable,
                    ..value
                },
            ),
            None => self.ignored.push(Located::new(name, value.at)),
        }
    }

    /// Moves the flattened system into `description`: the nets through system connectors,
    /// and the connectors' values onto the component connectors each net joins.
    fn finish(mut self, description: &mut SystemDescription) {
        let nets = system_connectors::nets(&self.links);
        for value in std::mem::take(&mut self.connector_values) {
            let Some(net) = nets
                .iter()
                .find(|n| n.description.via.contains(&value.name))
            else {
                self.ignored.push(Located::new(value.name, value.at));
                continue;
            };
            for (component, connector) in &net.components {
                if let Some(target) = self
                    .components
                    .iter_mut()
                    .find(|c| &c.name.value == component)
                {
                    let value = ValueDescription {
                        name: connector.clone(),
                        ..value.clone()
                    };
                    set_value(&mut target.values, value);
                }
            }
        }
        description.components = self.components;
        description.connections = self.connections;
        description.nets = nets.into_iter().map(|n| n.description).collect();
        description.ignored = self.ignored;
    }
}

/// What reading one SSD needs: the file and where its references are resolved.
struct Reader<'a> {
    xml: &'a XmlFile,
    system_path: &'a Path,
    /// The folder of the SSD, against which sources are resolved.
    folder: &'a Path,
}

impl Reader<'_> {
    /// Reads the `ssd:System` `system` into `flat`, its elements named with `prefix` (empty
    /// for the top-level system, whose Tandem settings go into `description`). Elements come
    /// first, then the connections between them, then the system's values, which replace the
    /// values its elements bind.
    fn system(
        &self,
        system: &Element,
        prefix: &str,
        flat: &mut Flat,
        description: &mut SystemDescription,
    ) -> Result<()> {
        let xml = self.xml;
        let mut subsystems = HashSet::new();
        let mut connections = Vec::new();
        let mut bindings: Option<&Element> = None;
        let mut annotations = Vec::new();
        for child in &system.children {
            match local_name(&child.name) {
                "Elements" => {
                    for element in &child.children {
                        match local_name(&element.name) {
                            "Component" => flat.components.push(self.component(element, prefix)?),
                            "System" => {
                                let name = xml.required(element, "name")?;
                                subsystems.insert(name);
                                self.system(
                                    element,
                                    &format!("{prefix}{name}."),
                                    flat,
                                    description,
                                )?;
                            }
                            _ => return Err(xml.unsupported(element, "this element")),
                        }
                    }
                }
                "Connectors" => {
                    for connector in children(child, "Connector") {
                        let name = xml.required(connector, "name")?;
                        flat.connectors.insert(format!("{prefix}{name}"));
                    }
                }
                "Connections" => connections.extend(children(child, "Connection")),
                "ParameterBindings" => {
                    if let Some(first) = bindings.replace(child) {
                        return Err(xml.error(
                            child,
                            format!(
                                "a second ssd:ParameterBindings (the first is at line {}); SSP \
                                 allows one per system: move its ssd:ParameterBinding elements \
                                 into the first",
                                first.line
                            ),
                        ));
                    }
                }
                "Annotations" => annotations.push(child),
                // Signal dictionaries are only used through references, which are rejected.
                "ElementGeometry" | "SystemGeometry" | "GraphicalElements"
                | "SignalDictionaries" => {}
                _ => return Err(xml.unsupported(child, "this element")),
            }
        }
        for connection in connections {
            self.connection(connection, prefix, &subsystems, flat)?;
        }
        if let Some(bindings) = bindings {
            for value in self.bindings(bindings)? {
                flat.bind(prefix, value);
            }
        }
        for child in annotations {
            if prefix.is_empty() {
                self.system_annotations(child, description)?;
            } else if let Some(settings) = self.tandem_settings(child)?.first() {
                return Err(xml.error(
                    settings,
                    "Tandem settings of a nested system (they belong to the top-level system)",
                ));
            }
        }
        Ok(())
    }

    /// One `ssd:Component` that references an FMU, named with `prefix`.
    fn component(&self, element: &Element, prefix: &str) -> Result<ComponentDescription> {
        let xml = self.xml;
        let name = format!("{prefix}{}", xml.required(element, "name")?);
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
            // SSP 2.0's value; SSP 1.0 has none for Scheduled Execution.
            "ScheduledExecution" => Some(InterfaceType::ScheduledExecution),
            other => {
                return Err(xml.error(
                    element,
                    format!(
                        "component {name}: implementation=\"{other}\" (expected any, \
                         CoSimulation, ModelExchange or ScheduledExecution)"
                    ),
                ))
            }
        };
        let mut component = ComponentDescription {
            name: Located::new(name.clone(), xml.at(element)),
            fmu: Located::new(source, xml.at(element)),
            interface: interface.map(|i| Located::new(i, xml.at(element))),
            step: None,
            tolerance: None,
            solver: None,
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
                        let [step, tolerance] = self.settings_besides(
                            settings,
                            "Component",
                            ["step", "tolerance"],
                            &["solver"],
                        )?;
                        let located = |v: f64| Located::new(v, xml.at(settings));
                        component.step = step.map(located).or(component.step);
                        component.tolerance = tolerance.map(located).or(component.tolerance);
                        if let Some(solver) = settings.attr("solver") {
                            let solver = self.enumeration(settings, "solver", solver)?;
                            component.solver = Some(Located::new(solver, xml.at(settings)));
                        }
                    }
                }
                "Connectors" | "ElementGeometry" => {}
                _ => return Err(xml.unsupported(child, "this element")),
            }
        }
        Ok(component)
    }

    /// One `ssd:Connection` in the system whose elements' names begin with `prefix`, between
    /// connectors of its components, of its nested systems (`subsystems`) or of itself (no
    /// or an empty element); its direction follows the connectors' causalities.
    fn connection(
        &self,
        element: &Element,
        prefix: &str,
        subsystems: &HashSet<&str>,
        flat: &mut Flat,
    ) -> Result<()> {
        let xml = self.xml;
        let end = |element_key: &str, connector_key: &str| -> Result<End> {
            let connector = xml.required(element, connector_key)?;
            let (system, name) = match element.attr(element_key).filter(|e| !e.is_empty()) {
                Some(owner) if !subsystems.contains(owner) => {
                    return Ok(End::Component(format!("{prefix}{owner}"), connector.into()))
                }
                Some(owner) => (
                    format!("system {prefix}{owner}"),
                    format!("{prefix}{owner}.{connector}"),
                ),
                None if prefix.is_empty() => ("the top-level system".into(), connector.to_string()),
                None => (
                    format!("system {}", prefix.trim_end_matches('.')),
                    format!("{prefix}{connector}"),
                ),
            };
            if !flat.connectors.contains(&name) {
                // The system's own connectors: same scope, no further dot.
                let scope = &name[..name.len() - connector.len()];
                let siblings = flat
                    .connectors
                    .iter()
                    .filter_map(|c| c.strip_prefix(scope))
                    .filter(|c| !c.contains('.'));
                return Err(xml.error(
                    element,
                    format!(
                        "{system} has no connector \"{connector}\" (no ssd:Connector of that \
                         name){}",
                        did_you_mean(connector, siblings)
                    ),
                ));
            }
            Ok(End::System(name))
        };
        let ends = [
            end("startElement", "startConnector")?,
            end("endElement", "endConnector")?,
        ];
        let shown = ends.each_ref().map(|end| match end {
            End::Component(component, connector) => format!("{component}.{connector}"),
            End::System(name) => name.clone(),
        });
        let (mut transform, mut mapping) = (None, None);
        for child in &element.children {
            match Transformation::read(xml, child)? {
                Some(Transformation::Linear { factor, offset }) => {
                    transform = Some(Transform { factor, offset })
                }
                Some(Transformation::Boolean(pairs)) => mapping = Some(ValueMap::booleans(&pairs)),
                Some(Transformation::Integer(pairs)) => mapping = Some(ValueMap::integers(&pairs)),
                None => match local_name(&child.name) {
                    "ConnectionGeometry" | "Annotations" => {}
                    _ => {
                        return Err(xml.unsupported(
                            child,
                            format!("connection {} -> {}: this element", shown[0], shown[1]),
                        ))
                    }
                },
            }
        }
        let convert_units = !xml.flag(element, "suppressUnitConversion", false)?;
        let at = xml.at(element);
        match ends {
            [End::Component(..), End::Component(..)] => {
                let [from, to] = shown;
                flat.connections.push(ConnectionDescription {
                    from,
                    to,
                    directed: false,
                    transform,
                    mapping,
                    convert_units,
                    at,
                });
            }
            _ if transform.is_some() || mapping.is_some() => {
                return Err(xml.unsupported(
                    element,
                    format!(
                        "connection {} -> {}: a transformation on a connection to a system \
                         connector",
                        shown[0], shown[1]
                    ),
                ))
            }
            ends => flat.links.push(Link { ends, at }),
        }
        Ok(())
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
            let mut mapping = Mapping::default();
            for child in &binding.children {
                match local_name(&child.name) {
                    "ParameterValues" => inline.push(child),
                    "ParameterMapping" => mapping = self.mapping(child)?,
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
            for parameter in parameters {
                for Parameter {
                    name,
                    text,
                    unit,
                    at,
                } in mapping.apply(parameter, prefix, self.system_path)?
                {
                    let kind = ValueKind::Any;
                    set_value(
                        &mut values,
                        ValueDescription {
                            name,
                            text,
                            kind,
                            unit,
                            at,
                        },
                    );
                }
            }
        }
        Ok(values)
    }

    /// The mapping of an `ssd:ParameterMapping`: inline (`ssm:ParameterMapping`) or in the
    /// `.ssm` file it names.
    fn mapping(&self, element: &Element) -> Result<Mapping> {
        let xml = self.xml;
        let kind = element.attr("type").unwrap_or(PARAMETER_MAPPING_TYPE);
        if kind != PARAMETER_MAPPING_TYPE {
            return Err(xml.unsupported(element, format!("a parameter mapping of type \"{kind}\"")));
        }
        if element.attr("sourceBase") == Some("component") {
            return Err(xml.unsupported(
                element,
                "sourceBase=\"component\" (a parameter mapping inside the FMU)",
            ));
        }
        let inline: Vec<&Element> = children(element, "ParameterMapping").collect();
        match (element.attr("source"), inline.as_slice()) {
            (Some(source), []) => {
                let source =
                    decode_uri(source).map_err(|m| xml.error(element, format!("source: {m}")))?;
                Mapping::read_file(self.system_path, self.folder, &source)
            }
            (None, [mapping]) => Mapping::read(xml, mapping),
            _ => Err(xml.error(
                element,
                "give the mapping either by source or inline in one ssm:ParameterMapping",
            )),
        }
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
        self.settings_besides(element, expected, keys, &[])
    }

    /// [`Self::settings`] of a setting that may also have the attributes `others` (which the
    /// caller reads).
    fn settings_besides<const N: usize>(
        &self,
        element: &Element,
        expected: &str,
        keys: [&str; N],
        others: &[&str],
    ) -> Result<[Option<f64>; N]> {
        if local_name(&element.name) != expected {
            return Err(self.xml.error(
                element,
                format!("unknown Tandem setting (expected {expected})"),
            ));
        }
        let known: Vec<&str> = keys.iter().chain(others).copied().collect();
        self.check_attributes(element, &known)?;
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
<ssd:Annotations><ssc:Annotation type="tandem"><Component tolerance="1e-9" solver="esdirk"/></ssc:Annotation></ssd:Annotations>
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
        assert_eq!(
            a.solver.as_ref().map(|s| s.value),
            Some(tandem_ode::solver::Method::Esdirk)
        );
    }

    #[test]
    fn nested_systems_flatten_with_connections_through_their_connectors() {
        let text = system(&format!(
            r#"<ssd:Connectors><ssd:Connector name="u" kind="input"/></ssd:Connectors>
<ssd:ParameterBindings>{}</ssd:ParameterBindings>
<ssd:Elements>
<ssd:Component name="a" source="a.fmu"/>
<ssd:System name="sub">
  <ssd:Connectors><ssd:Connector name="in" kind="input"/><ssd:Connector name="k" kind="parameter"/></ssd:Connectors>
  <ssd:ParameterBindings>{}</ssd:ParameterBindings>
  <ssd:Elements>
    <ssd:Component name="b" source="b.fmu"/>
    <ssd:System name="deep"><ssd:Elements><ssd:Component name="c" source="c.fmu"/></ssd:Elements></ssd:System>
  </ssd:Elements>
  <ssd:Connections>
    <ssd:Connection startElement="" startConnector="in" endElement="b" endConnector="u"/>
    <ssd:Connection startConnector="k" endElement="b" endConnector="k"/>
    <ssd:Connection startElement="b" startConnector="y" endElement="deep" endConnector="missing"/>
  </ssd:Connections>
</ssd:System>
</ssd:Elements>
<ssd:Connections>
<ssd:Connection startElement="a" startConnector="y" endElement="sub" endConnector="in"/>
<ssd:Connection startConnector="u" endElement="a" endConnector="u"/>
</ssd:Connections>"#,
            binding(
                "",
                &[
                    ("u", "7"),
                    ("sub.b.m", "2"),
                    ("sub.k", "4"),
                    ("nobody.x", "0")
                ]
            ),
            binding("", &[("b.m", "1"), ("deep.c.m", "3"), ("k", "5")]),
        ));
        let error = read_text(&text).unwrap_err().to_string();
        assert!(
            error.contains(
                "line 18, <ssd:Connection>: system sub.deep has no connector \"missing\""
            ),
            "{error}"
        );
        let text = text.replace(
            r#"endElement="deep" endConnector="missing""#,
            r#"endElement="deep.c" endConnector="u""#,
        );
        let misspelt = text.replace(
            r#"endElement="sub" endConnector="in""#,
            r#"endElement="sub" endConnector="inp""#,
        );
        let error = read_text(&misspelt).unwrap_err().to_string();
        assert!(
            error.contains("system sub has no connector \"inp\" (no ssd:Connector of that name); did you mean \"in\"?"),
            "{error}"
        );
        let description = read_text(&text).unwrap();
        let names: Vec<&str> = description
            .components
            .iter()
            .map(|c| c.name.value.as_str())
            .collect();
        assert_eq!(names, ["a", "sub.b", "sub.deep.c"]);
        // The outer system's values replace the inner one's; a value bound to a system
        // connector goes to the component connectors it joins.
        let [a, b, c] = &description.components[..] else {
            panic!()
        };
        assert_eq!(values(a), [("u", "7")]);
        assert_eq!(values(b), [("m", "2"), ("k", "4")]);
        assert_eq!(values(c), [("m", "3")]);
        let ignored: Vec<&str> = description
            .ignored
            .iter()
            .map(|i| i.value.as_str())
            .collect();
        assert_eq!(ignored, ["nobody.x"]);
        // A connection inside `sub` to a name that is no element of it stays a connection
        // between components; the checks report the unknown component.
        assert_eq!(description.connections.len(), 1);
        assert_eq!(description.connections[0].to, "sub.deep.c.u");
        let nets: Vec<(Vec<&str>, Vec<&str>)> = description
            .nets
            .iter()
            .map(|n| {
                (
                    n.ends.iter().map(String::as_str).collect(),
                    n.via.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            nets,
            [
                (vec!["sub.b.u", "a.y"], vec!["sub.in"]),
                (vec!["sub.b.k"], vec!["sub.k"]),
                (vec!["a.u"], vec!["u"]),
            ]
        );
    }

    #[test]
    fn parameter_mappings_rename_and_transform_inline_and_from_files() {
        let mapping = r#"<ssd:ParameterMapping><ssm:ParameterMapping xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping" version="1.0">
<ssm:MappingEntry source="mass_g" target="m"><ssc:LinearTransformation factor="0.001"/></ssm:MappingEntry>
<ssm:MappingEntry source="stiffness" target="k"/>
<ssm:MappingEntry source="stiffness" target="k2" suppressUnitConversion="true"/>
</ssm:ParameterMapping></ssd:ParameterMapping>"#;
        let bound = binding("", &[("mass_g", "1500"), ("stiffness", "10"), ("x", "1")])
            .replace(
                "</ssd:ParameterValues>",
                &format!("</ssd:ParameterValues>{mapping}"),
            )
            .replace(r#"value="10""#, r#"value="10" unit="N/m""#);
        let text = system(&format!(
            r#"<ssd:Elements><ssd:Component name="a" source="a.fmu"><ssd:ParameterBindings>{bound}</ssd:ParameterBindings></ssd:Component></ssd:Elements>"#
        ));
        let description = read_text(&text).unwrap();
        let a = &description.components[0];
        assert_eq!(
            values(a),
            [("m", "1.5"), ("k", "10"), ("k2", "10"), ("x", "1")]
        );
        let units: Vec<Option<&str>> = a
            .values
            .iter()
            .map(|v| v.unit.as_ref().map(|u| u.name.as_str()))
            .collect();
        assert_eq!(units, [None, Some("N/m"), None, None]);

        let dir = tempfile::tempdir().unwrap();
        let from_file = |factor: &str| {
            std::fs::write(
                dir.path().join("map.ssm"),
                format!(
                    r#"<ssm:ParameterMapping xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping" xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0">
<ssm:MappingEntry source="on" target="enabled"><ssc:BooleanMappingTransformation><ssc:MapEntry source="true" target="false"/></ssc:BooleanMappingTransformation></ssm:MappingEntry>
<ssm:MappingEntry source="x" target="y"><ssc:LinearTransformation factor="{factor}"/></ssm:MappingEntry>
</ssm:ParameterMapping>"#
                ),
            )
            .unwrap();
            let bound = binding("", &[("on", "true"), ("x", "1")]).replace(
                "</ssd:ParameterValues>",
                r#"</ssd:ParameterValues><ssd:ParameterMapping source="map.ssm"/>"#,
            );
            let text = system(&format!(
                r#"<ssd:Elements><ssd:Component name="a" source="a.fmu"><ssd:ParameterBindings>{bound}</ssd:ParameterBindings></ssd:Component></ssd:Elements>"#
            ));
            let path = dir.path().join("system.ssd");
            std::fs::write(&path, text).unwrap();
            read(&path, dir.path(), Path::new("system.ssd"), false)
        };
        let description = from_file("2").unwrap();
        assert_eq!(
            values(&description.components[0]),
            [("enabled", "false"), ("y", "2")]
        );
        let error = from_file("two").unwrap_err().to_string();
        assert!(
            error.contains(
                "map.ssm, line 3, <ssc:LinearTransformation>: factor=\"two\" is not a valid number"
            ),
            "{error}"
        );
    }

    #[test]
    fn flattened_names_that_would_make_variables_ambiguous_are_refused() {
        let text = system(
            r#"<ssd:Elements><ssd:Component name="a" source="a.fmu"/>
<ssd:System name="a"><ssd:Elements><ssd:Component name="b" source="b.fmu"/></ssd:Elements></ssd:System>
</ssd:Elements>"#,
        );
        let description = read_text(&text).unwrap();
        let error = crate::system::check_names(&description)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "line 5, <ssd:Component>: component name \"a.b\" begins with the component name \"a\""
            ),
            "{error}"
        );
        let text = text.replace(
            r#"<ssd:Component name="a" source"#,
            r#"<ssd:Component name="c" source"#,
        );
        crate::system::check_names(&read_text(&text).unwrap()).unwrap();
    }

    #[test]
    fn a_second_parameter_bindings_element_is_reported() {
        let text = system(&format!(
            "<ssd:ParameterBindings>{}</ssd:ParameterBindings>\n<ssd:ParameterBindings/>",
            binding("", &[("a.k", "1")])
        ));
        let error = read_text(&text).unwrap_err().to_string();
        assert!(
            error.contains("line 5, <ssd:ParameterBindings>: a second ssd:ParameterBindings (the first is at line 4)"),
            "{error}"
        );
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
