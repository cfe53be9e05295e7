//! When to change between the explicit and the implicit method: measured stiffness.
//!
//! On the explicit side, Hairer & Wanner's test for DOPRI5 (*Solving ODEs II*, IV.2): the last
//! two stages of a Dormand–Prince step are both at `t + h`, so `h ‖k7 − k6‖ / ‖y7 − y6‖`
//! estimates `h |λ|` for the dominant eigenvalue `λ` of `df/dx`. When it exceeds 3.25 (near the
//! edge of the method's stability region, about 3.3 on the negative real axis) the step size is
//! held by stability, not accuracy; after 15 such accepted steps without 6 steps below in a row
//! in between, the problem is stiff.
//!
//! On the implicit side, the step size times the spectral radius of the Jacobian the implicit
//! method works with: once it stays well inside the explicit method's stability region for as
//! many steps, the step size is held by accuracy again and the explicit method is cheaper. The
//! margin (a factor of two below the explicit threshold) keeps a problem near the edge from
//! changing method at every few steps.

/// `h |λ|` above which an explicit step counts as limited by stability.
const STIFF_H_LAMBDA: f64 = 3.25;
/// Consecutive stability-limited explicit steps that make a problem stiff.
const STIFF_STEPS: usize = 15;
/// Consecutive explicit steps below the threshold after which the stiff count starts over.
const NON_STIFF_RESET: usize = 6;
/// `h ρ(J)` below which an implicit step would also be stable for the explicit method.
const NON_STIFF_H_RHO: f64 = STIFF_H_LAMBDA / 2.0;
/// Consecutive such implicit steps that make a problem non-stiff again.
const NON_STIFF_STEPS: usize = 15;

/// Counts the evidence for stiffness over accepted steps; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct StiffnessDetector {
    /// Stability-limited explicit steps since the count last started over.
    stiff: usize,
    /// Explicit steps below the threshold in a row.
    non_stiff: usize,
    /// Implicit steps in a row that the explicit method could have taken stably.
    explicit_would_do: usize,
}

impl StiffnessDetector {
    /// A detector with no evidence either way.
    pub fn new() -> Self {
        Self::default()
    }

    /// An accepted explicit step with stiffness estimate `h_lambda` (`h |λ|`, NaN when it
    /// could not be estimated); returns true when the problem has become stiff.
    pub fn explicit_step(&mut self, h_lambda: f64) -> bool {
        if h_lambda > STIFF_H_LAMBDA {
            self.non_stiff = 0;
            self.stiff += 1;
        } else {
            self.non_stiff += 1;
            if self.non_stiff >= NON_STIFF_RESET {
                self.stiff = 0;
            }
        }
        if self.stiff >= STIFF_STEPS {
            *self = Self::default();
            return true;
        }
        false
    }

    /// An accepted implicit step of size `h` with `spectral_radius` the largest eigenvalue
    /// magnitude of the Jacobian; returns true when the problem is no longer stiff.
    pub fn implicit_step(&mut self, h: f64, spectral_radius: f64) -> bool {
        if h * spectral_radius < NON_STIFF_H_RHO {
            self.explicit_would_do += 1;
        } else {
            self.explicit_would_do = 0;
        }
        if self.explicit_would_do >= NON_STIFF_STEPS {
            *self = Self::default();
            return true;
        }
        false
    }
}

/// Hairer's estimate `h ‖k7 − k6‖ / ‖y7 − y6‖` from the last two stages of an explicit step
/// (stage states `y6`, `y7` and their derivatives `k6`, `k7`, all at `t + h`); NaN when the
/// stage states coincide.
pub fn h_lambda(h: f64, y6: &[f64], y7: &[f64], k6: &[f64], k7: &[f64]) -> f64 {
    let squared =
        |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum() };
    let denominator = squared(y7, y6);
    if denominator > 0.0 {
        h.abs() * (squared(k7, k6) / denominator).sqrt()
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_stability_limited_steps_make_a_problem_stiff() {
        let mut detector = StiffnessDetector::new();
        for _ in 0..STIFF_STEPS - 1 {
            assert!(!detector.explicit_step(3.3));
        }
        assert!(detector.explicit_step(3.3));
    }

    #[test]
    fn a_few_accurate_steps_do_not_start_the_count_over_but_six_do() {
        let mut detector = StiffnessDetector::new();
        for _ in 0..10 {
            detector.explicit_step(3.3);
        }
        for _ in 0..NON_STIFF_RESET - 1 {
            detector.explicit_step(1.0);
        }
        for _ in 0..4 {
            assert!(!detector.explicit_step(3.3));
        }
        assert!(detector.explicit_step(3.3), "10 + 5 stiff steps");
        for _ in 0..10 {
            detector.explicit_step(3.3);
        }
        for _ in 0..NON_STIFF_RESET {
            detector.explicit_step(f64::NAN);
        }
        for _ in 0..STIFF_STEPS - 1 {
            assert!(!detector.explicit_step(3.3));
        }
    }

    #[test]
    fn implicit_steps_well_inside_the_explicit_region_end_stiffness() {
        let mut detector = StiffnessDetector::new();
        for _ in 0..NON_STIFF_STEPS - 1 {
            assert!(!detector.implicit_step(1e-3, 1e3));
        }
        assert!(!detector.implicit_step(1e-2, 1e3), "h rho = 10 starts over");
        for _ in 0..NON_STIFF_STEPS - 1 {
            assert!(!detector.implicit_step(1e-3, 1e3));
        }
        assert!(detector.implicit_step(1e-3, 1e3));
    }

    #[test]
    fn the_estimate_is_h_lambda_for_a_linear_problem() {
        let lambda = -250.0;
        let (y6, y7) = ([1.0, 2.0], [1.5, 1.0]);
        let k = |y: &[f64; 2]| [lambda * y[0], lambda * y[1]];
        let estimate = h_lambda(0.01, &y6, &y7, &k(&y6), &k(&y7));
        assert!((estimate - 2.5).abs() < 1e-12, "{estimate}");
        assert!(h_lambda(0.01, &y6, &y6, &k(&y6), &k(&y6)).is_nan());
    }
}
