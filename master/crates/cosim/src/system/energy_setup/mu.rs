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
//!
//! In the paper only the faster side extrapolates; the slower side (and both sides in
//! single-rate runs) hold their inputs. When the feedthrough side is not the faster one but
//! extrapolates its inputs, its output at the communication point is far more accurate than
//! the rules assume (measured: single-rate FOH gives an energy error of about 0.05 times the
//! residual energy, not 0.5), so the rules do not apply and mu must be given.

use std::fmt;

use crate::coupling::Extrapolation;

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

/// One side of a bond: how often it steps and how it extrapolates its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    /// Steps per macro step.
    pub sub_steps: usize,
    /// The input extrapolation.
    pub extrapolation: Extrapolation,
}

/// How mu was found for one bond, for the run summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MuRule {
    /// Which side has direct feedthrough.
    pub feedthrough: Feedthrough,
    /// `h_df / h_ndf` (1 when single-rate or without a single feedthrough side).
    pub ratio: f64,
    /// The input extrapolation of the faster side.
    pub extrapolation: Extrapolation,
    /// The resulting mu.
    pub mu: f64,
}

/// Why the rules give no mu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncovered {
    /// Both sides have direct feedthrough.
    BothSidesFeedThrough,
    /// The feedthrough side is not the faster one, yet extrapolates its inputs.
    FeedthroughSideExtrapolates(Extrapolation),
}

impl fmt::Display for Uncovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Uncovered::BothSidesFeedThrough => write!(
                f,
                "both sides have outputs that depend directly on inputs from the other \
                 (ModelStructure); the rules assume one side does"
            ),
            Uncovered::FeedthroughSideExtrapolates(e) => write!(
                f,
                "the side with direct feedthrough is not faster than the other but extrapolates \
                 its inputs ({e}); the rules assume it holds them (ZOH)"
            ),
        }
    }
}

/// The mu of a bond from its two sides.
pub fn automatic(feedthrough: Feedthrough, effort: Side, flow: Side) -> Result<MuRule, Uncovered> {
    let (feeding, other) = match feedthrough {
        Feedthrough::Both => return Err(Uncovered::BothSidesFeedThrough),
        Feedthrough::Neither => {
            return Ok(MuRule {
                feedthrough,
                ratio: 1.0,
                extrapolation: effort.extrapolation,
                mu: 0.0,
            })
        }
        Feedthrough::Effort => (effort, flow),
        Feedthrough::Flow => (flow, effort),
    };
    // Step sizes are H / n, so h_df / h_ndf = n_ndf / n_df, exact for the usual ratios.
    let ratio = other.sub_steps as f64 / feeding.sub_steps as f64;
    let faster = if ratio < 1.0 {
        feeding.extrapolation
    } else {
        if feeding.extrapolation != Extrapolation::Zoh {
            return Err(Uncovered::FeedthroughSideExtrapolates(
                feeding.extrapolation,
            ));
        }
        other.extrapolation
    };
    Ok(MuRule {
        feedthrough,
        ratio,
        extrapolation: faster,
        mu: multi_rate(ratio, faster),
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
                "multi-rate, direct feedthrough on the {side} side, h_df/h_ndf = {}, {} on the \
                 faster side",
                self.ratio, self.extrapolation
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Extrapolation::{Foh, Soh, Zoh};

    /// mu with the feedthrough side holding its inputs unless it is the faster side.
    fn mu(
        feedthrough: Feedthrough,
        effort_sub_steps: usize,
        flow_sub_steps: usize,
        faster: Extrapolation,
    ) -> f64 {
        let side = |sub_steps: usize, other: usize, feeds: bool| Side {
            sub_steps,
            extrapolation: if feeds && sub_steps <= other {
                Zoh
            } else {
                faster
            },
        };
        let feeds_effort = feedthrough == Feedthrough::Effort;
        let effort = side(effort_sub_steps, flow_sub_steps, feeds_effort);
        let flow = side(flow_sub_steps, effort_sub_steps, !feeds_effort);
        automatic(feedthrough, effort, flow).unwrap().mu
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
        // Feedthrough side slower, FOH/SOH on the faster side: the single-rate value.
        assert_eq!(mu(Feedthrough::Effort, 1, 10, Foh), 0.5);
        assert_eq!(mu(Feedthrough::Effort, 1, 10, Soh), 0.5);
        // Feedthrough side faster: ZOH keeps 0.5, FOH scales by R.
        assert_eq!(mu(Feedthrough::Effort, 10, 1, Zoh), 0.5);
        assert_eq!(mu(Feedthrough::Effort, 10, 1, Foh), 0.05);
        // The ratio is always feedthrough side over the other, whichever carries the effort.
        assert_eq!(mu(Feedthrough::Flow, 1, 10, Foh), 0.05);
        assert_eq!(mu(Feedthrough::Flow, 10, 1, Zoh), 0.725);
        let rule = automatic(
            Feedthrough::Effort,
            Side {
                sub_steps: 40,
                extrapolation: Foh,
            },
            Side {
                sub_steps: 1,
                extrapolation: Foh,
            },
        )
        .unwrap();
        assert_eq!(rule.ratio, 0.025);
        assert_eq!(
            rule.to_string(),
            "multi-rate, direct feedthrough on the effort side, h_df/h_ndf = 0.025, FOH on the \
             faster side"
        );
    }

    #[test]
    fn the_rules_do_not_cover_two_feedthrough_sides_or_an_extrapolating_slower_one() {
        let side = |sub_steps, extrapolation| Side {
            sub_steps,
            extrapolation,
        };
        assert_eq!(
            automatic(Feedthrough::Both, side(1, Zoh), side(1, Zoh)),
            Err(Uncovered::BothSidesFeedThrough)
        );
        // Single-rate FOH and a slower feedthrough side with FOH: not the paper's set-up.
        for (effort, flow) in [(side(1, Foh), side(1, Foh)), (side(1, Foh), side(10, Foh))] {
            assert_eq!(
                automatic(Feedthrough::Effort, effort, flow),
                Err(Uncovered::FeedthroughSideExtrapolates(Foh))
            );
        }
        // The slower side without feedthrough may extrapolate: its one step starts at the
        // communication point, where every hold gives the communicated value.
        assert_eq!(
            automatic(Feedthrough::Effort, side(10, Foh), side(1, Soh))
                .unwrap()
                .mu,
            0.05
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
