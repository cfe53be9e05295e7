//! What the step-size control did over a run.

use std::fmt;

/// The macro steps of an adaptive run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepReport {
    /// Steps accepted.
    pub accepted: usize,
    /// Steps rolled back and taken again shorter.
    pub rejected: usize,
    /// Of those, the steps an FMU discarded (status Discard).
    pub discarded: usize,
    /// The shortest step accepted (the last one, cut to the stop time, not counted unless it
    /// is the only one).
    pub shortest: f64,
    /// The longest step accepted.
    pub longest: f64,
}

impl StepReport {
    /// Counts an accepted step of `step`; `last` when it ends at the stop time.
    pub fn accept(&mut self, step: f64, last: bool) {
        self.accepted += 1;
        if last && self.accepted > 1 {
            return;
        }
        if self.accepted == 1 || step < self.shortest {
            self.shortest = step;
        }
        self.longest = self.longest.max(step);
    }
}

/// `adaptive macro steps: 1234 accepted (from 1.2e-4 s to 3.4e-3 s), 5 rejected (2
/// discarded by an FMU)`.
impl fmt::Display for StepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "adaptive macro steps: {} accepted (from {:.3e} s to {:.3e} s), {} rejected",
            self.accepted, self.shortest, self.longest, self.rejected
        )?;
        if self.discarded > 0 {
            write!(f, " ({} discarded by an FMU)", self.discarded)?;
        }
        Ok(())
    }
}
