//! Connections: resolved against the components and type-checked: an output feeds an input
//! of a compatible type, each input at most once.

use std::collections::HashMap;

use super::connection_units;
use super::description::{Location, SystemDescription};
use super::port::{self, Port};
use super::Component;
use crate::error::Result;
use crate::model_description::{Causality, VariableType};

/// An output of one component feeding an input of another (or the same) component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection {
    /// The output.
    pub from: Port,
    /// The input.
    pub to: Port,
}

/// Resolves and checks every connection of `system`, in the order written, then the nets
/// through system connectors.
pub(super) fn resolve(
    system: &SystemDescription,
    components: &[Component],
) -> Result<Vec<Connection>> {
    let mut connections = Connections {
        components,
        sources: HashMap::new(),
        list: Vec::with_capacity(system.connections.len()),
    };
    for connection in &system.connections {
        let error = |message: String| {
            system.error(
                &connection.at,
                format!(
                    "connection \"{} -> {}\": {message}",
                    connection.from, connection.to
                ),
            )
        };
        let mut from = port::resolve(&connection.from, components).map_err(error)?;
        let mut to = port::resolve(&connection.to, components).map_err(error)?;
        let reversed = from.variable(components).causality == Causality::Input
            && to.variable(components).causality == Causality::Output;
        if !connection.directed && reversed {
            std::mem::swap(&mut from, &mut to);
        }
        connections.add(from, to, &connection.at).map_err(error)?;
    }
    for net in &system.nets {
        let error = |message: String| {
            system.error(
                &net.at,
                format!(
                    "connection of {} through {}: {message}",
                    net.ends.join(", "),
                    net.via.join(", ")
                ),
            )
        };
        let ports = net
            .ends
            .iter()
            .map(|end| port::resolve(end, components))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(error)?;
        let outputs: Vec<Port> = ports
            .iter()
            .copied()
            .filter(|p| p.variable(components).causality == Causality::Output)
            .collect();
        match outputs[..] {
            // Driven from outside the top-level system: the ends keep their start values.
            [] => {}
            [from] => {
                for &to in ports.iter().filter(|&&p| p != from) {
                    connections.add(from, to, &net.at).map_err(error)?;
                }
            }
            _ => {
                let names: Vec<String> = outputs
                    .iter()
                    .map(|p| p.display(components).to_string())
                    .collect();
                return Err(error(format!(
                    "{} are all outputs; one output feeds the inputs of a connection",
                    names.join(" and ")
                )));
            }
        }
    }
    Ok(connections.list)
}

/// The connections checked so far and the output feeding each input.
struct Connections<'a> {
    components: &'a [Component],
    sources: HashMap<Port, (Port, &'a Location)>,
    list: Vec<Connection>,
}

impl<'a> Connections<'a> {
    /// Checks the connection `from` -> `to` written at `at` and adds it.
    fn add(&mut self, from: Port, to: Port, at: &'a Location) -> std::result::Result<(), String> {
        let components = self.components;
        check(from, to, components)?;
        if let Some((first_from, first)) = self.sources.insert(to, (from, at)) {
            return Err(format!(
                "{} is already connected from {} ({first}); an input takes one connection",
                to.display(components),
                first_from.display(components),
            ));
        }
        self.list.push(Connection { from, to });
        Ok(())
    }
}

/// Checks causalities, shapes and types of one connection.
fn check(from: Port, to: Port, components: &[Component]) -> std::result::Result<(), String> {
    let (source, target) = (from.variable(components), to.variable(components));
    if source.causality != Causality::Output {
        return Err(format!(
            "from must be an output, but {} has causality {}",
            from.display(components),
            source.causality
        ));
    }
    if target.causality != Causality::Input {
        return Err(format!(
            "to must be an input, but {} has causality {}",
            to.display(components),
            target.causality
        ));
    }
    for (port, variable) in [(from, source), (to, target)] {
        if !variable.is_scalar() {
            return Err(format!(
                "{} is an array; only scalar variables can be connected",
                port.display(components)
            ));
        }
        if signal_kind(variable.ty).is_none() {
            return Err(format!(
                "{} is a {} variable; only numbers and booleans can be connected",
                port.display(components),
                variable.ty
            ));
        }
    }
    if signal_kind(source.ty) != signal_kind(target.ty) {
        return Err(format!(
            "type mismatch: {} is {} but {} is {}",
            from.display(components),
            source.ty,
            to.display(components),
            target.ty
        ));
    }
    connection_units::check(from, to, components)
}

/// The classes of types that may be connected to each other: floats of either precision,
/// integers of any width (and enumerations), booleans.
fn signal_kind(ty: VariableType) -> Option<&'static str> {
    if ty.is_float() {
        Some("float")
    } else if ty.is_integer() {
        Some("integer")
    } else if ty == VariableType::Boolean {
        Some("boolean")
    } else {
        None
    }
}
