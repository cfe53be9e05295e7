//! The first-order view of a model that the FMI layer and the integrators work with.
//!
//! Modellers implement [`crate::OdeModel`] or [`crate::MechanicalModel`]; the adapters
//! [`crate::OdeSystem`] and [`crate::MechanicalSystem`] turn either into a [`System`].

use crate::adjoint::DiscreteAdjoint;
use crate::declaration::Declaration;
use crate::ode::{Args, Event};
use crate::scalar::Scalar;

/// A model in first-order form, together with its co-simulation integrator.
pub trait System: Default + Send + Sync + Sized + 'static {
    /// The integrator `doStep` embeds.
    type Integrator: Integrator<Self>;

    /// The model's declaration (variables, solver, experiment).
    fn declaration(&self) -> &Declaration;

    /// Writes `dx = f(t, x, u, p; d)`.
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]);

    /// Writes `y = g(t, x, u, p; d)`.
    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]);

    /// Writes the event indicators.
    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]);

    /// Applies the reset map (see [`crate::OdeModel::reset`]).
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x_new: &mut [T], d_new: &mut [f64]);

    /// The next time event strictly after `t`.
    fn next_time_event(&self, t: f64, p: &[f64], d: &[f64]) -> Option<f64>;

    /// A fresh integrator for one instance.
    fn integrator(&self) -> Self::Integrator;

    /// Writes the String outputs from the current point and the String parameters `s` (see
    /// [`crate::OdeModel::string_outputs`]).
    fn string_outputs(&self, _a: &Args<f64>, _s: &[String], _out: &mut [String]) {}
}

/// The inputs over one communication step, as a Taylor polynomial around `t0`:
/// `u(t) = sum_k coefficients[k] * (t - t0)^k / k!` (order 0 = held input, ZOH).
#[derive(Clone, Debug, PartialEq)]
pub struct StepInputs<T> {
    /// Expansion point (the communication point the step starts from).
    pub t0: f64,
    /// `coefficients[k][i]` is the k-th time derivative of input i at `t0`.
    pub coefficients: Vec<Vec<T>>,
}

impl<T: Scalar> StepInputs<T> {
    /// Inputs held constant at `values`.
    pub fn held(t0: f64, values: &[T]) -> Self {
        StepInputs {
            t0,
            coefficients: vec![values.to_vec()],
        }
    }

    /// Number of inputs.
    pub fn len(&self) -> usize {
        self.coefficients.first().map_or(0, Vec::len)
    }

    /// Whether there are no inputs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes `u(t)`.
    pub fn eval<S: Scalar + From<T>>(&self, t: S, out: &mut [S]) {
        let dt = t - S::cst(self.t0);
        for (i, o) in out.iter_mut().enumerate() {
            let mut factor = S::cst(1.0);
            let mut sum = S::cst(0.0);
            for (k, c) in self.coefficients.iter().enumerate() {
                if k > 0 {
                    factor = factor * dt / S::cst(k as f64);
                }
                sum += factor * S::from(c[i]);
            }
            *o = sum;
        }
    }
}

/// Why an integrator could not complete a step.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError {
    /// The state became NaN or infinite at time `t`.
    NonFinite {
        /// Time at which the non-finite value appeared.
        t: f64,
    },
    /// Newton's method did not converge at time `t`.
    NoConvergence {
        /// Time of the step that failed.
        t: f64,
        /// Residual norm after the last iteration.
        residual: f64,
    },
    /// The iteration matrix was singular at time `t`.
    Singular {
        /// Time of the step that failed.
        t: f64,
    },
    /// Error control drove the step size below the admissible minimum at time `t`.
    StepTooSmall {
        /// Time at which the step size collapsed.
        t: f64,
        /// The rejected step size.
        h: f64,
    },
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepError::NonFinite { t } => write!(f, "the state became non-finite at t = {t}"),
            StepError::NoConvergence { t, residual } => {
                write!(
                    f,
                    "Newton iteration did not converge at t = {t} (residual {residual:e})"
                )
            }
            StepError::Singular { t } => write!(f, "singular iteration matrix at t = {t}"),
            StepError::StepTooSmall { t, h } => {
                write!(f, "step size {h:e} below the minimum at t = {t}")
            }
        }
    }
}

impl std::error::Error for StepError {}

/// What happened during a completed step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Number of internal integration steps taken.
    pub internal_steps: usize,
    /// Number of state and time events handled inside the step.
    pub events: usize,
}

/// A one-step co-simulation integrator with an opaque discrete state `w` (for HHT:
/// q, v, a, lambda; for SDIRK: x and the last stage derivatives).
///
/// Every method's steps are written in residual form `F(w_next, w_prev, u, p) = 0` so that
/// their discrete adjoints can be built from the same residual.
pub trait Integrator<S: System>: Clone + Send {
    /// Builds a consistent discrete state from the continuous state `x` at `t0`.
    fn initialize(
        &mut self,
        sys: &S,
        t0: f64,
        x: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Result<(), StepError>;

    /// Advances from `t` to `t + h` with inputs `u`, locating and handling events inside the
    /// step (the reset map may change `d`).
    fn do_step(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<StepReport, StepError>;

    /// The discrete state.
    fn state(&self) -> &[f64];

    /// Restores a discrete state previously read with [`Integrator::state`].
    fn set_state(&mut self, w: &[f64]);

    /// Writes the continuous state `x` contained in the discrete state.
    fn continuous_state(&self, x: &mut [f64]);

    /// Writes the outputs at the current discrete state (mechanical models use the
    /// integrator's own accelerations and multipliers).
    fn outputs(&self, sys: &S, t: f64, u: &[f64], p: &[f64], d: &[f64], y: &mut [f64]);

    /// The linearizations of the integrator's step, start and outputs at its current state
    /// (what the adjoint extension exports), or `None` for an integrator without a discrete
    /// adjoint.
    fn discrete_adjoint(&self) -> Option<&dyn DiscreteAdjoint<S>> {
        None
    }

    /// [`Integrator::discrete_adjoint`], mutably (to take a step and linearize it at once).
    fn discrete_adjoint_mut(&mut self) -> Option<&mut dyn DiscreteAdjoint<S>> {
        None
    }
}
