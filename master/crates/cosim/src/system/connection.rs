//! Connections: resolved against the components and type-checked: an output feeds an input
//! of a compatible type, each input at most once.

use std::collections::HashMap;

use super::connection_units;
use super::description::{Location, SystemDescription};
use super::port::{self, Port};
use super::transform::{Transform, ValueMap};
use super::Component;
use crate::error::Result;
use fmi_host::model_description::{element_count, Causality, VariableType};

/// An output of one component feeding an input of another (or the same) component.
#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    /// The output.
    pub from: Port,
    /// The input.
    pub to: Port,
    /// What the input receives from the output's value: the transformation written on the
    /// connection or the conversion between the ends' units (the identity when neither).
    pub transform: Transform,
    /// The value map written on a connection of booleans or integers.
    pub mapping: Option<ValueMap>,
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
        let mut from = port::resolve_element(&connection.from, components).map_err(error)?;
        let mut to = port::resolve_element(&connection.to, components).map_err(error)?;
        let reversed = from.variable(components).causality == Causality::Input
            && to.variable(components).causality == Causality::Output;
        if !connection.directed && reversed {
            if connection.transform.is_some() || connection.mapping.is_some() {
                return Err(error(
                    "the transformation maps the start connector's value to the end's, but \
                     the start is the input: write the output as startElement/startConnector"
                        .to_string(),
                ));
            }
            std::mem::swap(&mut from, &mut to);
        }
        let ends = Ends {
            written: connection.transform,
            mapping: connection.mapping.clone(),
            convert_units: connection.convert_units,
        };
        connections
            .add_elementwise(from, to, ends, &connection.at)
            .map_err(error)?;
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
            .map(|end| port::resolve_element(end, components))
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
                    connections
                        .add_elementwise(from, to, Ends::default(), &net.at)
                        .map_err(error)?;
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
    /// Adds the connection `from` -> `to` written at `at`; between two whole arrays of one
    /// shape, one connection per element (so that the schedules carry scalars only).
    fn add_elementwise(
        &mut self,
        from: Port,
        to: Port,
        ends: Ends,
        at: &'a Location,
    ) -> std::result::Result<(), String> {
        let components = self.components;
        let whole_array = |port: Port| {
            (port.element.is_none() && !port.variable(components).is_scalar())
                .then(|| {
                    components[port.component]
                        .shapes()
                        .of(port.variable(components))
                })
                .transpose()
        };
        match (whole_array(from)?, whole_array(to)?) {
            (None, None) => self.add(from, to, ends, at),
            (Some(from_shape), Some(to_shape)) => {
                if from_shape != to_shape {
                    return Err(format!(
                        "shapes {from_shape:?} of {} and {to_shape:?} of {} differ",
                        from.display(components),
                        to.display(components)
                    ));
                }
                (0..element_count(&from_shape)).try_for_each(|element| {
                    let from = Port {
                        element: Some(element),
                        ..from
                    };
                    let to = Port {
                        element: Some(element),
                        ..to
                    };
                    self.add(from, to, ends.clone(), at)
                })
            }
            (Some(shape), None) => Err(single_to_array(from, &shape, to, components)),
            (None, Some(shape)) => Err(single_to_array(to, &shape, from, components)),
        }
    }

    /// Checks the connection `from` -> `to` written at `at` and adds it.
    fn add(
        &mut self,
        from: Port,
        to: Port,
        ends: Ends,
        at: &'a Location,
    ) -> std::result::Result<(), String> {
        let components = self.components;
        check(from, to, components)?;
        let transform = ends.transform(from, to, components)?;
        let mapping = ends.mapping(from, to, components)?;
        if let Some((first_from, first)) = self.sources.insert(to, (from, at)) {
            return Err(format!(
                "{} is already connected from {} ({first}); an input takes one connection",
                to.display(components),
                first_from.display(components),
            ));
        }
        self.list.push(Connection {
            from,
            to,
            transform,
            mapping,
        });
        Ok(())
    }
}

/// Why the whole array `array` of shape `shape` cannot be connected with the single value
/// `single`.
fn single_to_array(array: Port, shape: &[usize], single: Port, components: &[Component]) -> String {
    format!(
        "shapes differ: {} is an array of shape {shape:?} and {} a single value; connect \
         one element ({}[1]) or arrays of one shape",
        array.display(components),
        single.display(components),
        array.display(components)
    )
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
        if port.element.is_none() && !variable.is_scalar() {
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
    Ok(())
}

/// What a connection says about the values it carries, as written.
#[derive(Clone, Debug)]
struct Ends {
    /// The transformation written on it.
    written: Option<Transform>,
    /// The value map written on it.
    mapping: Option<ValueMap>,
    /// Whether values are converted between the ends' units.
    convert_units: bool,
}

impl Default for Ends {
    fn default() -> Self {
        Ends {
            written: None,
            mapping: None,
            convert_units: true,
        }
    }
}

impl Ends {
    /// The value map, checked against the ends' types: booleans for a boolean mapping,
    /// integers for an integer one.
    fn mapping(
        &self,
        from: Port,
        to: Port,
        components: &[Component],
    ) -> std::result::Result<Option<ValueMap>, String> {
        let Some(mapping) = &self.mapping else {
            return Ok(None);
        };
        let (kind, fits): (&str, fn(VariableType) -> bool) = if mapping.is_boolean() {
            ("boolean", |ty| ty == VariableType::Boolean)
        } else {
            ("integer", VariableType::is_integer)
        };
        for port in [from, to] {
            let ty = port.variable(components).ty;
            if !fits(ty) {
                return Err(format!(
                    "the {kind} mapping transformation applies to {kind} variables, and {} is \
                     {ty}",
                    port.display(components)
                ));
            }
        }
        Ok(Some(mapping.clone()))
    }

    /// The map from `from`'s value to `to`'s: the written transformation or the unit
    /// conversion. Both at once are refused: tools differ on which applies first.
    fn transform(
        &self,
        from: Port,
        to: Port,
        components: &[Component],
    ) -> std::result::Result<Transform, String> {
        let conversion = if self.convert_units {
            connection_units::conversion(from, to, components)?
        } else {
            Transform::IDENTITY
        };
        let Some(written) = self.written else {
            return Ok(conversion);
        };
        if !(written.factor.is_finite() && written.offset.is_finite()) {
            return Err(format!(
                "the transformation {} is not finite",
                written.describe(&from.display(components).to_string())
            ));
        }
        if from.variable(components).ty.is_float() && to.variable(components).ty.is_float() {
            if conversion.is_identity() {
                Ok(written)
            } else {
                Err(format!(
                    "the connection has a transformation and its ends are in different units \
                     (converting them needs {}); whether the conversion applies before or after \
                     the transformation is not defined: suppress the unit conversion \
                     (SSP suppressUnitConversion=\"true\") and write the whole map as the \
                     transformation",
                    conversion.describe(&from.display(components).to_string())
                ))
            }
        } else {
            Err(format!(
                "a linear transformation applies to floats, and {} -> {} are {} and {}",
                from.display(components),
                to.display(components),
                from.variable(components).ty,
                to.variable(components).ty
            ))
        }
    }
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
