//! The linearization of a whole communication step, from its [`Tape`]: the chain of its
//! internal steps and events, as the map from (method state at `t_k`, step inputs,
//! parameters) to the method state at `t_k+1`.

use crate::integrators::tape::{Segment, Tape};
use crate::integrators::DifferentiableScheme;
use crate::system::System;

use super::error::AdjointError;
use super::inputs::flatten_inputs;
use super::reset::{ResetLinearization, ResetPoint};
use super::step::{EventTimeSensitivity, StepLinearization, StepPoint};
use super::Cotangents;

/// The linearized communication step.
///
/// Tangents and adjoints of the discrete state have the residual's `nt` entries (the leading
/// entries of the method state); inputs are the flat coefficients of the step's input
/// polynomial (see [`flatten_inputs`]).
#[derive(Clone, Debug)]
pub struct CommunicationLinearization {
    state_len: usize,
    inputs_len: usize,
    params_len: usize,
    segments: Vec<Linearized>,
}

/// One linearized segment of the tape.
#[derive(Clone, Debug)]
enum Linearized {
    Step(Box<StepLinearization>),
    Reset(ResetLinearization),
}

impl CommunicationLinearization {
    /// Linearizes every segment of `tape`, recorded with `scheme`.
    pub fn new<S: System, M: DifferentiableScheme<S>>(
        sys: &S,
        scheme: &M,
        tape: &Tape,
        event_time: EventTimeSensitivity,
    ) -> Result<Self, AdjointError> {
        let (inputs, params) = (&tape.inputs, tape.params.as_slice());
        let segments = tape
            .segments
            .iter()
            .map(|segment| match segment {
                Segment::Step { t, h, w_prev, w_next, d, end } => {
                    let point = StepPoint { t: *t, h: *h, w_prev, w_next, inputs, params, d };
                    StepLinearization::new(sys, scheme, &point, end, event_time)
                        .map(|step| Linearized::Step(Box::new(step)))
                }
                Segment::Reset { t, event, w_prev, d_prev, .. } => {
                    let x = scheme.continuous_state(w_prev);
                    let point = ResetPoint { t: *t, event, x, d: d_prev, inputs, params };
                    ResetLinearization::new(sys, scheme, &point).map(Linearized::Reset)
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CommunicationLinearization {
            state_len: scheme.residual_len(),
            inputs_len: flatten_inputs(inputs).len(),
            params_len: params.len(),
            segments,
        })
    }

    /// Entries of the discrete-state tangent `nt`.
    pub fn state_len(&self) -> usize {
        self.state_len
    }

    /// Entries of the input tangent (flat polynomial coefficients).
    pub fn inputs_len(&self) -> usize {
        self.inputs_len
    }

    /// Entries of the parameter tangent.
    pub fn params_len(&self) -> usize {
        self.params_len
    }

    /// Forward mode: the tangent of the state at `t_k+1` from tangents of the state at `t_k`,
    /// of the input coefficients and of the parameters.
    pub fn jvp(&self, dw: &[f64], du: &[f64], dp: &[f64]) -> Vec<f64> {
        self.check(dw.len(), du.len(), dp.len());
        let (mut w, mut dt) = (dw.to_vec(), 0.0);
        for segment in &self.segments {
            match segment {
                Linearized::Step(step) => (w, dt) = step.propagate(&w, dt, du, dp),
                Linearized::Reset(reset) => w = reset.propagate(&w, dt, du, dp),
            }
        }
        w
    }

    /// Reverse mode: the adjoints of the state at `t_k`, of the input coefficients and of the
    /// parameters from the adjoint seed on the state at `t_k+1`.
    pub fn vjp(&self, seed: &[f64]) -> Cotangents {
        self.check(seed.len(), self.inputs_len, self.params_len);
        let mut acc = Cotangents::zeros(0, self.inputs_len, self.params_len);
        let (mut w_bar, mut t_bar) = (seed.to_vec(), 0.0);
        for segment in self.segments.iter().rev() {
            match segment {
                Linearized::Step(step) => (w_bar, t_bar) = step.pull_back(&w_bar, t_bar, &mut acc),
                Linearized::Reset(reset) => {
                    let (before, event_time_bar) = reset.pull_back(&w_bar, &mut acc);
                    w_bar = before;
                    t_bar += event_time_bar;
                }
            }
        }
        acc.state = w_bar;
        acc
    }

    fn check(&self, state: usize, inputs: usize, params: usize) {
        assert_eq!(
            (state, inputs, params),
            (self.state_len, self.inputs_len, self.params_len),
            "communication-step tangents: expected (state, inputs, parameters) lengths {:?}",
            (self.state_len, self.inputs_len, self.params_len)
        );
    }
}
