//! How the components of a system are coupled in time: the schedule kind, the stepping order
//! and the input extrapolation. The system reader checks them, the schedules run them and the
//! energy correction derives its factor from them.

use std::fmt;

use serde::Deserialize;

/// The schedule of a system.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Jacobi or Gauss-Seidel.
    pub kind: ScheduleKind,
    /// Component indices in stepping order (file order for Jacobi).
    pub order: Vec<usize>,
    /// Input extrapolation.
    pub extrapolation: Extrapolation,
}

/// The order in which components advance over a macro step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScheduleKind {
    /// All at once, in parallel.
    #[default]
    Jacobi,
    /// One after another.
    GaussSeidel,
}

impl fmt::Display for ScheduleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleKind::Jacobi => "Jacobi",
            ScheduleKind::GaussSeidel => "Gauss-Seidel",
        })
    }
}

/// How inputs are extrapolated from the communicated values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extrapolation {
    /// Zero-order hold: the latest value.
    #[default]
    Zoh,
    /// First-order hold: the line through the latest two values.
    Foh,
    /// Second-order hold: the parabola through the latest three values.
    Soh,
}

impl Extrapolation {
    /// The degree of the hold polynomial.
    pub fn degree(self) -> usize {
        match self {
            Extrapolation::Zoh => 0,
            Extrapolation::Foh => 1,
            Extrapolation::Soh => 2,
        }
    }
}

impl fmt::Display for Extrapolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Extrapolation::Zoh => "ZOH",
            Extrapolation::Foh => "FOH",
            Extrapolation::Soh => "SOH",
        })
    }
}
