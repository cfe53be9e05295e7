//! Gradients of a cost with respect to component parameters, through a whole co-simulation.
//!
//! The cost `J` (see [`cost`]) is a weighted least-squares distance of chosen outputs to
//! measurements, or the integral of one output, over the macro points. Its gradient comes
//! from one of two methods, chosen per parameter:
//!
//! 1. **The discrete adjoint of the co-simulation**, when every component's step has
//!    derivatives ([`StepDerivatives`]): a Co-Simulation FMU's from the adjoint extension, a
//!    Model Exchange FMU's from its partial derivatives through the master's integrator
//!    ([`tandem_ode::model_exchange::HeldInputStep`]). The forward run keeps the cost's outputs and,
//!    at checkpoints, the whole co-simulation's state (FMU states, the master's, the coupling
//!    stages'); the sweeps re-run one segment at a time from its checkpoint, recording per
//!    component the inputs of every step and how the schedule computed them from communicated
//!    samples (holds: ZOH/FOH/SOH extrapolation, Gauss-Seidel interpolation, multi-rate
//!    sub-steps) with its FMU states, so that memory stays bounded by the checkpoints and one
//!    segment. The reverse pass then runs backwards through exactly those operations, calling
//!    each component's step, output and initialization VJPs. The result is the exact derivative
//!    of what the forward run computes, up to rounding.
//! 2. **Finite differences of whole runs** (fourth-order central), for the parameters the
//!    adjoint cannot reach; each run starts from a fresh initialization, as parameters enter
//!    before initialization. The reason is reported with the result.
//!
//! [`Problem::forward_gradient`] computes the same derivative as the adjoint by forward
//! sensitivities (one step JVP per parameter and step), for comparison and as a check.
//!
//! Coupling stages, which the master applies at macro points between the values the components
//! communicate and the inputs they receive (the energy correction of power bonds, when the
//! system turns it on), take part in the forward run and in both sweeps through
//! [`CouplingStage`].
//!
//! On top of the gradient, [`identify`] fits parameters to measurements.

mod checkpoints;
pub mod cost;
mod energy_correction;
pub mod experiments;
mod forward;
pub mod identify;
pub mod measurements;
mod model_exchange;
pub mod parameters;
mod problem;
mod replay;
mod reverse;
mod samples;
pub mod section;
pub mod setup;
pub mod stage;
mod tape;
mod wiring;

pub use cost::{Cost, CostSource, CostSpec};
pub use measurements::Measurements;
pub use parameters::Parameter;
pub use problem::{Checkpointing, Differences, Evaluation, Instantiator, Method, Outputs, Problem};
pub use section::GradientSection;
pub use setup::{Overrides, SectionDefaults, Setup};
// The derivatives the instances hand out are what the gradient consumes: part of its API.
pub use fmi_host::instance::{DerivativeLayout, Seed, StepDerivatives};
pub use stage::{Communicated, CouplingStage, SampleAdjoints, SampleTangents, StageCheckpoint};
