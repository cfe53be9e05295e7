//! The order in which the components' values at one instant can be determined: component `b`
//! depends on component `a` when a connection `a.y -> b.u` reaches an input on which one of
//! `b`'s connected outputs depends directly (the ModelStructure's direct feedthrough). The
//! components fall into strongly connected groups of that relation, listed so that every
//! group comes after the groups it depends on: an acyclic group (one component not depending
//! on itself) is settled by reading it once after its sources, a cyclic group is an
//! algebraic loop (or a cycle of components that the ModelStructure cannot tell from one)
//! and has to be iterated or solved. Initialization propagates the start values along it
//! (`schedule/initialization.rs`), so its cost grows with the number of components and
//! connections, not with their square.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::algebraic_loop::depends_directly;
use super::{Component, Connection};

/// A strongly connected group of components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its components, in stepping order.
    pub members: Vec<usize>,
    /// Whether its values depend on themselves at the same instant: more than one member, or
    /// one that depends on itself.
    pub cyclic: bool,
}

/// The groups of `components` under `connections`, each after the groups it depends on;
/// among groups free to come first, the one with the earliest component in the stepping
/// `order` comes first, so a system already in dependency order keeps its stepping order.
pub fn groups(components: &[Component], connections: &[Connection], order: &[usize]) -> Vec<Group> {
    let count = components.len();
    let successors = successors(components, connections);
    let component_groups = strongly_connected(&successors);
    let group_count = component_groups.iter().copied().max().map_or(0, |g| g + 1);
    let mut position = vec![usize::MAX; count];
    for (at, &component) in order.iter().enumerate() {
        position[component] = at;
    }
    let mut groups: Vec<Group> = (0..group_count)
        .map(|_| Group {
            members: Vec::new(),
            cyclic: false,
        })
        .collect();
    let mut by_position: Vec<usize> = (0..count).collect();
    by_position.sort_by_key(|&c| (position[c], c));
    for component in by_position {
        groups[component_groups[component]].members.push(component);
    }
    // Kahn's algorithm over the groups, the earliest first among those ready.
    let mut pending = vec![0usize; group_count];
    let mut group_successors: Vec<Vec<usize>> = vec![Vec::new(); group_count];
    for (from, targets) in successors.iter().enumerate() {
        for &to in targets {
            let (a, b) = (component_groups[from], component_groups[to]);
            if a == b {
                groups[a].cyclic = true;
            } else {
                group_successors[a].push(b);
                pending[b] += 1;
            }
        }
    }
    let first = |g: usize| {
        let component = groups[g].members[0];
        Reverse((position[component], component, g))
    };
    let mut ready: BinaryHeap<_> = (0..group_count)
        .filter(|&g| pending[g] == 0)
        .map(first)
        .collect();
    let mut sequence = Vec::with_capacity(group_count);
    while let Some(Reverse((_, _, g))) = ready.pop() {
        sequence.push(g);
        for &next in &group_successors[g] {
            pending[next] -= 1;
            if pending[next] == 0 {
                ready.push(first(next));
            }
        }
    }
    let mut slots: Vec<Option<Group>> = groups.into_iter().map(Some).collect();
    sequence
        .into_iter()
        .map(|g| slots[g].take().expect("each group listed once"))
        .collect()
}

/// Per component, the components depending on it (a component may be listed more than once).
fn successors(components: &[Component], connections: &[Connection]) -> Vec<Vec<usize>> {
    let mut outputs: Vec<Vec<usize>> = vec![Vec::new(); components.len()];
    for connection in connections {
        let list = &mut outputs[connection.from.component];
        if !list.contains(&connection.from.variable) {
            list.push(connection.from.variable);
        }
    }
    let mut successors = vec![Vec::new(); components.len()];
    for connection in connections {
        let (from, to) = (connection.from, connection.to);
        let md = components[to.component].fmu.model_description();
        let feeds_through = outputs[to.component]
            .iter()
            .any(|&output| depends_directly(md, output, to.variable));
        if feeds_through {
            successors[from.component].push(to.component);
        }
    }
    successors
}

/// Per node of the graph `successors`, the index of its strongly connected component
/// (Tarjan's algorithm, without recursion so that a chain of any length fits the stack).
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<usize> {
    const UNVISITED: usize = usize::MAX;
    let count = successors.len();
    let mut index = vec![UNVISITED; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut stack = Vec::new();
    let mut component = vec![UNVISITED; count];
    let (mut next_index, mut next_component) = (0, 0);
    // The depth-first path: each node with the position of its next successor to visit.
    let mut path: Vec<(usize, usize)> = Vec::new();
    for root in 0..count {
        if index[root] != UNVISITED {
            continue;
        }
        path.push((root, 0));
        while let Some(&mut (node, ref mut edge)) = path.last_mut() {
            if *edge == 0 {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = successors[node].get(*edge) {
                *edge += 1;
                if index[next] == UNVISITED {
                    path.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn a_chain_is_one_group_per_node_and_a_cycle_one_group() {
        let chain = strongly_connected(&[vec![1], vec![2], vec![]]);
        assert_eq!(chain.len(), 3);
        assert!(chain[0] != chain[1] && chain[1] != chain[2] && chain[0] != chain[2]);
        let cycle = strongly_connected(&[vec![1], vec![2], vec![0], vec![0]]);
        assert_eq!(cycle[0], cycle[1]);
        assert_eq!(cycle[1], cycle[2]);
        assert_ne!(cycle[3], cycle[0]);
    }

    #[test]
    fn a_long_chain_fits_the_stack() {
        let n = 200_000;
        let successors: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let groups = strongly_connected(&successors);
        let mut sorted = groups.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), n);
    }
}
