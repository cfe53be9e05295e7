//! The linearization of a whole communication step, from its [`Tape`]: the chain of its
//! internal steps and events, as the map from (method state at `t_k`, step inputs,
//! parameters) to the method state at `t_k+1`.

use crate::integrators::tape::{Segment, Tape};
use crate::integrators::DifferentiableScheme;
use crate::system::System;

use super::error::AdjointError;
use super::inputs::flat_len;
use super::reset::{ResetLinearization, ResetPoint};
use super::step::{EventTimeSensitivity, StepLinearization, StepPoint};
use super::vjp_buffers::VjpBuffers;
use super::Cotangents;

/// The linearized communication step.
///
/// Tangents and adjoints of the discrete state have the residual's `nt` entries (the leading
/// entries of the method state); inputs are the flat coefficients of the step's input
/// polynomial (see [`flatten_inputs`](super::flatten_inputs)).
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
        let mut linearization = CommunicationLinearization {
            state_len: 0,
            inputs_len: 0,
            params_len: 0,
            segments: Vec::new(),
        };
        linearization.relinearize(sys, scheme, tape, event_time)?;
        Ok(linearization)
    }

    /// Makes this the linearization of `tape` (as [`new`](Self::new) does), reusing the
    /// allocations of its segments where the tape's have the same kind. After an error it holds
    /// no linearization until the next call.
    pub fn relinearize<S: System, M: DifferentiableScheme<S>>(
        &mut self,
        sys: &S,
        scheme: &M,
        tape: &Tape,
        event_time: EventTimeSensitivity,
    ) -> Result<(), AdjointError> {
        let (inputs, params) = (&tape.inputs, tape.params.as_slice());
        self.segments.truncate(tape.segments.len());
        for (i, segment) in tape.segments.iter().enumerate() {
            let linearized = match segment {
                Segment::Step {
                    t,
                    h,
                    w_prev,
                    w_next,
                    d,
                    end,
                } => {
                    let point = StepPoint {
                        t: *t,
                        h: *h,
                        w_prev,
                        w_next,
                        inputs,
                        params,
                        d,
                    };
                    if let Some(Linearized::Step(step)) = self.segments.get_mut(i) {
                        step.relinearize(sys, scheme, &point, end, event_time)?;
                        continue;
                    }
                    let step = StepLinearization::new(sys, scheme, &point, end, event_time)?;
                    Linearized::Step(Box::new(step))
                }
                Segment::Reset {
                    t,
                    event,
                    w_prev,
                    d_prev,
                    ..
                } => {
                    let x = scheme.continuous_state(w_prev);
                    let point = ResetPoint {
                        t: *t,
                        event,
                        x,
                        d: d_prev,
                        inputs,
                        params,
                    };
                    Linearized::Reset(ResetLinearization::new(sys, scheme, &point)?)
                }
            };
            if i < self.segments.len() {
                self.segments[i] = linearized;
            } else {
                self.segments.push(linearized);
            }
        }
        self.state_len = scheme.residual_len();
        self.inputs_len = flat_len(inputs);
        self.params_len = params.len();
        Ok(())
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
        let mut acc = Cotangents::default();
        self.vjp_into(seed, &mut acc, &mut VjpBuffers::default());
        acc
    }

    /// [`vjp`](Self::vjp) into `acc`, with `buffers` as working space (both keep their
    /// allocations).
    pub fn vjp_into(&self, seed: &[f64], acc: &mut Cotangents, buffers: &mut VjpBuffers) {
        self.check(seed.len(), self.inputs_len, self.params_len);
        acc.reset(0, self.inputs_len, self.params_len);
        let VjpBuffers {
            current: w_bar,
            next,
            lambda,
            ..
        } = buffers;
        w_bar.clear();
        w_bar.extend_from_slice(seed);
        let mut t_bar = 0.0;
        for segment in self.segments.iter().rev() {
            match segment {
                Linearized::Step(step) => {
                    t_bar = step.pull_back_into(w_bar, t_bar, acc, lambda, next);
                    std::mem::swap(w_bar, next);
                }
                Linearized::Reset(reset) => {
                    let (before, event_time_bar) = reset.pull_back(w_bar, acc);
                    *w_bar = before;
                    t_bar += event_time_bar;
                }
            }
        }
        acc.state.extend_from_slice(w_bar);
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
