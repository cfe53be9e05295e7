//! Discrete adjoints and forward sensitivities of the co-simulation integrators, built from
//! their step residuals `F(w_next, w_prev, u, p) = 0` by dual numbers (no hand-written
//! Jacobians).
//!
//! | Item | What it linearizes |
//! |---|---|
//! | [`StepLinearization`] | one internal step; [`jvp`](StepLinearization::jvp) / [`vjp`](StepLinearization::vjp) |
//! | [`ResetLinearization`] | an event: reset map plus the method's restart |
//! | [`CommunicationLinearization`] | a recorded communication step ([`Tape`](crate::integrators::tape::Tape)): the step JVP/VJP the adjoint extension exports |
//! | [`InitialLinearization`] | the consistent start `w0(x0, u, p)` (the initial-state term) |
//! | [`OutputLinearization`] | the outputs at a communication point |
//! | [`DiscreteAdjoint`] | an integrator at its current state: [`LinearizedStep`] (step and outputs at its end), [`LinearizedStart`] (start and outputs), [`LinearizedOutputs`]; what an FMU instance's adjoint extension calls |
//!
//! Whole trajectories (tests, checks): [`record_trajectory`], [`discrete_adjoint_gradient`],
//! [`parameter_sensitivities`], and [`replay_trajectory`], which re-runs the recorded schedule
//! with other parameters or inputs: the discrete map the adjoint differentiates, for finite
//! difference checks ([`check`]).
//!
//! Conventions: the discrete state's tangent has the residual's `nt` unknowns (the leading
//! entries of the method state: HHT `[q, v, a, lambda]`, symplectic Euler `[q, v]`, ESDIRK
//! `[x, k1..k6]`); inputs are the flat coefficients of the step's input polynomial
//! ([`flatten_inputs`]); parameters are all real parameters of the model. Accepted step sizes
//! are held fixed; event-located step lengths and the events' times follow the state.

mod blocks;
pub mod check;
mod communication;
mod discrete_adjoint;
mod dual_arguments;
mod error;
mod initial;
mod inputs;
mod matrix;
mod outputs;
mod replay;
mod reset;
mod step;
mod trajectory;
mod vjp_buffers;

pub use communication::CommunicationLinearization;
pub use discrete_adjoint::{
    DiscreteAdjoint, EndOutputs, LinearizedOutputs, LinearizedStart, LinearizedStep, StepScratch,
};
pub use error::AdjointError;
pub use initial::InitialLinearization;
pub use inputs::{flatten_inputs, inputs_like};
pub use matrix::Matrix;
pub use outputs::OutputLinearization;
pub use replay::{replay, replay_trajectory};
pub use reset::{ResetLinearization, ResetPoint};
pub use step::{EventTimeSensitivity, StepLinearization, StepPoint};
pub use trajectory::{
    discrete_adjoint_gradient, parameter_sensitivities, record_trajectory, Cost, Gradient,
    ScheduledStep, Trajectory,
};
pub use vjp_buffers::VjpBuffers;

/// Adjoints of a step's (or trajectory's) arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cotangents {
    /// Of the discrete state at the start (`nt` entries).
    pub state: Vec<f64>,
    /// Of the flat input coefficients.
    pub inputs: Vec<f64>,
    /// Of the parameters.
    pub params: Vec<f64>,
}

impl Cotangents {
    /// All zero.
    pub fn zeros(state: usize, inputs: usize, params: usize) -> Self {
        Cotangents {
            state: vec![0.0; state],
            inputs: vec![0.0; inputs],
            params: vec![0.0; params],
        }
    }

    /// Makes these all zero with the given lengths, keeping the allocations.
    pub fn reset(&mut self, state: usize, inputs: usize, params: usize) {
        for (values, len) in [
            (&mut self.state, state),
            (&mut self.inputs, inputs),
            (&mut self.params, params),
        ] {
            values.clear();
            values.resize(len, 0.0);
        }
    }
}
