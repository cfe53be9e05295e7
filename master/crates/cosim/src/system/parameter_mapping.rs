//! SSP parameter mappings (`ssm:ParameterMapping`, inline in an `ssd:ParameterMapping` or in a
//! referenced `.ssm` file): entries that give a parameter of the source another name, several
//! names, or a transformed value. Parameters no entry names keep their names and values.

use std::path::Path;

use super::description::Location;
use super::parameter_set::Parameter;
use super::xml_file::{children, local_name, XmlFile};
use crate::error::Result;
use fmi_host::model_description::xml::{parse_bool, Element};

/// The parameter mapping of one parameter binding.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    entries: Vec<Entry>,
}

/// One `ssm:MappingEntry`.
#[derive(Debug, Clone)]
struct Entry {
    /// The parameter's name in the parameter source.
    source: String,
    /// The name of the variable it sets.
    target: String,
    /// How the value changes on the way.
    transformation: Option<Transformation>,
    /// `suppressUnitConversion`: the value's unit no longer applies to the target.
    suppress_units: bool,
    /// Where it was written.
    at: Location,
}

/// The transformations of SSP 1.0 that apply to values written as text.
#[derive(Debug, Clone, PartialEq)]
pub enum Transformation {
    /// `ssc:LinearTransformation`: `factor * value + offset`.
    Linear {
        /// The factor (default 1).
        factor: f64,
        /// The offset (default 0).
        offset: f64,
    },
    /// `ssc:BooleanMappingTransformation`: source value to target value, others unchanged.
    Boolean(Vec<(bool, bool)>),
    /// `ssc:IntegerMappingTransformation`: source value to target value, others unchanged.
    Integer(Vec<(i64, i64)>),
}

impl Transformation {
    /// The transformation written as the element `element` of `file`, if it is one.
    pub fn read(file: &XmlFile, element: &Element) -> Result<Option<Transformation>> {
        Ok(Some(match local_name(&element.name) {
            "LinearTransformation" => Transformation::Linear {
                factor: file.number(element, "factor")?.unwrap_or(1.0),
                offset: file.number(element, "offset")?.unwrap_or(0.0),
            },
            "BooleanMappingTransformation" => {
                Transformation::Boolean(map_entries(file, element, parse_bool)?)
            }
            "IntegerMappingTransformation" => {
                Transformation::Integer(map_entries(file, element, |t| t.parse().ok())?)
            }
            "EnumerationMappingTransformation" => {
                return Err(file.unsupported(
                    element,
                    "an enumeration mapping (values by enumeration item name)",
                ))
            }
            _ => return Ok(None),
        }))
    }

    /// `text` transformed; an integer stays an integer when the result is whole.
    pub fn apply(&self, text: &str) -> std::result::Result<String, String> {
        let text = text.trim();
        match self {
            Transformation::Linear { factor, offset } => {
                let value: f64 = text.parse().map_err(|_| {
                    format!("\"{text}\" is not a number, which the linear transformation needs")
                })?;
                let result = factor * value + offset;
                let whole = result.fract() == 0.0 && result.abs() < 2f64.powi(53);
                Ok(if text.parse::<i64>().is_ok() && whole {
                    format!("{}", result as i64)
                } else {
                    format!("{result:?}")
                })
            }
            Transformation::Boolean(pairs) => {
                let value =
                    parse_bool(text).ok_or_else(|| format!("\"{text}\" is not a boolean"))?;
                let mapped = pairs
                    .iter()
                    .find(|(s, _)| *s == value)
                    .map_or(value, |p| p.1);
                Ok(mapped.to_string())
            }
            Transformation::Integer(pairs) => {
                let value: i64 = text
                    .parse()
                    .map_err(|_| format!("\"{text}\" is not an integer"))?;
                let mapped = pairs
                    .iter()
                    .find(|(s, _)| *s == value)
                    .map_or(value, |p| p.1);
                Ok(mapped.to_string())
            }
        }
    }
}

/// The `ssc:MapEntry` pairs of the mapping transformation `element`, parsed by `parse`.
fn map_entries<T>(
    file: &XmlFile,
    element: &Element,
    parse: fn(&str) -> Option<T>,
) -> Result<Vec<(T, T)>> {
    children(element, "MapEntry")
        .map(|entry| {
            let value = |key| -> Result<T> {
                let text = file.required(entry, key)?;
                parse(text.trim())
                    .ok_or_else(|| file.error(entry, format!("{key}=\"{text}\" is not valid")))
            };
            Ok((value("source")?, value("target")?))
        })
        .collect()
}

impl Mapping {
    /// The mapping of the `ssm:ParameterMapping` element `mapping` of `file`.
    pub fn read(file: &XmlFile, mapping: &Element) -> Result<Mapping> {
        let mut entries = Vec::new();
        for entry in children(mapping, "MappingEntry") {
            let mut transformation = None;
            for child in &entry.children {
                match Transformation::read(file, child)? {
                    Some(t) => transformation = Some(t),
                    None if local_name(&child.name) == "Annotations" => {}
                    None => return Err(file.unsupported(child, "this element")),
                }
            }
            entries.push(Entry {
                source: file.required(entry, "source")?.to_string(),
                target: file.required(entry, "target")?.to_string(),
                transformation,
                suppress_units: file.flag(entry, "suppressUnitConversion", false)?,
                at: file.at(entry),
            });
        }
        Ok(Mapping { entries })
    }

    /// The mapping of the `.ssm` file `written` (relative to `folder`, as written in the SSD).
    pub fn read_file(system_path: &Path, folder: &Path, written: &str) -> Result<Mapping> {
        let file = XmlFile::read(
            system_path,
            folder,
            Path::new(written),
            Some(written.to_string()),
        )?;
        let mapping = file.root_named("ParameterMapping")?;
        Mapping::read(&file, mapping)
    }

    /// What `parameter` of the source sets: one parameter per entry naming it, or itself
    /// unchanged (with `prefix` before its name) when no entry does. Errors name the entry.
    pub fn apply(
        &self,
        parameter: Parameter,
        prefix: &str,
        system_path: &Path,
    ) -> Result<Vec<Parameter>> {
        let entries: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.source == parameter.name)
            .collect();
        if entries.is_empty() {
            return Ok(vec![Parameter {
                name: format!("{prefix}{}", parameter.name),
                ..parameter
            }]);
        }
        entries
            .into_iter()
            .map(|entry| {
                let text = match &entry.transformation {
                    Some(t) => t.apply(&parameter.text).map_err(|m| {
                        entry.at.error(
                            system_path,
                            format!("mapping {} -> {}: {m}", entry.source, entry.target),
                        )
                    })?,
                    None => parameter.text.clone(),
                };
                Ok(Parameter {
                    name: entry.target.clone(),
                    text,
                    unit: parameter.unit.clone().filter(|_| !entry.suppress_units),
                    at: parameter.at.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transformations_map_values_as_text() {
        let linear = Transformation::Linear {
            factor: 1e-3,
            offset: 0.0,
        };
        assert_eq!(linear.apply("1500").unwrap(), "1.5");
        assert_eq!(linear.apply("2000").unwrap(), "2");
        assert_eq!(linear.apply("2000.0").unwrap(), "2.0");
        assert!(linear.apply("heavy").unwrap_err().contains("not a number"));
        let celsius = Transformation::Linear {
            factor: 1.0,
            offset: 273.15,
        };
        assert_eq!(
            celsius.apply("20.0").unwrap(),
            format!("{:?}", 20.0 + 273.15)
        );
        let negate = Transformation::Boolean(vec![(true, false), (false, true)]);
        assert_eq!(negate.apply("1").unwrap(), "false");
        assert_eq!(negate.apply("false").unwrap(), "true");
        let gears = Transformation::Integer(vec![(1, 10)]);
        assert_eq!(gears.apply("1").unwrap(), "10");
        assert_eq!(gears.apply("2").unwrap(), "2");
    }
}
