//! Power bonds: an effort (force, torque, pressure...) output by one component and the flow
//! (velocity, angular velocity, volume flow...) output by the other, whose product is the power
//! the interface carries. A bond is scalar or a vector (several efforts and as many flows,
//! paired in order). The inputs a bond feeds are found from the connections: each effort feeds
//! one input of the flow side (the input the correction is added to), each flow feeds inputs of
//! the effort side.
//!
//! Sign convention: the effort is the force the effort side exerts on the flow side, in the
//! direction in which the flow is measured, so that `effort . flow` is the power delivered to
//! the flow side.

use std::fmt;

use super::mu::{self, Feedthrough, MuRule, Side};
use super::settings::MuChoice;
use crate::coupling::{Extrapolation, ScheduleKind};
use crate::error::Result;
use crate::system::description::BondDescription;
use crate::system::{
    depends_directly, resolve_port, Component, Connection, Port, SystemDescription,
};
use fmi_host::model_description::{Causality, Variability};

/// A checked power bond.
#[derive(Debug, Clone, PartialEq)]
pub struct Bond {
    /// The effort outputs, all of one component.
    pub effort: Vec<Port>,
    /// The flow outputs, all of another component, paired with `effort`.
    pub flow: Vec<Port>,
    /// For each effort, the input of the flow side it feeds: where the correction is added.
    pub corrected: Vec<Port>,
    /// The factor mu of the correction, or why `mu = "auto"` gives none (which is an error only
    /// when correcting).
    pub mu: std::result::Result<f64, String>,
    /// How mu was found, when it was found automatically.
    pub rule: Option<MuRule>,
}

impl Bond {
    /// The effort side's component.
    pub fn effort_component(&self) -> usize {
        self.effort[0].component
    }

    /// The flow side's component.
    pub fn flow_component(&self) -> usize {
        self.flow[0].component
    }

    /// `a.f -> b.v` (or `[a.fx, a.fy] -> [b.vx, b.vy]`), for messages and summaries.
    pub fn describe<'a>(&'a self, components: &'a [Component]) -> impl fmt::Display + 'a {
        let list = |ports: &[Port]| {
            let names: Vec<String> = ports
                .iter()
                .map(|p| p.display(components).to_string())
                .collect();
            match names.as_slice() {
                [one] => one.clone(),
                many => format!("[{}]", many.join(", ")),
            }
        };
        format!("{} x {}", list(&self.effort), list(&self.flow))
    }
}

/// What the checks need to know about the system.
pub struct Context<'a> {
    /// The components.
    pub components: &'a [Component],
    /// The connections.
    pub connections: &'a [Connection],
    /// Jacobi or Gauss-Seidel.
    pub schedule: ScheduleKind,
    /// The input extrapolation.
    pub extrapolation: Extrapolation,
    /// How mu is chosen.
    pub mu: MuChoice,
    /// Whether the system file turns the correction on (then mu must be known).
    pub correction: bool,
}

/// Checks every bond of `description` against the components and connections; errors name the
/// bond (by its number, from 1) and the variable.
pub fn resolve(description: &SystemDescription, context: &Context<'_>) -> Result<Vec<Bond>> {
    description
        .bonds
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            resolve_one(entry, context).map_err(|message| {
                description.error(&entry.at, format!("bond {}: {message}", index + 1))
            })
        })
        .collect()
}

fn resolve_one(
    entry: &BondDescription,
    context: &Context<'_>,
) -> std::result::Result<Bond, String> {
    let components = context.components;
    let effort = ports("effort", &entry.effort, components)?;
    let flow = ports("flow", &entry.flow, components)?;
    if effort.len() != flow.len() {
        return Err(format!(
            "{} efforts but {} flows: a vector bond pairs each effort with one flow",
            effort.len(),
            flow.len()
        ));
    }
    let (a, b) = (effort[0].component, flow[0].component);
    if a == b {
        return Err(format!(
            "effort and flow both come from component {}: a bond joins two components",
            components[a].name
        ));
    }
    let corrected = effort
        .iter()
        .map(|&port| fed_input(port, b, context))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    for &port in &flow {
        if !context
            .connections
            .iter()
            .any(|c| c.from == port && c.to.component == a)
        {
            return Err(format!(
                "the flow {} feeds no input of the effort side {}: connect it, e.g. \"{} -> {}.<input>\"",
                port.display(components),
                components[a].name,
                port.display(components),
                components[a].name
            ));
        }
    }
    // The bond's power is effort times flow as each side sees them: a connection that scales
    // or shifts either would make the two sides disagree on it.
    let carried = effort.iter().chain(&flow);
    if let Some(c) = context.connections.iter().find(|c| {
        carried.clone().any(|&p| c.from == p)
            && (c.to.component == a || c.to.component == b)
            && !c.transform.is_identity()
    }) {
        return Err(format!(
            "{} receives {} (a unit conversion or transformation on the connection); a bond's \
             connections must pass values unchanged",
            c.to.display(components),
            c.transform
                .describe(&c.from.display(components).to_string())
        ));
    }
    let feedthrough = match (
        feeds_through(&effort, b, context),
        feeds_through(&flow, a, context),
    ) {
        (false, false) => Feedthrough::Neither,
        (true, false) => Feedthrough::Effort,
        (false, true) => Feedthrough::Flow,
        (true, true) => Feedthrough::Both,
    };
    let (mu, rule) = match context.mu {
        MuChoice::Given(mu) => (Ok(mu), None),
        MuChoice::Auto => match automatic_mu(feedthrough, a, b, context) {
            Ok(rule) => (Ok(rule.mu), Some(rule)),
            Err(why) if context.correction => return Err(why),
            Err(why) => (Err(why), None),
        },
    };
    Ok(Bond {
        effort,
        flow,
        corrected,
        mu,
        rule,
    })
}

/// The rule that gives mu for a bond from component `a` (effort) to `b` (flow), or why none does.
fn automatic_mu(
    feedthrough: Feedthrough,
    a: usize,
    b: usize,
    context: &Context<'_>,
) -> std::result::Result<MuRule, String> {
    if context.schedule != ScheduleKind::Jacobi {
        return Err(
            "mu = \"auto\" follows rules made for the jacobi schedule: give energy.mu".into(),
        );
    }
    let components = context.components;
    let side = |component: usize| Side {
        sub_steps: components[component].sub_steps,
        extrapolation: components[component]
            .extrapolation
            .unwrap_or(context.extrapolation),
    };
    mu::automatic(feedthrough, side(a), side(b)).map_err(|why| {
        format!(
            "mu = \"auto\" cannot be used for {} and {}: {why}; give energy.mu",
            components[a].name, components[b].name
        )
    })
}

/// The ports named by `names`, all outputs of one component.
fn ports(
    key: &str,
    names: &[String],
    components: &[Component],
) -> std::result::Result<Vec<Port>, String> {
    let ports = names
        .iter()
        .map(|name| resolve_port(name, components).map_err(|e| format!("{key}: {e}")))
        .collect::<std::result::Result<Vec<Port>, _>>()?;
    for (name, port) in names.iter().zip(&ports) {
        let variable = port.variable(components);
        if variable.causality != Causality::Output {
            return Err(format!(
                "{key}: {name} has causality {}; a bond's effort and flow are outputs",
                variable.causality
            ));
        }
        if !variable.ty.is_float() || !variable.is_scalar() {
            return Err(format!(
                "{key}: {name} is a {} {}; a bond carries scalar floats",
                variable.ty,
                if variable.is_scalar() {
                    "variable"
                } else {
                    "array"
                }
            ));
        }
        if port.component != ports[0].component {
            return Err(format!(
                "{key}: {name} is not an output of {} like {}: each side of a bond is one component",
                components[ports[0].component].name, names[0]
            ));
        }
    }
    Ok(ports)
}

/// The one input of component `receiver` that `effort` is connected to.
fn fed_input(
    effort: Port,
    receiver: usize,
    context: &Context<'_>,
) -> std::result::Result<Port, String> {
    let components = context.components;
    let inputs: Vec<Port> = context
        .connections
        .iter()
        .filter(|c| c.from == effort && c.to.component == receiver)
        .map(|c| c.to)
        .collect();
    match inputs.as_slice() {
        [input] => {
            let variable = input.variable(components);
            if variable.variability != Variability::Continuous {
                return Err(format!(
                    "the effort {} feeds {}, which is not a continuous input; the correction is \
                     added to a continuous float",
                    effort.display(components),
                    input.display(components)
                ));
            }
            Ok(*input)
        }
        [] => Err(format!(
            "the effort {} feeds no input of the flow side {}: connect it, e.g. \"{} -> {}.<input>\"",
            effort.display(components),
            components[receiver].name,
            effort.display(components),
            components[receiver].name
        )),
        many => Err(format!(
            "the effort {} feeds {} inputs of {} ({}); the correction needs exactly one",
            effort.display(components),
            many.len(),
            components[receiver].name,
            many.iter()
                .map(|p| p.display(components).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Whether any of `outputs` depends directly (ModelStructure) on an input of its component
/// that is connected from component `other`.
fn feeds_through(outputs: &[Port], other: usize, context: &Context<'_>) -> bool {
    let component = outputs[0].component;
    let md = context.components[component].fmu.model_description();
    context
        .connections
        .iter()
        .filter(|c| c.from.component == other && c.to.component == component)
        .any(|c| {
            outputs
                .iter()
                .any(|o| depends_directly(md, o.variable, c.to.variable))
        })
}
