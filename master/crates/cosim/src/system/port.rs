//! `component.variable` references: parsing and resolving against the components' model
//! descriptions.

use std::fmt;

use super::Component;
use fmi_host::instance::Seed;
use fmi_host::model_description::{element_names, flat_index, parse_element, Variable};
use fmi_host::suggest::did_you_mean;

/// A variable of one component: indices into the system's components and into that
/// component's model variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Port {
    /// Index of the component.
    pub component: usize,
    /// Index of the variable in the component's model description.
    pub variable: usize,
    /// The row-major position of one element of an FMI 3.0 array variable; `None` for a
    /// scalar or a whole array.
    pub element: Option<usize>,
}

impl Port {
    /// The variable's declaration.
    pub fn variable<'a>(&self, components: &'a [Component]) -> &'a Variable {
        &components[self.component].fmu.model_description().variables[self.variable]
    }

    /// Its entry in its FMU's derivative seeds (the adjoint extension's manifest order).
    pub fn seed(&self, components: &[Component]) -> Seed {
        Seed {
            value_reference: self.variable(components).value_reference,
            element: self.element,
        }
    }

    /// A scalar or a whole variable.
    pub fn whole(component: usize, variable: usize) -> Self {
        Port {
            component,
            variable,
            element: None,
        }
    }

    /// `component.variable` (`component.variable[2]` for an element), as written in system
    /// files and result columns.
    pub fn display<'a>(&self, components: &'a [Component]) -> impl fmt::Display + 'a {
        let component = &components[self.component].name;
        let variable = self.variable(components);
        let name = match self.element {
            Some(element) => components[self.component]
                .shapes()
                .of(variable)
                .ok()
                .and_then(|shape| {
                    element_names(&variable.name, &shape)
                        .into_iter()
                        .nth(element)
                })
                .unwrap_or_else(|| format!("{}[#{}]", variable.name, element + 1)),
            None => variable.name.clone(),
        };
        format!("{component}.{name}")
    }
}

/// Resolves `component.variable` like [`resolve`], or one element of an array variable,
/// `component.variable[2]` (1-based indices, as result columns name them).
pub fn resolve_element(text: &str, components: &[Component]) -> Result<Port, String> {
    let whole_error = match resolve(text, components) {
        Ok(port) => return Ok(port),
        Err(error) => error,
    };
    let Some((array, indices)) = parse_element(text.trim()) else {
        return Err(whole_error);
    };
    let port = resolve(array, components)?;
    let variable = port.variable(components);
    if variable.is_scalar() {
        return Err(format!("{} is a scalar; it has no elements", array.trim()));
    }
    let shape = components[port.component].shapes().of(variable)?;
    let element = flat_index(&shape, &indices).ok_or_else(|| {
        format!(
            "{}: the indices do not fit the shape {shape:?} of {}",
            text.trim(),
            array.trim()
        )
    })?;
    Ok(Port {
        element: Some(element),
        ..port
    })
}

/// Resolves `component.variable`. Component names may hold dots (the flattened
/// `system.component` of nested SSP systems), but no name followed by a dot begins another
/// (see `check_names`), so exactly one component's name can begin `text`.
pub fn resolve(text: &str, components: &[Component]) -> Result<Port, String> {
    let text = text.trim();
    let split = components.iter().enumerate().find_map(|(index, c)| {
        let rest = text.strip_prefix(c.name.as_str())?.strip_prefix('.')?;
        Some((index, c.name.as_str(), rest))
    });
    let Some((component, component_name, variable_name)) = split else {
        if !text.contains('.') {
            return Err(format!("\"{text}\" is not of the form component.variable"));
        }
        let names: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
        let written = text.split_once('.').map_or(text, |(first, _)| first);
        return Err(format!(
            "unknown component \"{written}\" in \"{text}\" (components: {}){}",
            names.join(", "),
            did_you_mean(written, names.iter().copied())
        ));
    };
    let fmu = &components[component].fmu;
    let md = fmu.model_description();
    let target = md.variable(variable_name).ok_or_else(|| {
        format!(
            "component {component_name} ({}) has no variable \"{variable_name}\"{}",
            components[component].fmu_label,
            did_you_mean(variable_name, md.variable_names())
        )
    })?;
    // Aliases resolve to the variable that holds the value reference.
    let variable = md
        .variables
        .iter()
        .position(|v| std::ptr::eq(v, target))
        .expect("the model description lists its own variables");
    Ok(Port::whole(component, variable))
}
