//! Working space of a step VJP (the adjoints passed from one segment of a communication step
//! to the one before it, the multipliers of each, and the adjoints of the outputs at its end),
//! which an FMU instance keeps so that a step VJP allocates nothing once it has run once.

use super::Cotangents;

/// Buffers for [`LinearizedStep::vjp_into`](super::LinearizedStep::vjp_into) and
/// [`CommunicationLinearization::vjp_into`](super::CommunicationLinearization::vjp_into).
#[derive(Default)]
pub struct VjpBuffers {
    /// The state adjoint at the end of the segment being reversed.
    pub current: Vec<f64>,
    /// The state adjoint at its start.
    pub next: Vec<f64>,
    /// The segment's multipliers.
    pub lambda: Vec<f64>,
    /// The seed on the state at the step's end, outputs' share included.
    pub seed: Vec<f64>,
    /// The adjoints the outputs at the step's end send back.
    pub direct: Cotangents,
}
