//! The parameters a gradient is taken with respect to: `component.variable` names resolved to
//! float parameters of the system's components (`component.A[2,1]` for an element of an FMI 3.0
//! array), and their values written into the system before a run.

use fmi_host::instance::Seed;
use fmi_host::model_description::Causality;
use tandem_cosim::start_values::check_settable_array;
use tandem_cosim::system::{resolve_element, Port, System};
use tandem_cosim::{Error, Result};

/// A float parameter of one component.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// `component.variable`, as given.
    pub name: String,
    /// The component and variable, and the element of an array.
    pub port: Port,
    /// The variable's value reference.
    pub value_reference: u32,
    /// The value the system file gives it, else the FMU's start value.
    pub value: f64,
    /// A typical magnitude: the variable's nominal, else its value (for finite-difference steps).
    pub scale: f64,
}

impl Parameter {
    /// Resolves `name` against `system`; `option` names the command-line option or file key
    /// the name came from, for messages.
    pub fn resolve(name: &str, system: &System, option: &str) -> Result<Parameter> {
        let invalid = |message: String| Error::InvalidValue {
            item: format!("{option} {name}"),
            message,
        };
        let port = resolve_element(name, &system.components).map_err(invalid)?;
        let component = &system.components[port.component];
        let variable = port.variable(&system.components);
        if variable.causality != Causality::Parameter {
            return Err(invalid(format!(
                "{} is a {} variable, not a parameter",
                variable.name, variable.causality
            )));
        }
        if !variable.ty.is_float() {
            return Err(invalid(format!(
                "{} is a {} parameter; only float parameters can be differentiated",
                variable.name, variable.ty
            )));
        }
        check_settable_array(variable).map_err(invalid)?;
        if !variable.is_scalar() && port.element.is_none() {
            return Err(invalid(format!(
                "{} is an array; name the element to differentiate by, as in {}[1]",
                variable.name, name
            )));
        }
        let element = port.element.unwrap_or(0);
        let given = component
            .start_values
            .iter()
            .find(|s| s.value_reference == variable.value_reference)
            .map(|s| &s.value);
        // A start value written once stands for every element.
        let value = given
            .or(variable.start.as_ref())
            .and_then(|v| v.f64_at(element).or_else(|| v.f64_at(0)))
            .ok_or_else(|| invalid(format!("{} has no start value", variable.name)))?;
        let scale = match variable.nominal {
            Some(nominal) if nominal != 0.0 => nominal.abs(),
            _ if value != 0.0 => value.abs(),
            _ => 1.0,
        };
        Ok(Parameter {
            name: name.trim().to_string(),
            port,
            value_reference: variable.value_reference,
            value,
            scale,
        })
    }

    /// The entry of the parameter in its FMU's derivative seeds.
    pub fn seed(&self) -> Seed {
        Seed {
            value_reference: self.value_reference,
            element: self.port.element,
        }
    }

    /// Makes `value` the parameter's value in `system` (set before initialization).
    pub fn write(&self, system: &mut System, value: f64) {
        system.set_start_value(self.port, value);
    }
}

/// Resolves every name, rejecting an empty list and repeated parameters.
pub fn resolve_all(names: &[String], system: &System, option: &str) -> Result<Vec<Parameter>> {
    if names.is_empty() {
        return Err(Error::InvalidValue {
            item: option.to_string(),
            message: "no parameters given (expected component.parameter, ...)".into(),
        });
    }
    let mut parameters: Vec<Parameter> = Vec::with_capacity(names.len());
    for name in names {
        let parameter = Parameter::resolve(name, system, option)?;
        if let Some(first) = parameters.iter().find(|p| p.port == parameter.port) {
            return Err(Error::InvalidValue {
                item: format!("{option} {name}"),
                message: format!("the parameter is already listed as {}", first.name),
            });
        }
        parameters.push(parameter);
    }
    Ok(parameters)
}

/// Writes `values` (one per parameter) into `system`.
pub fn write_all(system: &mut System, parameters: &[Parameter], values: &[f64]) {
    for (parameter, &value) in parameters.iter().zip(values) {
        parameter.write(system, value);
    }
}
