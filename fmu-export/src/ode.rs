//! First-order models: `x' = f(t, x, u, p)`, `y = g(t, x, u, p)`, with state events, reset
//! maps, time events and discrete modes.

use crate::declaration::Declaration;
use crate::scalar::Scalar;

/// The arguments of a model function at one point.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a, T> {
    /// Time.
    pub t: T,
    /// Continuous states.
    pub x: &'a [T],
    /// Continuous inputs.
    pub u: &'a [T],
    /// Real parameters.
    pub p: &'a [T],
    /// Discrete variables (modes, memory, integer/boolean parameters): constant between events.
    pub d: &'a [f64],
}

/// How an event indicator crossed zero during the last step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    /// No sign change.
    None,
    /// From positive to non-positive.
    Falling,
    /// From negative to non-negative.
    Rising,
}

/// Why the reset map is called.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// One or more event indicators crossed zero; one entry per indicator.
    State(&'a [Crossing]),
    /// The time event announced by [`OdeModel::next_time_event`] was reached.
    Time,
}

/// A first-order model, written once and generic over the scalar type.
pub trait OdeModel: Default + Send + Sync + 'static {
    /// The variables, solver and default experiment of the model.
    fn declaration(&self) -> Declaration;

    /// Writes the state derivatives `dx = f(t, x, u, p; d)`.
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]);

    /// Writes the continuous outputs `y = g(t, x, u, p; d)`.
    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]);

    /// Writes the event indicators `z(t, x, u, p; d)`; an event occurs when one changes sign.
    fn event_indicators<T: Scalar>(&self, _a: &Args<T>, _z: &mut [T]) {}

    /// The reset map applied at an event: `x_new` and `d_new` come in holding the values
    /// before the event and leave holding the values after it.
    fn reset<T: Scalar>(&self, _a: &Args<T>, _event: Event, _x_new: &mut [T], _d_new: &mut [f64]) {}

    /// The next time event strictly after `t`, if any.
    fn next_time_event(&self, _t: f64, _p: &[f64], _d: &[f64]) -> Option<f64> {
        None
    }

    /// Writes the String outputs (declared with [`crate::Declaration::string_output`], in that order)
    /// from the current point and the String parameters `s`. Called only when a host reads
    /// a String output, never in the integration loop. The default writes nothing (for models
    /// without String outputs).
    fn string_outputs(&self, _a: &Args<f64>, _s: &[String], _out: &mut [String]) {}
}
