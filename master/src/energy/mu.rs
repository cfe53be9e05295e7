//! The factor mu that turns a macro step's residual energy into the energy error it causes,
//! `sigma = mu H dP`, by the rules of Rodríguez et al. (2022, Sect. 3.4), which were
//! calibrated on the double linear oscillator with symplectic Euler and a Jacobi schedule:
//!
//! - single-rate: mu = 0.5 when exactly one side of the bond has direct feedthrough, 0 when
//!   neither has (nothing is extrapolated, nothing to correct);
//! - multi-rate, with the step ratio `R = h_df / h_ndf` of the side with direct feedthrough to
//!   the side without:
//!   - `R > 1` (the feedthrough side is slower): ZOH `mu = 0.5 (1.5 - 0.5 / R)`, FOH `0.5`;
//!   - `R < 1` (the feedthrough side is faster): ZOH `0.5`, FOH `0.5 R`;
//!
//!   where ZOH/FOH is the extrapolation order of the faster side; a second-order hold takes
//!   the FOH value.

use std::fmt;

use crate::schedule::Extrapolation;

/// The single-rate value with one direct-feedthrough side.
const SINGLE_RATE: f64 = 0.5;

/// Which sides of a bond have an output that depends directly on an input from the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feedthrough {
    /// Neither side.
    Neither,
    /// The side that outputs the effort.
    Effort,
    /// The side that outputs the flow.
    Flow,
    /// Both sides: the rules do not cover this.
    Both,
}

/// How mu was found for one bond, for the run summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MuRule {
    /// Which side has direct feedthrough.
    pub feedthrough: Feedthrough,
    /// `h_df / h_ndf` (1 when single-rate or without a single feedthrough side).
    pub ratio: f64,
    /// The input extrapolation.
    pub extrapolation: Extrapolation,
    /// The resulting mu.
    pub mu: f64,
}

/// The mu of a bond whose effort side takes `effort_sub_steps` steps per macro step and whose
/// flow side takes `flow_sub_steps`; `None` when both sides have direct feedthrough.
pub fn automatic(
    feedthrough: Feedthrough,
    effort_sub_steps: usize,
    flow_sub_steps: usize,
    extrapolation: Extrapolation,
) -> Option<MuRule> {
    // Step sizes are H / n, so h_df / h_ndf = n_ndf / n_df, exact for the usual ratios.
    let (ratio, mu) = match feedthrough {
        Feedthrough::Both => return None,
        Feedthrough::Neither => (1.0, 0.0),
        Feedthrough::Effort => {
            let ratio = flow_sub_steps as f64 / effort_sub_steps as f64;
            (ratio, multi_rate(ratio, extrapolation))
        }
        Feedthrough::Flow => {
            let ratio = effort_sub_steps as f64 / flow_sub_steps as f64;
            (ratio, multi_rate(ratio, extrapolation))
        }
    };
    Some(MuRule {
        feedthrough,
        ratio,
        extrapolation,
        mu,
    })
}

/// Eqs. (20)-(21) of the paper for the step ratio `ratio = h_df / h_ndf`; single-rate at 1.
fn multi_rate(ratio: f64, extrapolation: Extrapolation) -> f64 {
    let zero_order = extrapolation == Extrapolation::Zoh;
    if ratio > 1.0 && zero_order {
        SINGLE_RATE * (1.5 - 0.5 / ratio)
    } else if ratio < 1.0 && !zero_order {
        SINGLE_RATE * ratio
    } else {
        SINGLE_RATE
    }
}

impl fmt::Display for MuRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.feedthrough {
            Feedthrough::Neither => return write!(f, "no direct feedthrough"),
            Feedthrough::Both => return write!(f, "direct feedthrough on both sides"),
            Feedthrough::Effort => "effort",
            Feedthrough::Flow => "flow",
        };
        if self.ratio == 1.0 {
            write!(f, "single-rate, direct feedthrough on the {side} side")
        } else {
            write!(
                f,
                "multi-rate, direct feedthrough on the {side} side, h_df/h_ndf = {}, {}",
                self.ratio, self.extrapolation
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Extrapolation::{Foh, Soh, Zoh};

    fn mu(feedthrough: Feedthrough, effort_sub_steps: usize, flow_sub_steps: usize, e: Extrapolation) -> f64 {
        automatic(feedthrough, effort_sub_steps, flow_sub_steps, e)
            .unwrap()
            .mu
    }

    #[test]
    fn the_papers_worked_values_come_out_exactly() {
        // Oscillator: the feedthrough side at the macro step of 1 ms, the other side ten
        // times faster (0.1 ms), ZOH: R = 10 and 0.5 (1.5 - 0.05).
        assert_eq!(mu(Feedthrough::Effort, 1, 10, Zoh), 0.725);
        // Crane: the cylinder (feedthrough, effort side) at 0.25 ms = H / 40, the arm at
        // H = 10 ms, FOH: R = 1/40 and 0.5 / 40.
        assert_eq!(mu(Feedthrough::Effort, 40, 1, Foh), 0.0125);
    }

    #[test]
    fn single_rate_and_the_other_branches() {
        for e in [Zoh, Foh, Soh] {
            assert_eq!(mu(Feedthrough::Effort, 1, 1, e), 0.5);
            assert_eq!(mu(Feedthrough::Flow, 3, 3, e), 0.5);
            assert_eq!(mu(Feedthrough::Neither, 1, 10, e), 0.0);
        }
        // Feedthrough side slower, FOH/SOH: the single-rate value.
        assert_eq!(mu(Feedthrough::Effort, 1, 10, Foh), 0.5);
        assert_eq!(mu(Feedthrough::Effort, 1, 10, Soh), 0.5);
        // Feedthrough side faster: ZOH keeps 0.5, FOH scales by R.
        assert_eq!(mu(Feedthrough::Effort, 10, 1, Zoh), 0.5);
        assert_eq!(mu(Feedthrough::Effort, 10, 1, Foh), 0.05);
        // The ratio is always feedthrough side over the other, whichever carries the effort.
        assert_eq!(mu(Feedthrough::Flow, 1, 10, Foh), 0.05);
        assert_eq!(mu(Feedthrough::Flow, 10, 1, Zoh), 0.725);
        assert_eq!(automatic(Feedthrough::Both, 1, 1, Zoh), None);
        let rule = automatic(Feedthrough::Effort, 40, 1, Foh).unwrap();
        assert_eq!(rule.ratio, 0.025);
        assert_eq!(
            rule.to_string(),
            "multi-rate, direct feedthrough on the effort side, h_df/h_ndf = 0.025, FOH"
        );
    }

    #[test]
    fn both_formulas_meet_the_single_rate_value_at_ratio_one() {
        for e in [Zoh, Foh] {
            for ratio in [1.0 - 1e-12, 1.0 + 1e-12] {
                assert!((multi_rate(ratio, e) - 0.5).abs() < 1e-11);
            }
        }
    }
}
