//! The linearization of one internal step `F(w_next, w_prev, u, p; t_prev, h) = 0`.
//!
//! All Jacobians come from the method's own residual by dual numbers. Tangents carry, besides
//! the discrete state `dw` (the residual's `nt` unknowns), the shift `dt` of the step's start
//! time, which only an earlier event in the same communication step makes non-zero. The
//! step's length varies according to its [`StepEnd`]:
//!
//! * `Free`: `dh = 0` (recorded step sizes are held fixed);
//! * `Stop`: the end time is held, `dh = -dt`;
//! * `Event`: the end time is where the crossing indicator `z` vanishes on the step's end
//!   state, `z(t_prev + h, x_next, u, p) = 0`, so with `a = -F_wn^-1 (F_wp dw + F_t dt + F_u du
//!   + F_p dp)` and the discrete rate `b = dw_next/dh = -F_wn^-1 F_h`:
//!
//! ```text
//! dh = -(z_t dt + z_x a_x + z_u du + z_p dp) / (z_t + z_x b_x)
//! ```
//!
//! which is the event-time sensitivity of Corner et al. (2019) eq. (33) and Serban & Recuero
//! (2019) eq. (27) with the numerical step's own rate `b` in place of `f(x^-)`.
//! Then `dw_next = a + b dh` and `dt_next = dt + dh`.

use crate::integrators::tape::StepEnd;
use crate::integrators::DifferentiableScheme;
use crate::linear::Lu;
use crate::ode::Args;
use crate::system::{StepInputs, System};

use super::blocks::{block_jacobians, block_jacobians_into, Lanes};
use super::dual_arguments::with_dual_arguments;
use super::error::AdjointError;
use super::inputs::{
    flatten_inputs, flatten_inputs_into, inputs_like, refill_inputs, shape_inputs,
};
use super::matrix::{dot, Matrix};
use super::Cotangents;

/// Whether located events contribute the sensitivity of their time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventTimeSensitivity {
    /// The event time moves with the state (the correct linearization).
    #[default]
    Included,
    /// The event time is held fixed: what ignoring the hidden discontinuity gives. Only for
    /// demonstrating that the term matters.
    Ignored,
}

/// The step data a linearization is taken at.
#[derive(Clone, Copy, Debug)]
pub struct StepPoint<'a> {
    /// Start time.
    pub t: f64,
    /// Length.
    pub h: f64,
    /// Method state at the start (at least the residual's carried entries).
    pub w_prev: &'a [f64],
    /// Method state at the end (at least the residual's unknowns).
    pub w_next: &'a [f64],
    /// The step's input polynomial.
    pub inputs: &'a StepInputs<f64>,
    /// Parameters.
    pub params: &'a [f64],
    /// Discrete variables during the step.
    pub d: &'a [f64],
}

/// The linearization of one solved internal step.
#[derive(Clone, Debug)]
pub struct StepLinearization {
    t: f64,
    next: Matrix,
    lu: Lu<f64>,
    prev: Matrix,
    /// `dF/dt_prev` (`nt x 1`).
    start_time: Matrix,
    /// `dF/dh` (`nt x 1`).
    length: Matrix,
    inputs: Matrix,
    params: Matrix,
    /// `dw_next/dh = -F_wn^-1 F_h`.
    rate: Vec<f64>,
    rule: LengthRule,
}

/// How the step's length responds to perturbations.
#[derive(Clone, Debug)]
enum LengthRule {
    Fixed,
    EndsAtStop,
    EndsAtEvent(EventCondition),
}

/// The linearized event condition `z(t_prev + h, x_next, u, p) = 0`.
#[derive(Clone, Debug)]
struct EventCondition {
    /// `dz/dt` at fixed `x` (inputs move with time).
    time: f64,
    /// `dz/dx` (continuous state, the leading entries of `w`).
    state: Vec<f64>,
    /// `dz/du` (input coefficients).
    inputs: Vec<f64>,
    /// `dz/dp`.
    params: Vec<f64>,
    /// `z_t + z_x b_x`, the indicator's rate along the discrete step.
    rate: f64,
}

impl StepLinearization {
    /// Linearizes the solved step `point` of `scheme`, whose length is determined as `end` says.
    pub fn new<S: System, M: DifferentiableScheme<S>>(
        sys: &S,
        scheme: &M,
        point: &StepPoint,
        end: &StepEnd,
        event_time: EventTimeSensitivity,
    ) -> Result<Self, AdjointError> {
        let empty = Matrix::zeros(0, 0);
        let mut step = StepLinearization {
            t: point.t,
            next: empty.clone(),
            lu: Lu::factor(&[1.0][..], 1).expect("1 is regular"),
            prev: empty.clone(),
            start_time: empty.clone(),
            length: empty.clone(),
            inputs: empty.clone(),
            params: empty,
            rate: Vec::new(),
            rule: LengthRule::Fixed,
        };
        step.relinearize(sys, scheme, point, end, event_time)?;
        Ok(step)
    }

    /// Makes this the linearization of the solved step `point` (as [`new`](Self::new) does),
    /// reusing its allocations. After an error it holds no linearization until the next call.
    pub fn relinearize<S: System, M: DifferentiableScheme<S>>(
        &mut self,
        sys: &S,
        scheme: &M,
        point: &StepPoint,
        end: &StepEnd,
        event_time: EventTimeSensitivity,
    ) -> Result<(), AdjointError> {
        let (nt, carried) = (scheme.residual_len(), scheme.carried_len());
        let StepPoint {
            t,
            h,
            w_prev,
            w_next,
            inputs,
            params,
            d,
        } = *point;
        with_dual_arguments(|a| {
            flatten_inputs_into(inputs, &mut a.flat_inputs);
            a.next.lift(w_next);
            a.prev.lift(w_prev);
            shape_inputs(&mut a.inputs, inputs);
            let blocks: [&[f64]; 6] = [
                &w_next[..nt],
                &w_prev[..carried],
                &[t],
                &[h],
                &a.flat_inputs,
                params,
            ];
            let mut jacobians = [
                &mut self.next,
                &mut self.prev,
                &mut self.start_time,
                &mut self.length,
                &mut self.inputs,
                &mut self.params,
            ];
            let (wn, wp, u) = (&mut a.next, &mut a.prev, &mut a.inputs);
            block_jacobians_into(&blocks, nt, &mut jacobians, None, |args, r| {
                refill_inputs(u, args[4]);
                let (wn, wp) = (wn.with(args[0]), wp.with(args[1]));
                scheme.residual_at(sys, args[2][0], args[3][0], wn, wp, u, args[5], d, r);
            });
        });
        self.t = t;
        self.lu = Lu::factor(self.next.data(), nt).map_err(|_| AdjointError::Singular { t })?;
        self.rate.clear();
        self.rate.extend(self.length.data().iter().map(|v| -v));
        self.lu.solve(&mut self.rate);
        self.rule = match (end, event_time) {
            (StepEnd::Free, _) | (StepEnd::Event(_), EventTimeSensitivity::Ignored) => {
                LengthRule::Fixed
            }
            (StepEnd::Stop, _) => LengthRule::EndsAtStop,
            (StepEnd::Event(_), EventTimeSensitivity::Included) => {
                let indicator = end.crossing_indicator().expect("a located event crossed");
                let x_next = scheme.continuous_state(w_next);
                let condition = EventCondition::new(sys, point, x_next, indicator, &self.rate)?;
                LengthRule::EndsAtEvent(condition)
            }
        };
        Ok(())
    }

    /// `dF/dw_next` (`nt x nt`).
    pub fn jacobian_next(&self) -> &Matrix {
        &self.next
    }

    /// `dF/dw_prev` over the carried entries of `w_prev` (`nt x carried`).
    pub fn jacobian_prev(&self) -> &Matrix {
        &self.prev
    }

    /// `dF/du` over the flat input coefficients.
    pub fn jacobian_inputs(&self) -> &Matrix {
        &self.inputs
    }

    /// `dF/dp`.
    pub fn jacobian_params(&self) -> &Matrix {
        &self.params
    }

    /// `dF/dt_prev` (the step's start time).
    pub fn jacobian_start_time(&self) -> &[f64] {
        self.start_time.data()
    }

    /// `dF/dh` (the step's length).
    pub fn jacobian_length(&self) -> &[f64] {
        self.length.data()
    }

    /// Step JVP: `dw_next = -F_wn^-1 (F_wp dw_prev + F_u du + F_p dp)` (plus the response of
    /// an event-located length), for tangents of `w_prev` (`nt` entries), the flat input
    /// coefficients and the parameters.
    pub fn jvp(&self, dw_prev: &[f64], du: &[f64], dp: &[f64]) -> Vec<f64> {
        self.propagate(dw_prev, 0.0, du, dp).0
    }

    /// Step VJP: for the adjoint seed on `w_next`, `lambda = F_wn^-T seed` and the adjoints
    /// `-F_wp^T lambda`, `-F_u^T lambda`, `-F_p^T lambda` (plus the event-time terms).
    pub fn vjp(&self, seed: &[f64]) -> Cotangents {
        let mut cotangents = Cotangents::zeros(0, self.inputs.cols(), self.params.cols());
        (cotangents.state, _) = self.pull_back(seed, 0.0, &mut cotangents);
        cotangents
    }

    /// The tangent `(dw_next, dt_next)` from `(dw_prev, dt_prev)` and the input and parameter
    /// tangents.
    pub(crate) fn propagate(&self, dw: &[f64], dt: f64, du: &[f64], dp: &[f64]) -> (Vec<f64>, f64) {
        let mut g: Vec<f64> = self.start_time.data().iter().map(|f| f * dt).collect();
        self.prev.mul_add(&dw[..self.prev.cols()], &mut g);
        self.inputs.mul_add(du, &mut g);
        self.params.mul_add(dp, &mut g);
        let mut a: Vec<f64> = g.iter().map(|v| -v).collect();
        self.lu.solve(&mut a);
        let dh = match &self.rule {
            LengthRule::Fixed => 0.0,
            LengthRule::EndsAtStop => -dt,
            LengthRule::EndsAtEvent(c) => {
                let change = c.time * dt
                    + dot(&c.state, &a[..c.state.len()])
                    + dot(&c.inputs, du)
                    + dot(&c.params, dp);
                -change / c.rate
            }
        };
        a.iter_mut()
            .zip(&self.rate)
            .for_each(|(ai, bi)| *ai += bi * dh);
        (a, dt + dh)
    }

    /// The adjoint `(w_prev_bar, t_prev_bar)` from `(w_next_bar, t_next_bar)`, adding the
    /// input and parameter adjoints to `acc`.
    pub(crate) fn pull_back(
        &self,
        w_bar: &[f64],
        t_bar: f64,
        acc: &mut Cotangents,
    ) -> (Vec<f64>, f64) {
        let (mut lambda, mut w_prev_bar) = (Vec::new(), Vec::new());
        let t_prev_bar = self.pull_back_into(w_bar, t_bar, acc, &mut lambda, &mut w_prev_bar);
        (w_prev_bar, t_prev_bar)
    }

    /// [`pull_back`](Self::pull_back) writing `w_prev_bar` into `w_prev_bar`, with `lambda` as
    /// working space (both keep their allocations); returns `t_prev_bar`.
    pub(crate) fn pull_back_into(
        &self,
        w_bar: &[f64],
        t_bar: f64,
        acc: &mut Cotangents,
        lambda: &mut Vec<f64>,
        w_prev_bar: &mut Vec<f64>,
    ) -> f64 {
        // Adjoint of the length change dh.
        let length_bar = dot(w_bar, &self.rate) + t_bar;
        lambda.clear();
        lambda.extend_from_slice(w_bar);
        let mut t_prev_bar = t_bar;
        match &self.rule {
            LengthRule::Fixed => {}
            LengthRule::EndsAtStop => t_prev_bar -= length_bar,
            LengthRule::EndsAtEvent(c) => {
                let mu = length_bar / c.rate;
                lambda
                    .iter_mut()
                    .zip(&c.state)
                    .for_each(|(s, z)| *s -= mu * z);
                t_prev_bar -= mu * c.time;
                acc.inputs
                    .iter_mut()
                    .zip(&c.inputs)
                    .for_each(|(u, z)| *u -= mu * z);
                acc.params
                    .iter_mut()
                    .zip(&c.params)
                    .for_each(|(p, z)| *p -= mu * z);
            }
        }
        self.lu.solve_transposed(lambda);
        lambda.iter_mut().for_each(|v| *v = -*v);
        w_prev_bar.clear();
        w_prev_bar.resize(w_bar.len(), 0.0);
        self.prev
            .transpose_mul_add(lambda, &mut w_prev_bar[..self.prev.cols()]);
        t_prev_bar += dot(self.start_time.data(), lambda);
        self.inputs.transpose_mul_add(lambda, &mut acc.inputs);
        self.params.transpose_mul_add(lambda, &mut acc.params);
        t_prev_bar
    }

    /// Start time of the step.
    pub fn t(&self) -> f64 {
        self.t
    }
}

impl EventCondition {
    /// The linearized condition of indicator `indicator` at the end of the step `point`, whose
    /// discrete rate is `rate`.
    fn new<S: System>(
        sys: &S,
        point: &StepPoint,
        x_next: &[f64],
        indicator: usize,
        rate: &[f64],
    ) -> Result<Self, AdjointError> {
        let t_end = point.t + point.h;
        let flat_inputs = flatten_inputs(point.inputs);
        let blocks: [&[f64]; 4] = [&[t_end], x_next, &flat_inputs, point.params];
        let count = sys.declaration().event_indicators;
        let (jacobians, _) = block_jacobians(&blocks, 1, |args, out| {
            let t = args[0][0];
            let u = inputs_like(point.inputs, args[2]);
            let mut u_t = vec![Lanes::from(0.0); u.len()];
            u.eval(t, &mut u_t);
            let mut z = vec![Lanes::from(0.0); count];
            sys.event_indicators(
                &Args {
                    t,
                    x: args[1],
                    u: &u_t,
                    p: args[3],
                    d: point.d,
                },
                &mut z,
            );
            out[0] = z[indicator];
        });
        let [time, state, inputs, params] =
            <[Matrix; 4]>::try_from(jacobians).expect("four blocks");
        let (time, state) = (time.get(0, 0), state.data().to_vec());
        let along: Vec<f64> = state.iter().zip(rate).map(|(z, b)| z * b).collect();
        let rate = time + along.iter().sum::<f64>();
        let scale = time.abs() + along.iter().map(|v| v.abs()).sum::<f64>();
        if rate.abs() <= 1e-12 * scale || !rate.is_finite() {
            return Err(AdjointError::Grazing {
                t: t_end,
                indicator,
            });
        }
        Ok(EventCondition {
            time,
            state,
            inputs: inputs.data().to_vec(),
            params: params.data().to_vec(),
            rate,
        })
    }
}
