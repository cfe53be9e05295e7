//! What the solver of a system's algebraic loops did over a run: at how many communication
//! points it solved them, in how many passes, and where its Jacobians came from.

use std::fmt;

/// Where the Jacobian of a loop's pass comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopJacobian {
    /// The FMUs' directional derivatives, carried through a pass.
    DirectionalDerivatives,
    /// Forward differences of passes (an FMU of the loop gives no directional derivatives).
    Differences,
}

/// The solver's account of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopReport {
    /// The first loop found, `a.y -> b.u -> b.z -> a.y`.
    pub description: String,
    /// Communication points at which the loops were solved (the start included).
    pub points: usize,
    /// Passes through the participants: the Newton iterations' and the differences'.
    pub passes: usize,
    /// Jacobians made.
    pub jacobians: usize,
    /// Broyden's updates of a Jacobian made by differences.
    pub updates: usize,
    /// Where they came from.
    pub source: LoopJacobian,
}

/// `algebraic loop a.y -> b.u -> a.y: solved at 1001 points in 2002 passes, 1 Jacobian from the
/// FMUs' directional derivatives`.
impl fmt::Display for LoopReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match self.source {
            LoopJacobian::DirectionalDerivatives => "from the FMUs' directional derivatives",
            LoopJacobian::Differences => "by forward differences",
        };
        let plural = if self.jacobians == 1 { "" } else { "s" };
        write!(
            f,
            "algebraic loop {}: solved at {} points in {} passes, {} Jacobian{plural} {source}",
            self.description, self.points, self.passes, self.jacobians
        )?;
        if self.updates > 0 {
            write!(f, ", {} Broyden updates", self.updates)?;
        }
        Ok(())
    }
}
