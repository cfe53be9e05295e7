//! Whole recorded simulations: recording, the discrete adjoint gradient of a cost summed over
//! communication points, and forward parameter sensitivities.
//!
//! The adjoint recursion is that of Lauß et al. (2018), eqs. (9)-(11), one communication step
//! at a time through [`CommunicationLinearization::vjp`], followed by the initial-state term
//! `(dw0/dp)^T lambda_0` that their `dx_0 = 0` assumption omits.

use crate::integrators::tape::Tape;
use crate::integrators::{DifferentiableScheme, SchemeIntegrator};
use crate::scalar::Scalar;
use crate::system::{Integrator, StepError, StepInputs, System};

use super::blocks::block_jacobians;
use super::communication::CommunicationLinearization;
use super::error::AdjointError;
use super::initial::InitialLinearization;
use super::matrix::Matrix;
use super::step::EventTimeSensitivity;

/// One communication step of a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduledStep {
    /// Communication step size.
    pub h: f64,
    /// Input polynomial, expanded around the step's start.
    pub inputs: StepInputs<f64>,
}

/// A recorded simulation: the start and the tape of every communication step.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    /// Start time.
    pub t0: f64,
    /// Initial continuous state.
    pub x0: Vec<f64>,
    /// Initial discrete variables.
    pub d0: Vec<f64>,
    /// Parameters.
    pub params: Vec<f64>,
    /// Method state after initialization.
    pub w0: Vec<f64>,
    /// Entries of the method state that are differentiated (the residual's unknowns).
    pub residual_len: usize,
    /// One tape per communication step.
    pub steps: Vec<Tape>,
}

impl Trajectory {
    /// Number of communication points (steps + 1).
    pub fn points(&self) -> usize {
        self.steps.len() + 1
    }

    /// Time of communication point `k`.
    pub fn time(&self, k: usize) -> f64 {
        if k == 0 {
            self.t0
        } else {
            let tape = &self.steps[k - 1];
            tape.t + tape.h
        }
    }

    /// Method state at communication point `k`.
    pub fn state(&self, k: usize) -> &[f64] {
        if k == 0 {
            &self.w0
        } else {
            self.steps[k - 1].w_end()
        }
    }

    /// The recorded method states at all communication points.
    pub fn states(&self) -> Vec<Vec<f64>> {
        (0..self.points()).map(|k| self.state(k).to_vec()).collect()
    }

    /// `sum_k cost(k, t_k, w_k, p)` over the given method states (one per point).
    pub fn cost_of<C: Cost>(&self, states: &[Vec<f64>], params: &[f64], cost: &C) -> f64 {
        let n = self.residual_len;
        states
            .iter()
            .enumerate()
            .map(|(k, w)| cost.term(k, self.time(k), &w[..n], params))
            .sum()
    }
}

/// A cost summed over communication points, `J = sum_k term(k, t_k, w_k, p)`, written
/// generically so that its gradient comes from dual numbers.
pub trait Cost {
    /// The term of point `k` (0 is the initial point) at time `t`, with the method state's
    /// differentiated entries `w` and the parameters `p`.
    fn term<T: Scalar>(&self, k: usize, t: f64, w: &[T], p: &[T]) -> T;
}

/// The gradient of a cost along a recorded trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient {
    /// The cost.
    pub cost: f64,
    /// `dJ/dp`, including the initial-state term.
    pub params: Vec<f64>,
    /// The initial-state term `(dw0/dp)^T lambda_0` alone (already part of `params`).
    pub initial_state_term: Vec<f64>,
    /// `dJ/dx0`.
    pub initial_state: Vec<f64>,
    /// `dJ/du_k` for every communication step (flat input coefficients).
    pub inputs: Vec<Vec<f64>>,
}

/// Initializes `integrator` at the first step's start from `x0` and records every step of
/// `schedule` (which must not be empty).
pub fn record_trajectory<S: System, M: DifferentiableScheme<S> + Clone + Send>(
    sys: &S,
    integrator: &mut SchemeIntegrator<M>,
    x0: &[f64],
    params: &[f64],
    d0: &[f64],
    schedule: &[ScheduledStep],
) -> Result<Trajectory, StepError> {
    let first = schedule
        .first()
        .expect("record_trajectory: the schedule has no steps");
    let t0 = first.inputs.t0;
    integrator.initialize(sys, t0, x0, &first.inputs, params, d0)?;
    let w0 = integrator.state()[..integrator.scheme().state_len()].to_vec();
    let (mut t, mut d) = (t0, d0.to_vec());
    let mut steps = Vec::with_capacity(schedule.len());
    for step in schedule {
        let (_, tape) =
            integrator.do_step_recorded(sys, t, step.h, &step.inputs, params, &mut d)?;
        steps.push(tape);
        t += step.h;
    }
    Ok(Trajectory {
        t0,
        x0: x0.to_vec(),
        d0: d0.to_vec(),
        params: params.to_vec(),
        w0,
        residual_len: integrator.scheme().residual_len(),
        steps,
    })
}

/// The gradient of `cost` along `trajectory` by the discrete adjoint: one VJP per
/// communication step, backward, then the initial-state term.
pub fn discrete_adjoint_gradient<S: System, M: DifferentiableScheme<S>, C: Cost>(
    sys: &S,
    scheme: &M,
    trajectory: &Trajectory,
    cost: &C,
    event_time: EventTimeSensitivity,
) -> Result<Gradient, AdjointError> {
    let p = &trajectory.params;
    let last = trajectory.steps.len();
    let mut total = 0.0;
    let mut params_bar = vec![0.0; p.len()];
    let mut term = |k: usize, lambda: &mut [f64], params_bar: &mut [f64]| {
        let w = &trajectory.state(k)[..trajectory.residual_len];
        let (value, by_state, by_params) = cost_gradient(cost, k, trajectory.time(k), w, p);
        total += value;
        lambda.iter_mut().zip(by_state).for_each(|(l, g)| *l += g);
        params_bar
            .iter_mut()
            .zip(by_params)
            .for_each(|(a, g)| *a += g);
    };
    let mut lambda = vec![0.0; trajectory.residual_len];
    term(last, &mut lambda, &mut params_bar);
    let mut inputs = vec![Vec::new(); last];
    for k in (0..last).rev() {
        let tape = &trajectory.steps[k];
        let step = CommunicationLinearization::new(sys, scheme, tape, event_time)?;
        let cotangents = step.vjp(&lambda);
        params_bar
            .iter_mut()
            .zip(&cotangents.params)
            .for_each(|(a, g)| *a += g);
        inputs[k] = cotangents.inputs;
        lambda = cotangents.state;
        term(k, &mut lambda, &mut params_bar);
    }
    let initial = linearize_start(sys, scheme, trajectory)?;
    let mut initial_state_term = vec![0.0; p.len()];
    initial
        .params
        .transpose_mul_add(&lambda, &mut initial_state_term);
    params_bar
        .iter_mut()
        .zip(&initial_state_term)
        .for_each(|(a, g)| *a += g);
    let mut initial_state = vec![0.0; trajectory.x0.len()];
    initial.state.transpose_mul_add(&lambda, &mut initial_state);
    if let Some(first) = inputs.first_mut() {
        initial.inputs.transpose_mul_add(&lambda, first);
    }
    Ok(Gradient {
        cost: total,
        params: params_bar,
        initial_state_term,
        initial_state,
        inputs,
    })
}

/// `dw_k/dp` (`nt x n_p`) at every communication point, by forward mode (tangent-linear
/// propagation with the jump conditions at events), starting from `dw0/dp`.
pub fn parameter_sensitivities<S: System, M: DifferentiableScheme<S>>(
    sys: &S,
    scheme: &M,
    trajectory: &Trajectory,
    event_time: EventTimeSensitivity,
) -> Result<Vec<Matrix>, AdjointError> {
    let (nt, np) = (trajectory.residual_len, trajectory.params.len());
    let initial = linearize_start(sys, scheme, trajectory)?;
    let mut columns: Vec<Vec<f64>> = (0..np).map(|j| initial.params.column(j)).collect();
    let as_matrix = |columns: &[Vec<f64>]| {
        let data = (0..nt)
            .flat_map(|i| columns.iter().map(move |c| c[i]))
            .collect();
        Matrix::from_row_major(nt, np, data)
    };
    let mut sensitivities = vec![as_matrix(&columns)];
    for tape in &trajectory.steps {
        let step = CommunicationLinearization::new(sys, scheme, tape, event_time)?;
        let du = vec![0.0; step.inputs_len()];
        for (j, column) in columns.iter_mut().enumerate() {
            let mut dp = vec![0.0; np];
            dp[j] = 1.0;
            *column = step.jvp(column, &du, &dp);
        }
        sensitivities.push(as_matrix(&columns));
    }
    Ok(sensitivities)
}

/// The linearized initialization of `trajectory` (with the first step's inputs).
fn linearize_start<S: System, M: DifferentiableScheme<S>>(
    sys: &S,
    scheme: &M,
    trajectory: &Trajectory,
) -> Result<InitialLinearization, AdjointError> {
    let held = StepInputs::held(trajectory.t0, &[]);
    let inputs = trajectory.steps.first().map_or(&held, |tape| &tape.inputs);
    let (t0, x0, p, d0) = (
        trajectory.t0,
        &trajectory.x0,
        &trajectory.params,
        &trajectory.d0,
    );
    InitialLinearization::new(sys, scheme, t0, x0, inputs, p, d0)
}

/// The value of one cost term and its gradients with respect to `w` and `p`.
fn cost_gradient<C: Cost>(
    cost: &C,
    k: usize,
    t: f64,
    w: &[f64],
    p: &[f64],
) -> (f64, Vec<f64>, Vec<f64>) {
    let (jacobians, value) = block_jacobians(&[w, p], 1, |args, out| {
        out[0] = cost.term(k, t, args[0], args[1])
    });
    (
        value[0],
        jacobians[0].data().to_vec(),
        jacobians[1].data().to_vec(),
    )
}
