//! What an implicit coupling did over a run: macro steps, Newton iterations per step, the
//! repetitions of steps they took, and where the Jacobians came from.

use std::fmt;

use crate::coupling::InterfaceJacobian;

/// An implicit coupling's account of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ImplicitReport {
    /// The Jacobian asked for (`auto` resolved to what was used).
    pub jacobian: InterfaceJacobian,
    /// The values the participants exchange at the end of a macro step: Newton's unknowns.
    pub unknowns: usize,
    /// Macro steps converged.
    pub steps: usize,
    /// Newton iterations over all steps (each a repetition of the step).
    pub iterations: usize,
    /// The most Newton iterations one macro step took.
    pub most_iterations: usize,
    /// Repetitions of macro steps over all (Newton's and the differences', and in a recorded
    /// run, a gradient's, the one per macro step that the recorders hear).
    pub evaluations: usize,
    /// Jacobians made (step derivatives or differences; Broyden's updates not counted).
    pub jacobians: usize,
    /// Broyden's updates of the Jacobian.
    pub updates: usize,
}

impl ImplicitReport {
    /// Newton iterations per macro step, on average.
    pub fn mean_iterations(&self) -> f64 {
        self.iterations as f64 / self.steps.max(1) as f64
    }
}

/// `implicit coupling (3 unknowns, Jacobian: directional-derivatives): 10000 macro steps, 1.00 Newton
/// iterations per step (at most 2), 20000 evaluations of a step, 1 Jacobian`.
impl fmt::Display for ImplicitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |count: usize| if count == 1 { "" } else { "s" };
        write!(
            f,
            "implicit coupling ({} unknown{}, Jacobian: {}): {} macro steps, {:.2} Newton \
             iterations per step (at most {}), {} evaluations of a step, {} Jacobian{}",
            self.unknowns,
            plural(self.unknowns),
            self.jacobian,
            self.steps,
            self.mean_iterations(),
            self.most_iterations,
            self.evaluations,
            self.jacobians,
            plural(self.jacobians),
        )?;
        if self.updates > 0 {
            write!(f, ", {} Broyden updates", self.updates)?;
        }
        Ok(())
    }
}
