//! `component.variable` references: parsing and resolving against the components' model
//! descriptions.

use std::fmt;

use super::Component;
use crate::model_description::Variable;
use crate::suggest::did_you_mean;

/// A variable of one component: indices into the system's components and into that
/// component's model variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Port {
    /// Index of the component.
    pub component: usize,
    /// Index of the variable in the component's model description.
    pub variable: usize,
}

impl Port {
    /// The variable's declaration.
    pub fn variable<'a>(&self, components: &'a [Component]) -> &'a Variable {
        &components[self.component].fmu.model_description().variables[self.variable]
    }

    /// `component.variable`, as written in system files and result columns.
    pub fn display<'a>(&self, components: &'a [Component]) -> impl fmt::Display + 'a {
        let component = &components[self.component].name;
        let variable = &self.variable(components).name;
        format!("{component}.{variable}")
    }
}

/// Resolves `component.variable` (split at the first dot, as component names have none).
pub fn resolve(text: &str, components: &[Component]) -> Result<Port, String> {
    let (component_name, variable_name) = text
        .trim()
        .split_once('.')
        .ok_or_else(|| format!("\"{text}\" is not of the form component.variable"))?;
    let component = components
        .iter()
        .position(|c| c.name == component_name)
        .ok_or_else(|| {
            let names: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
            format!(
                "unknown component \"{component_name}\" in \"{text}\" (components: {}){}",
                names.join(", "),
                did_you_mean(component_name, names.iter().copied())
            )
        })?;
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
    Ok(Port {
        component,
        variable,
    })
}
