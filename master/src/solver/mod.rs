//! Numerical integration for Model Exchange FMUs: an adaptive embedded Runge–Kutta method
//! with dense output, and the location of zero crossings of event indicators.

mod dopri5;
mod root;

pub use dopri5::{Attempt, DenseOutput, DormandPrince};
pub use root::{locate_crossing, sign_changed, Crossing};

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

/// Integrates `x' = f(t, x)` from `t0` to `t1` without events; returns the state at `t1`
/// and the number of accepted steps.
pub fn integrate<E>(
    mut f: impl FnMut(f64, &[f64], &mut [f64]) -> Result<(), E>,
    t0: f64,
    x0: &[f64],
    t1: f64,
    tolerances: &Tolerances,
) -> Result<(Vec<f64>, usize), E> {
    let mut stepper = DormandPrince::new(x0.len());
    let mut x = x0.to_vec();
    let mut t = t0;
    let mut h = stepper.initial_step(&mut f, t, &x, tolerances, t1 - t0)?;
    let mut steps = 0;
    while t < t1 {
        let last = t + h >= t1;
        let step = if last { t1 - t } else { h };
        let attempt = stepper.attempt(&mut f, t, &x, step, tolerances)?;
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
