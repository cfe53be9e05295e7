//! The step-size controller: a PI controller on the normalized error (accept at most 1), as
//! integrators choose their steps (Gustafsson 1991; Hairer and Wanner, Solving ODEs II, IV.2),
//! for an error estimate of order `q` in the step (`err ~ C H^q`).

/// Chooses the next macro step from the errors of the latest ones.
#[derive(Debug, Clone)]
pub struct Controller {
    /// The order `q` of the error in the step.
    order: f64,
    /// The exponent of the integral term, `0.7 / q`.
    integral: f64,
    /// The exponent of the proportional term, `0.4 / q`.
    proportional: f64,
    /// The error of the previous accepted step (1 before any).
    previous: f64,
    /// Whether the step before this one was rejected: the next accepted one does not grow.
    after_rejection: bool,
}

/// The factor a step is multiplied by at least and at most.
const SHRINK: f64 = 0.2;
const GROW: f64 = 5.0;

/// The safety factor on the step the error asks for.
const SAFETY: f64 = 0.9;

impl Controller {
    /// A controller for an error of order `order` in the step.
    pub fn new(order: f64) -> Self {
        Controller {
            order,
            integral: 0.7 / order,
            proportional: 0.4 / order,
            previous: 1.0,
            after_rejection: false,
        }
    }

    /// The next step after a step of `step` accepted with normalized error `error` (at most 1).
    pub fn accepted(&mut self, step: f64, error: f64) -> f64 {
        // A vanishing error says nothing of the right step: grow as far as allowed.
        let error = error.max(1e-10);
        let factor = SAFETY * error.powf(-self.integral) * self.previous.powf(self.proportional);
        self.previous = error;
        let most = if self.after_rejection { 1.0 } else { GROW };
        self.after_rejection = false;
        step * factor.clamp(SHRINK, most)
    }

    /// The step to try again after a step of `step` was rejected with normalized error
    /// `error` (above 1).
    pub fn rejected(&mut self, step: f64, error: f64) -> f64 {
        self.after_rejection = true;
        let factor = if error.is_finite() {
            SAFETY * error.powf(-1.0 / self.order)
        } else {
            SHRINK
        };
        step * factor.clamp(SHRINK, SAFETY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_of_order_q_is_brought_to_the_tolerance_in_one_rejection() {
        // err = (H / H*)^q with H* = 0.01 the step that meets the tolerance exactly.
        let (order, best) = (2.0, 0.01);
        let error = |step: f64| (step / best).powf(order);
        let mut controller = Controller::new(order);
        let retry = controller.rejected(0.04, error(0.04));
        assert!((retry - SAFETY * best).abs() < 1e-12, "{retry}");
        // Accepted after a rejection: no growth.
        assert!(controller.accepted(retry, error(retry)) <= retry);
        // Then the steps settle below the best step, where 0.9 err^(-0.3/q) = 1: the error
        // at 0.9^(q/0.3), the step at 0.9^(1/0.3) of the best.
        let mut step = retry;
        for _ in 0..50 {
            step = controller.accepted(step, error(step));
        }
        let settled = best * SAFETY.powf(1.0 / 0.3);
        assert!(
            (step - settled).abs() < 1e-4 * best,
            "{step} against {settled}"
        );
    }

    #[test]
    fn steps_change_by_a_bounded_factor() {
        let mut controller = Controller::new(1.0);
        assert_eq!(controller.accepted(1.0, 0.0), GROW);
        assert_eq!(controller.rejected(1.0, f64::INFINITY), SHRINK);
        assert_eq!(controller.rejected(1.0, 1e12), SHRINK);
    }
}
