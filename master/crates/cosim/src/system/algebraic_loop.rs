//! Algebraic loops: cycles of connections closed through direct feedthrough, that is through
//! outputs that depend on inputs of the same component at the same instant (read from the
//! ModelStructure). Jacobi breaks such a cycle with its one-step delay; Gauss-Seidel solves it
//! at every communication point (`schedule/algebraic_loops.rs`).

use std::collections::HashMap;

use super::{Component, Connection, Port};
use fmi_host::model_description::{Causality, ModelDescription};

/// The first algebraic loop found, as the ports along it (an output first, each feeding the
/// next, the last feeding the first); `None` when there is none.
pub fn find(components: &[Component], connections: &[Connection]) -> Option<Vec<Port>> {
    let graph = Graph::new(components, connections);
    let mut state: HashMap<Port, Visit> = HashMap::new();
    let mut path = Vec::new();
    let mut cycle = connections
        .iter()
        .find_map(|c| graph.search(c.from, &mut state, &mut path))?;
    // Outputs and inputs alternate along a loop: start it at an output.
    if cycle[0].variable(components).causality == Causality::Input {
        cycle.rotate_left(1);
    }
    Some(cycle)
}

/// `a.y -> b.u -> b.z -> a.y`: the loop with its first port repeated at the end.
pub fn describe(cycle: &[Port], components: &[Component]) -> String {
    cycle
        .iter()
        .chain(cycle.first())
        .map(|port| port.display(components).to_string())
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[derive(Clone, Copy, PartialEq)]
enum Visit {
    OnPath,
    Done,
}

/// Ports and their successors: an output's successors are the inputs it is connected to, an
/// input's are the connected outputs of its component that depend on it directly.
struct Graph {
    successors: HashMap<Port, Vec<Port>>,
}

impl Graph {
    fn new(components: &[Component], connections: &[Connection]) -> Self {
        let mut successors: HashMap<Port, Vec<Port>> = HashMap::new();
        for connection in connections {
            successors
                .entry(connection.from)
                .or_default()
                .push(connection.to);
        }
        for input in connections.iter().map(|c| c.to) {
            let md = components[input.component].fmu.model_description();
            let mut outputs: Vec<Port> = connections
                .iter()
                .map(|c| c.from)
                .filter(|o| o.component == input.component)
                .filter(|o| depends_directly(md, o.variable, input.variable))
                .collect();
            outputs.sort();
            outputs.dedup();
            successors.entry(input).or_default().extend(outputs);
        }
        Graph { successors }
    }

    /// Depth-first search from `port`; returns the cycle when it meets a port on the path.
    fn search(
        &self,
        port: Port,
        state: &mut HashMap<Port, Visit>,
        path: &mut Vec<Port>,
    ) -> Option<Vec<Port>> {
        match state.get(&port) {
            Some(Visit::Done) => return None,
            Some(Visit::OnPath) => {
                let start = path.iter().position(|&p| p == port).unwrap_or(0);
                return Some(path[start..].to_vec());
            }
            None => {}
        }
        state.insert(port, Visit::OnPath);
        path.push(port);
        for &next in self.successors.get(&port).into_iter().flatten() {
            if let Some(cycle) = self.search(next, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(port, Visit::Done);
        None
    }
}

/// Whether output variable `output` depends directly on input variable `input`; an output
/// missing from the ModelStructure, or listed without dependencies, may depend on every input.
pub(crate) fn depends_directly(md: &ModelDescription, output: usize, input: usize) -> bool {
    let Some(unknown) = md
        .model_structure
        .outputs
        .iter()
        .find(|u| md.resolve(u.reference) == Some(output))
    else {
        return true;
    };
    match &unknown.dependencies {
        None => true,
        Some(dependencies) => dependencies.iter().any(|&d| md.resolve(d) == Some(input)),
    }
}
