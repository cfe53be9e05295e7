//! Connections through the connectors of SSP systems, nested or top-level: each chain of
//! connections that passes through system connectors joins its component connectors into one
//! net, which the checks later wire from its one output (if any) to every other end.

use std::collections::HashMap;

use super::description::{Location, NetDescription};

/// One end of a connection once nested systems are flattened.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum End {
    /// A connector of a component: the component's full name and the connector.
    Component(String, String),
    /// A connector of a system: `system.connector` (top level: `connector`).
    System(String),
}

/// A connection with at least one end on a system connector.
#[derive(Debug, Clone)]
pub struct Link {
    /// Its two ends.
    pub ends: [End; 2],
    /// Where it was written.
    pub at: Location,
}

/// A net as read: its component ends as (component, connector), for values bound to its
/// system connectors, and its description.
pub struct Net {
    /// The component ends.
    pub components: Vec<(String, String)>,
    /// What the checks see.
    pub description: NetDescription,
}

/// The nets that `links` form, in the order their first link was written.
pub fn nets(links: &[Link]) -> Vec<Net> {
    let mut index: HashMap<&End, usize> = HashMap::new();
    let mut ends: Vec<&End> = Vec::new();
    let mut parent: Vec<usize> = Vec::new();
    let mut first_link: Vec<usize> = Vec::new();
    for (number, link) in links.iter().enumerate() {
        let [a, b] = link.ends.each_ref().map(|end| {
            *index.entry(end).or_insert_with(|| {
                ends.push(end);
                parent.push(parent.len());
                first_link.push(number);
                parent.len() - 1
            })
        });
        let (root_a, root_b) = (root(&mut parent, a), root(&mut parent, b));
        // The older root stays, so that a net is located at its first link.
        parent[root_a.max(root_b)] = root_a.min(root_b);
    }
    let mut nets: Vec<(usize, Net)> = Vec::new();
    for (i, end) in ends.iter().enumerate() {
        let r = root(&mut parent, i);
        let position = match nets.iter().position(|(root, _)| *root == r) {
            Some(position) => position,
            None => {
                let at = links[first_link[r]].at.clone();
                let description = NetDescription {
                    ends: Vec::new(),
                    via: Vec::new(),
                    at,
                };
                nets.push((
                    r,
                    Net {
                        components: Vec::new(),
                        description,
                    },
                ));
                nets.len() - 1
            }
        };
        let net = &mut nets[position].1;
        match end {
            End::Component(component, connector) => {
                net.description
                    .ends
                    .push(format!("{component}.{connector}"));
                net.components.push((component.clone(), connector.clone()));
            }
            End::System(name) => net.description.via.push(name.clone()),
        }
    }
    nets.into_iter().map(|(_, net)| net).collect()
}

/// The root of `i`'s set, compressing the path on the way.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(name: &str, connector: &str) -> End {
        End::Component(name.into(), connector.into())
    }

    fn link(a: End, b: End, line: usize) -> Link {
        Link {
            ends: [a, b],
            at: Location {
                line,
                ..Location::default()
            },
        }
    }

    #[test]
    fn chains_through_system_connectors_join_into_nets() {
        let links = [
            // An output of the outer system into an inner system, fanned out inside.
            link(component("a", "y"), End::System("sub.u".into()), 1),
            link(End::System("sub.u".into()), component("sub.b", "u"), 2),
            link(End::System("sub.u".into()), component("sub.c", "u"), 3),
            // A separate chain from an inner output to the top-level output.
            link(component("sub.c", "y"), End::System("sub.y".into()), 4),
            link(End::System("y".into()), End::System("sub.y".into()), 5),
        ];
        let nets = nets(&links);
        let described: Vec<_> = nets
            .iter()
            .map(|n| {
                (
                    n.description.ends.clone(),
                    n.description.via.clone(),
                    n.description.at.line,
                )
            })
            .collect();
        assert_eq!(
            described,
            [
                (
                    vec!["a.y".to_string(), "sub.b.u".into(), "sub.c.u".into()],
                    vec!["sub.u".to_string()],
                    1
                ),
                (vec!["sub.c.y".into()], vec!["sub.y".into(), "y".into()], 4),
            ]
        );
        assert_eq!(nets[0].components[1], ("sub.b".into(), "u".into()));
    }
}
