//! Adapter from a modeller's [`OdeModel`] to the first-order [`System`].

use crate::declaration::Declaration;
use crate::integrators::Sdirk;
use crate::ode::{Args, Event, OdeModel};
use crate::scalar::Scalar;
use crate::system::System;

/// A first-order model seen as a [`System`]; integrated in co-simulation by SDIRK.
#[derive(Debug)]
pub struct OdeSystem<M> {
    model: M,
    declaration: Declaration,
}

impl<M: OdeModel> Default for OdeSystem<M> {
    fn default() -> Self {
        let model = M::default();
        let declaration = model.declaration();
        OdeSystem { model, declaration }
    }
}

impl<M: OdeModel> OdeSystem<M> {
    /// The wrapped model.
    pub fn model(&self) -> &M {
        &self.model
    }
}

impl<M: OdeModel> System for OdeSystem<M> {
    type Integrator = Sdirk;

    fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        self.model.derivatives(a, dx)
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        self.model.outputs(a, y)
    }

    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        self.model.event_indicators(a, z)
    }

    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x_new: &mut [T], d_new: &mut [f64]) {
        self.model.reset(a, event, x_new, d_new)
    }

    fn next_time_event(&self, t: f64, p: &[f64], d: &[f64]) -> Option<f64> {
        self.model.next_time_event(t, p, d)
    }

    fn integrator(&self) -> Sdirk {
        Sdirk::new(&self.declaration)
    }

    fn string_outputs(&self, a: &Args<f64>, s: &[String], out: &mut [String]) {
        self.model.string_outputs(a, s, out)
    }
}
