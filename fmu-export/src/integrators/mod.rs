//! Co-simulation integrators embedded in `doStep`, each written in residual form
//! `F(w_next, w_prev, u, p) = 0` so that discrete adjoints can be built from the same residual.
//!
//! | Method | For | Discrete state `w` | Residual |
//! |---|---|---|---|
//! | [`Hht`] | constrained mechanics (index 3) | `[q, v, a, lambda]` (`3n + m`) | [`Hht::residual`] |
//! | [`SymplecticEuler`] | mechanics (index 1) | `[q, v]` (`2n`) | [`SymplecticEuler::residual`] |
//! | [`SdirkScheme`] (ESDIRK, order 4) | stiff first-order systems | `[x, k1..k6, h_next, e_prev]` (`7N + 2`) | [`SdirkScheme::residual`] |
//!
//! Each residual is generic over [`Scalar`](crate::Scalar) in `w_next`, `w_prev`, the input
//! polynomial and the parameters, so dual numbers give `dF/dw_next`, `dF/dw_prev`, `dF/du` and
//! `dF/dp` exactly. Inputs enter through the step's [`StepInputs`](crate::StepInputs) polynomial,
//! evaluated at the times each residual needs. [`DifferentiableScheme`] is the same residual
//! with the step start `t_prev` and length `h` generic too (a step that ends at a located event
//! has a state-dependent length), together with the generic consistent start and outputs that
//! the `f64` methods run; the [`adjoint`](crate::adjoint) module linearizes steps with it.
//! [`SchemeIntegrator::do_step_recorded`] records a communication step's accepted internal steps
//! and resets on a [`tape::Tape`].
//!
//! A method writes only what is its own: its residual, its predictor and its consistent start
//! ([`DifferentiableScheme`]) and how it takes a step ([`Scheme`]); what a step reads besides
//! its states travels as one [`StepContext`]. The implicit equations (HHT's whole step, an
//! ESDIRK stage) are solved by the one [`Newton`] loop, which keeps its factored iteration
//! matrix while the iteration contracts fast.
//!
//! The integrators [`Sdirk`] and [`MechanicalIntegrator`] are a [`Scheme`] together with its
//! state, driven over a communication step by [`SchemeIntegrator`]: fixed-step methods split
//! the step into `ceil(H / max_step - 1e-9)` equal internal steps ([`fixed_step`]), SDIRK
//! controls its step size; state events are located inside a step and time events are hit
//! exactly, then the model's reset map is applied and the method restarted. The state vector
//! ([`Integrator::state`](crate::Integrator::state)) is `[w, s]`, where `s` holds one
//! reference sign per event indicator.

mod differentiable;
mod driver;
pub mod events;
mod finite;
mod hht;
mod inputs;
mod mechanical;
mod newton;
mod scheme;
mod sdirk;
mod symplectic_euler;
pub mod tape;

pub use differentiable::DifferentiableScheme;
pub use driver::SchemeIntegrator;
pub use hht::Hht;
pub use inputs::lift_inputs;
pub use mechanical::{MechanicalIntegrator, MechanicalMethod};
pub use newton::{Acceptance, IterationMatrix, Newton, NewtonProblem, Refresh};
pub use scheme::{fixed_step, Scheme, StepContext};
pub use sdirk::{Sdirk, SdirkScheme, GAMMA as SDIRK_GAMMA};
pub use symplectic_euler::SymplecticEuler;
