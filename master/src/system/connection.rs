//! Connections: parsed from both forms (`[[connection]]` tables and `"a.y -> b.u"` strings)
//! and type-checked: an output feeds an input of a compatible type, each input at most once.

use std::collections::HashMap;
use std::ops::Range;

use super::file::SystemFile;
use super::port::{self, Port};
use super::source::SourceText;
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

/// A connection as written, with the span messages point at.
struct Written<'a> {
    from: &'a str,
    to: &'a str,
    span: Range<usize>,
}

/// Resolves and checks every connection of the file, tables first, then the short form.
pub(super) fn resolve(
    file: &SystemFile,
    components: &[Component],
    source: &SourceText,
) -> Result<Vec<Connection>> {
    let mut written: Vec<Written<'_>> = file
        .connection_tables
        .iter()
        .map(|c| Written {
            from: c.from.get_ref(),
            to: c.to.get_ref(),
            span: c.from.span(),
        })
        .collect();
    for short in &file.connections {
        let (from, to) = short.get_ref().split_once("->").ok_or_else(|| {
            source.error(
                short.span(),
                format!(
                    "connection \"{}\": expected \"component.output -> component.input\"",
                    short.get_ref()
                ),
            )
        })?;
        written.push(Written {
            from: from.trim(),
            to: to.trim(),
            span: short.span(),
        });
    }
    let mut sources: HashMap<Port, &Written<'_>> = HashMap::new();
    let mut connections = Vec::with_capacity(written.len());
    for connection in &written {
        let error = |message: String| {
            source.error(
                connection.span.clone(),
                format!(
                    "connection \"{} -> {}\": {message}",
                    connection.from, connection.to
                ),
            )
        };
        let from = port::resolve(connection.from, components).map_err(error)?;
        let to = port::resolve(connection.to, components).map_err(error)?;
        check(from, to, components).map_err(error)?;
        if let Some(first) = sources.insert(to, connection) {
            let (line, _) = source.position(first.span.start);
            return Err(error(format!(
                "{} is already connected from {} (line {line}); an input takes one connection",
                to.display(components),
                first.from
            )));
        }
        connections.push(Connection { from, to });
    }
    Ok(connections)
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
    Ok(())
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
