//! Why a step could not be linearized.

use crate::system::StepError;

/// A recorded step whose linearization does not exist.
#[derive(Clone, Debug, PartialEq)]
pub enum AdjointError {
    /// `dF/dw_next` is singular at the step starting at `t`.
    Singular {
        /// Start of the step.
        t: f64,
    },
    /// The crossing indicator's rate along the step vanishes at the event at `t` (grazing):
    /// the event time is not differentiable.
    Grazing {
        /// Event time.
        t: f64,
        /// The crossing indicator.
        indicator: usize,
    },
    /// The method's restart (consistent start after an event or at initialization) failed.
    Start(StepError),
    /// The communication step to be linearized failed (as it would in `doStep`).
    Step(StepError),
}

impl std::fmt::Display for AdjointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdjointError::Singular { t } => {
                write!(f, "the step starting at t = {t} has a singular Jacobian dF/dw_next")
            }
            AdjointError::Grazing { t, indicator } => write!(
                f,
                "event indicator {indicator} grazes zero at t = {t}: the event time has no derivative"
            ),
            AdjointError::Start(error) => write!(f, "restarting the method failed: {error}"),
            AdjointError::Step(error) => write!(f, "the communication step failed: {error}"),
        }
    }
}

impl std::error::Error for AdjointError {}
