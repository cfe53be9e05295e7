//! SSP parameter values (`ssv:ParameterSet`), inline in an `ssd:ParameterBinding` or in a
//! referenced `.ssv` file: each parameter's name, value text and unit.

use std::path::Path;

use super::description::Location;
use super::xml_file::{children, local_name, XmlFile};
use crate::error::Result;
use crate::model_description::xml::Element;

/// One `ssv:Parameter`.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// The name, as written (bare, or `component.variable` at system level).
    pub name: String,
    /// The `value` attribute of its type element, parsed later against the variable's type.
    pub text: String,
    /// The `unit` attribute of an `ssv:Real`.
    pub unit: Option<String>,
    /// Where it was written.
    pub at: Location,
}

/// The parameters of the `ssv:ParameterSet` element `set` of `file`.
pub fn parameters(file: &XmlFile, set: &Element) -> Result<Vec<Parameter>> {
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
            parameters.push(Parameter {
                name: name.to_string(),
                text: file.required(value, "value")?.to_string(),
                unit: value.attr("unit").map(str::to_string),
                at: file.at(value),
            });
        }
    }
    Ok(parameters)
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
