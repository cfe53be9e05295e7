//! Step-size control: a PI controller (Gustafsson) on accepted steps, an I controller after a
//! rejection, both with a safety factor and bounded change per step.
//!
//! Error norms are in units of the tolerance (a step is accepted when its norm is at most 1).
//! The estimate is the difference of the fourth- and third-order solutions, whose leading
//! term grows like `h^4`.

/// Power of `h` in the leading term of the error estimate.
const ESTIMATE_ORDER: f64 = 4.0;
/// PI gains on the current and the previous error (`0.7 / k`, `0.4 / k`).
const BETA_CURRENT: f64 = 0.7 / ESTIMATE_ORDER;
const BETA_PREVIOUS: f64 = 0.4 / ESTIMATE_ORDER;
/// Safety factor on every proposal.
const SAFETY: f64 = 0.9;
/// Bounds of the change of the step size per step.
const MAX_GROWTH: f64 = 5.0;
const MAX_SHRINK: f64 = 0.2;
/// Step reduction after a failed stage iteration.
pub const FAILURE_SHRINK: f64 = 0.25;
/// Smallest previous error the PI term uses, so that a step that happened to be exact does
/// not hold the next steps back.
const PREVIOUS_FLOOR: f64 = 1e-4;

/// The previous error to remember after accepting a step with error norm `error`.
pub fn remembered(error: f64) -> f64 {
    error.max(PREVIOUS_FLOOR)
}

/// The factor on the step size after accepting a step with error norm `error <= 1`, given the
/// error norm of the previous accepted step.
pub fn after_acceptance(error: f64, previous: f64) -> f64 {
    let factor = if error == 0.0 {
        MAX_GROWTH
    } else {
        SAFETY * error.powf(-BETA_CURRENT) * previous.max(PREVIOUS_FLOOR).powf(BETA_PREVIOUS)
    };
    bounded(factor)
}

/// The factor (below one) on the step size after rejecting a step with error norm `error > 1`.
pub fn after_rejection(error: f64) -> f64 {
    let factor = if error.is_finite() {
        SAFETY * error.powf(-1.0 / ESTIMATE_ORDER)
    } else {
        0.0
    };
    bounded(factor).min(SAFETY)
}

fn bounded(factor: f64) -> f64 {
    if factor.is_nan() {
        MAX_SHRINK
    } else {
        factor.clamp(MAX_SHRINK, MAX_GROWTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_at_the_tolerance_keeps_the_step_near_its_size() {
        let steady = after_acceptance(1.0, 1.0);
        assert!((steady - SAFETY).abs() < 1e-15);
        // A smaller error grows the step, a growing error trend damps the growth.
        assert!(after_acceptance(1e-4, 1.0) > 1.5);
        assert!(after_acceptance(0.5, 0.01) < after_acceptance(0.5, 1.0));
        assert_eq!(after_acceptance(0.0, 1.0), MAX_GROWTH);
        assert_eq!(after_acceptance(1e-30, 1.0), MAX_GROWTH);
    }

    #[test]
    fn a_rejection_shrinks_by_the_fourth_root_within_bounds() {
        assert!((after_rejection(16.0) - SAFETY / 2.0).abs() < 1e-15);
        assert_eq!(after_rejection(1e12), MAX_SHRINK);
        assert_eq!(after_rejection(f64::INFINITY), MAX_SHRINK);
        assert_eq!(after_rejection(f64::NAN), MAX_SHRINK);
        assert!(after_rejection(1.0 + 1e-12) <= SAFETY);
    }
}
