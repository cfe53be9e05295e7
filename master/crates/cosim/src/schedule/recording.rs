//! The recording hook of a co-simulation: what each participant reports as it runs, for a
//! caller that must replay or differentiate the run (the adjoint gradient records the inputs
//! every step used, how they were computed, and FMU states to come back to).

use super::history::Hold;
use crate::error::Result;
use fmi_host::instance::FmuInstance;

/// One thing a participant did, in the order it did it.
///
/// A participant's run reads as: `Observed` once when initialization starts; then, per
/// initialization pass, `Inputs` and `Observed`; `Initialized`; `Observed` (the values at the
/// start time that the first macro step uses). Then per macro step: per sub-step `Inputs` and
/// `Step` (a Scheduled Execution participant: `Inputs` before the partitions of each tick
/// time, no `Step`), then `Inputs` at the end of the macro step and `Observed` there. The n-th
/// `Observed` values are the samples with tag n in the histories (see [`Hold`]).
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The connected inputs were written at `time`: `values[i]` to input `i` (in the order of
    /// [`super::input_ports`]), computed as `holds[i]` says.
    Inputs {
        /// The time the holds were evaluated at.
        time: f64,
        /// The values written.
        values: &'a [f64],
        /// How each value was computed from communicated samples.
        holds: &'a [Hold],
    },
    /// A step from `time` of length `step` is about to be taken (the inputs are written).
    Step {
        /// Start of the step.
        time: f64,
        /// Its length.
        step: f64,
    },
    /// The observed variables were read at `time` (in the order of [`super::observed_ports`]);
    /// they become the participant's next communicated sample.
    Observed {
        /// The time read at.
        time: f64,
        /// The values read.
        values: &'a [f64],
    },
    /// The participant left initialization mode.
    Initialized,
}

/// Receives a participant's events, with its instance (to save FMU states, for instance).
/// Each participant has its own recorder, called on the thread that steps it.
pub trait Recorder: Send {
    /// Called after each event; an error stops the run.
    fn record(&mut self, instance: &mut dyn FmuInstance, event: Event<'_>) -> Result<()>;
}
