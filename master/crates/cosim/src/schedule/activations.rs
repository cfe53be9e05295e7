//! What the master's scheduler did for a Scheduled Execution component over a run: how many
//! model partitions it activated (as `tandem simulate` counts them for one FMU).

use std::fmt;

/// The activations of one Scheduled Execution component.
#[derive(Debug, Clone, PartialEq)]
pub struct Activations {
    /// The component.
    pub component: String,
    /// Model partitions activated.
    pub partitions: usize,
}

/// `component clocks: Scheduled Execution, 13 model partitions activated`.
impl fmt::Display for Activations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "component {}: Scheduled Execution, {} model partitions activated",
            self.component, self.partitions
        )
    }
}
