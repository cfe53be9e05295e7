//! Numerical integration for Model Exchange FMUs: adaptive one-step methods with dense
//! output (explicit Dormand–Prince for non-stiff models, an implicit ESDIRK for stiff ones, and
//! by default the two with a stiffness detector choosing between them), and the location of
//! zero crossings of event indicators.

mod auto;
mod colouring;
mod dopri5;
mod esdirk;
mod fsal;
mod initial_step;
mod iteration_matrix;
mod jacobian;
mod linearization;
mod ode;
mod root;
mod sparsity;
mod spectral_radius;
mod stepper;
mod stiffness;

pub use auto::{describe_solver, describe_spans, Auto, AutoDense, Span};
pub use colouring::Colouring;
pub use dopri5::{DenseOutput, DormandPrince};
pub use esdirk::{Esdirk, EsdirkStatistics, HermiteOutput};
pub use initial_step::initial_step;
pub use iteration_matrix::{Factorization, IterationMatrix};
pub use jacobian::Jacobian;
pub use linearization::{SingularStage, StepLinearization};
pub use ode::{forward_differences, Ode};
pub use root::{locate_crossing, sign_changed, Crossing};
pub use sparsity::Sparsity;
pub use spectral_radius::spectral_radius;
pub use stepper::{Attempt, Interpolant, SolverMemory, Stepper};
pub use stiffness::{h_lambda, StiffnessDetector};

/// The Model Exchange solvers (as `--solver` and a system file's `solver` spell them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Dormand–Prince 5(4) while the model is not stiff, ESDIRK while it is, as a stiffness
    /// detector measures it: the default.
    #[default]
    Auto,
    /// Dormand–Prince 5(4), explicit: for non-stiff models.
    Dopri5,
    /// ESDIRK3(2)4L[2]SA, implicit and L-stable: for stiff models.
    Esdirk,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Auto => "auto",
            Method::Dopri5 => "dopri5",
            Method::Esdirk => "esdirk",
        })
    }
}

/// Relative and per-component absolute tolerances of the error control.
#[derive(Debug, Clone)]
pub struct Tolerances {
    /// Relative tolerance.
    pub relative: f64,
    /// Absolute tolerance per state.
    pub absolute: Vec<f64>,
}

impl Tolerances {
    /// Absolute tolerance `relative * nominal` per state, as FMI tools commonly derive it.
    pub fn from_nominals(relative: f64, nominals: &[f64]) -> Self {
        Tolerances {
            relative,
            absolute: nominals
                .iter()
                .map(|n| relative * n.abs().max(f64::MIN_POSITIVE))
                .collect(),
        }
    }

    /// The typical magnitude of each state, `absolute / relative` (for difference increments).
    pub fn typical(&self) -> Vec<f64> {
        self.absolute.iter().map(|a| a / self.relative).collect()
    }

    /// Scaled RMS norm of `value(i)` with weights from the states `a` and `b`.
    pub fn norm(&self, a: &[f64], b: &[f64], value: impl Fn(usize) -> f64) -> f64 {
        if a.is_empty() {
            return 0.0;
        }
        let sum: f64 = (0..a.len())
            .map(|i| {
                let scale = self.absolute[i] + self.relative * a[i].abs().max(b[i].abs());
                (value(i) / scale).powi(2)
            })
            .sum();
        (sum / a.len() as f64).sqrt()
    }
}

/// Integrates `x' = f(t, x)` from `t0` to `t1` with Dormand–Prince, without events; returns
/// the state at `t1` and the number of accepted steps.
pub fn integrate<O: Ode>(
    mut ode: O,
    t0: f64,
    x0: &[f64],
    t1: f64,
    tolerances: &Tolerances,
) -> Result<(Vec<f64>, usize), O::Error> {
    integrate_with(
        DormandPrince::new(x0.len()),
        &mut ode,
        t0,
        x0,
        t1,
        tolerances,
    )
}

/// Integrates `x' = f(t, x)` from `t0` to `t1` with `stepper`, without events; returns the
/// state at `t1` and the number of accepted steps.
pub fn integrate_with<S: Stepper, O: Ode>(
    mut stepper: S,
    ode: &mut O,
    t0: f64,
    x0: &[f64],
    t1: f64,
    tolerances: &Tolerances,
) -> Result<(Vec<f64>, usize), O::Error> {
    let mut x = x0.to_vec();
    let mut t = t0;
    let mut h = stepper.initial_step(ode, t, &x, tolerances, t1 - t0)?;
    let mut steps = 0;
    while t < t1 {
        let last = t + h >= t1;
        let step = if last { t1 - t } else { h };
        let attempt = stepper.attempt(ode, t, &x, step, tolerances)?;
        h = attempt.next_step;
        if attempt.accepted {
            t = if last { t1 } else { t + step };
            x.copy_from_slice(stepper.x_new());
            stepper.accept();
            steps += 1;
        }
    }
    Ok((x, steps))
}
