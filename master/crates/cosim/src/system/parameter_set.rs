//! SSP parameter values (`ssv:ParameterSet`), inline in an `ssd:ParameterBinding` or in a
//! referenced `.ssv` file: each parameter's name, value text and unit.

use std::path::Path;

use super::description::{Location, ValueUnit};
use super::xml_file::{children, local_name, XmlFile};
use crate::error::Result;
use fmi_host::model_description::xml::Element;

/// One `ssv:Parameter`.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// The name, as written (bare, or `component.variable` at system level).
    pub name: String,
    /// The `value` attribute of its type element, parsed later against the variable's type.
    pub text: String,
    /// The `unit` attribute of an `ssv:Real`.
    pub unit: Option<ValueUnit>,
    /// Where it was written.
    pub at: Location,
}

/// The parameters of the `ssv:ParameterSet` element `set` of `file`, each unit with whether
/// the file declares it (in the set's `ssv:Units`, or the SSD's `ssd:Units` for a set written
/// inline).
pub fn parameters(file: &XmlFile, set: &Element) -> Result<Vec<Parameter>> {
    let declared = declared_units(file, set);
    let mut parameters = Vec::new();
    for list in children(set, "Parameters") {
        for parameter in children(list, "Parameter") {
            let name = file.required(parameter, "name")?;
            let Some(value) = parameter
                .children
                .iter()
                .find(|child| !matches!(local_name(&child.name), "Annotations" | "MetaData"))
            else {
                return Err(file.error(parameter, format!("parameter {name} has no value element")));
            };
            if matches!(local_name(&value.name), "Enumeration") {
                return Err(file.unsupported(
                    value,
                    format!("parameter {name}: a value given by enumeration item name"),
                ));
            }
            let unit = value.attr("unit").map(|name| ValueUnit {
                name: name.to_string(),
                undeclared_among: (!declared.iter().any(|d| d == name)).then(|| declared.clone()),
            });
            parameters.push(Parameter {
                name: name.to_string(),
                text: file.required(value, "value")?.to_string(),
                unit,
                at: file.at(value),
            });
        }
    }
    Ok(parameters)
}

/// The names of the units declared for `set` of `file`: in the set's `Units`, and in the root's
/// when the set is written inside another file (an SSD).
fn declared_units(file: &XmlFile, set: &Element) -> Vec<String> {
    let mut lists: Vec<&Element> = children(set, "Units").collect();
    if !std::ptr::eq(set, &file.root) {
        lists.extend(children(&file.root, "Units"));
    }
    lists
        .into_iter()
        .flat_map(|list| children(list, "Unit"))
        .filter_map(|unit| unit.attr("name").map(str::to_string))
        .collect()
}

/// The parameters of the `.ssv` file `written` (relative to `folder`, as written in the SSD).
pub fn read_file(system_path: &Path, folder: &Path, written: &str) -> Result<Vec<Parameter>> {
    let file = XmlFile::read(
        system_path,
        folder,
        Path::new(written),
        Some(written.to_string()),
    )?;
    let set = file.root_named("ParameterSet")?;
    parameters(&file, set)
}
