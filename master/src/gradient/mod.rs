//! Gradients of a cost with respect to component parameters, through a whole co-simulation.
//!
//! The cost `J` (see [`cost`]) is a weighted least-squares distance of chosen outputs to
//! measurements, or the integral of one output, over the macro points. Its gradient comes
//! from one of two methods, chosen per parameter:
//!
//! 1. **The discrete adjoint of the co-simulation**, when every component's FMU provides the
//!    adjoint extension ([`StepDerivatives`]). The forward run records, per component, the
//!    inputs of every step and how the schedule computed them from communicated samples
//!    (holds: ZOH/FOH/SOH extrapolation, Gauss-Seidel interpolation, multi-rate sub-steps),
//!    plus FMU states at checkpoints; the reverse pass then runs backwards
//!    through exactly those operations, calling each component's step, output and
//!    initialization VJPs. The result is the exact derivative of what the forward run
//!    computes, up to rounding.
//! 2. **Finite differences of whole runs** (fourth-order central), for the parameters the
//!    adjoint cannot reach; each run starts from a fresh initialization, as parameters enter
//!    before initialization. The reason is reported with the result.
//!
//! [`Problem::forward_gradient`] computes the same derivative as the adjoint by forward
//! sensitivities (one step JVP per parameter and step), for comparison and as a check.
//!
//! Coupling stages between outputs and the values sent on (energy correction) take part in
//! the reverse pass through [`CouplingStage`].

mod checkpoints;
pub mod cost;
mod derivatives;
mod forward;
pub mod measurements;
pub mod parameters;
mod problem;
mod replay;
mod reverse;
mod samples;
pub mod section;
pub mod stage;
mod tape;
mod wiring;

pub use cost::{Cost, CostSpec};
pub use derivatives::{DerivativeLayout, StepDerivatives};
pub use measurements::Measurements;
pub use parameters::Parameter;
pub use problem::{Checkpointing, Differences, Evaluation, Instantiator, Method, Outputs, Problem};
pub use section::GradientSection;
pub use stage::{CouplingStage, SampleAdjoints};
