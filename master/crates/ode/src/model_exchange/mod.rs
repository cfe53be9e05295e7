//! Model Exchange FMUs under the master's integrator: [`MeStepper`] integrates an instance's
//! states with an adaptive solver of [`crate::solver`], stops at time events, locates state
//! events on the dense output, reports completed steps (step events) and runs the FMU's event
//! iteration. `tandem simulate` drives one stepper over the output grid; a co-simulation
//! participant drives one from communication point to communication point. [`HeldInputStep`]
//! wraps one as a Co-Simulation instance with step derivatives, for gradients.

mod equations;
mod held_step;
pub mod partials;
mod sparsity;
mod stepper;

pub use equations::NonFinite;
pub use held_step::HeldInputStep;
pub use sparsity::declared_sparsity;
pub use stepper::{Inputs, MeStepper, Reached, Statistics, StepOutcome, StepperSnapshot};
