//! The linearization of an event: the model's reset map `x+ = R(t, x-, u, p)` followed by the
//! method's restart `w+ = W(t, x+, u, p)`, as one map of `(t, x-, u, p)`.
//!
//! With the event time's tangent `dt` (from the located step before it), this is the jump
//! condition of the sensitivities in total-derivative form: Corner et al. (2019) eq. (38) in
//! the equivalent form `V+ = h_q (Q- + v- s) + h_v (V- + a- s) + h_t s + h_p`, and Serban &
//! Recuero (2019) eq. (28) for an explicit reset. The remaining term `-f+ s` (the conversion
//! back to a fixed time) is produced by the step that ends at the next fixed time, whose
//! length changes by `-dt`.

use crate::integrators::tape::RecordedEvent;
use crate::integrators::DifferentiableScheme;
use crate::ode::Args;
use crate::system::{StepInputs, System};

use super::blocks::{block_jacobians, Lanes};
use super::error::AdjointError;
use super::inputs::{flatten_inputs, inputs_like};
use super::matrix::Matrix;
use super::Cotangents;

/// The event data a linearization is taken at.
#[derive(Clone, Copy, Debug)]
pub struct ResetPoint<'a> {
    /// Event time.
    pub t: f64,
    /// The trigger.
    pub event: &'a RecordedEvent,
    /// Continuous state before the event.
    pub x: &'a [f64],
    /// Discrete variables before the event.
    pub d: &'a [f64],
    /// The input polynomial of the communication step.
    pub inputs: &'a StepInputs<f64>,
    /// Parameters.
    pub params: &'a [f64],
}

/// The linearized reset and restart `w+ = W(R(t, x-, u, p), ...)`.
#[derive(Clone, Debug)]
pub struct ResetLinearization {
    time: Vec<f64>,
    state: Matrix,
    inputs: Matrix,
    params: Matrix,
}

impl ResetLinearization {
    /// Linearizes the event `point` followed by the restart of `scheme`.
    pub fn new<S: System, M: DifferentiableScheme<S>>(
        sys: &S,
        scheme: &M,
        point: &ResetPoint,
    ) -> Result<Self, AdjointError> {
        let nt = scheme.residual_len();
        let flat_inputs = flatten_inputs(point.inputs);
        let blocks: [&[f64]; 4] = [&[point.t], point.x, &flat_inputs, point.params];
        let mut failure = None;
        let (jacobians, _) = block_jacobians(&blocks, nt, |args, out| {
            let (t, x, p) = (args[0][0], args[1], args[3]);
            let u = inputs_like(point.inputs, args[2]);
            let mut u_t = vec![Lanes::from(0.0); u.len()];
            u.eval(t, &mut u_t);
            let (mut x_new, mut d_new) = (x.to_vec(), point.d.to_vec());
            let args = Args {
                t,
                x,
                u: &u_t,
                p,
                d: point.d,
            };
            sys.reset(&args, point.event.as_event(), &mut x_new, &mut d_new);
            let mut w = vec![Lanes::from(0.0); scheme.state_len()];
            match scheme.start(sys, t, &x_new, &u, p, &d_new, &mut w) {
                Ok(()) => out.copy_from_slice(&w[..nt]),
                Err(error) => {
                    failure = Some(error);
                    out.iter_mut().for_each(|o| *o = Lanes::from(f64::NAN));
                }
            }
        });
        if let Some(error) = failure {
            return Err(AdjointError::Start(error));
        }
        let [time, state, inputs, params] =
            <[Matrix; 4]>::try_from(jacobians).expect("four blocks");
        Ok(ResetLinearization {
            time: time.column(0),
            state,
            inputs,
            params,
        })
    }

    /// `dw+/dx-` (`nt x N`).
    pub fn jacobian_state(&self) -> &Matrix {
        &self.state
    }

    /// The tangent of `w+` from the tangents of the pre-event method state `dw` (its leading
    /// `N` entries are `dx-`), of the event time `dt`, the inputs and the parameters.
    pub(crate) fn propagate(&self, dw: &[f64], dt: f64, du: &[f64], dp: &[f64]) -> Vec<f64> {
        let mut out: Vec<f64> = self.time.iter().map(|v| v * dt).collect();
        self.state.mul_add(&dw[..self.state.cols()], &mut out);
        self.inputs.mul_add(du, &mut out);
        self.params.mul_add(dp, &mut out);
        out
    }

    /// The adjoint of the pre-event method state and of the event time from the adjoint of
    /// `w+`, adding the input and parameter adjoints to `acc`.
    pub(crate) fn pull_back(&self, w_bar: &[f64], acc: &mut Cotangents) -> (Vec<f64>, f64) {
        let mut w_prev_bar = vec![0.0; w_bar.len()];
        self.state
            .transpose_mul_add(w_bar, &mut w_prev_bar[..self.state.cols()]);
        self.inputs.transpose_mul_add(w_bar, &mut acc.inputs);
        self.params.transpose_mul_add(w_bar, &mut acc.params);
        let t_bar = self.time.iter().zip(w_bar).map(|(a, b)| a * b).sum();
        (w_prev_bar, t_bar)
    }
}
