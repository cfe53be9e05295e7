//! Newton's method on an implicit equation `F(w) = 0` of a step (HHT's whole step, an ESDIRK
//! stage): the factored iteration matrix is kept while the iteration contracts fast and
//! rebuilt at the current iterate when it slows down (simplified Newton, as in SUNDIALS and
//! Hairer & Wanner's RADAU5), with the convergence judged from the observed contraction rate.
//!
//! Keeping the matrix saves the Jacobian (one dual-number evaluation per unknown, or per lane
//! group) and its factorization on every iteration after the first; the residual alone is
//! evaluated in `f64`. The root the iteration stops at satisfies the same tolerance either way,
//! and a linearization for adjoints is taken afresh at it, so it stays exact.

use crate::linear::Lu;
use crate::small::{matrix_zeros, zeros, Small, SmallMatrix};
use crate::system::StepError;

use super::finite::require_finite;

/// The factored iteration matrix and whether it was built at an iterate of the current solve.
pub struct IterationMatrix {
    /// LU factors of the matrix.
    pub lu: Lu<f64>,
    /// Whether the matrix was built at an iterate of the current solve (rather than handed
    /// over from an earlier one).
    pub current: bool,
}

/// The equation one solve works on.
pub trait NewtonProblem {
    /// Writes the residual `F(w)`.
    fn residual(&mut self, w: &[f64], r: &mut [f64]);

    /// Writes the iteration matrix at `w` (`n x n`, row-major) into `matrix`. Writes `F(w)`
    /// into `r` too and returns `true` when it computes the residual on the way (a dual-number
    /// Jacobian does); otherwise returns `false` and leaves `r` to
    /// [`residual`](Self::residual).
    fn linearize(
        &mut self,
        w: &[f64],
        matrix: &mut [f64],
        r: &mut [f64],
    ) -> Result<bool, StepError>;

    /// The size of `update`, which has just taken the iterate to `w`, in units of the
    /// tolerance (at most 1 is within tolerance).
    fn size(&self, update: &[f64], w: &[f64]) -> f64;
}

/// When the iteration gets a fresh matrix, built at the current iterate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refresh {
    /// After every update (full Newton).
    Always,
    /// At most once per solve: a matrix built during the solve is kept to its end (an ESDIRK
    /// stage, whose matrix `I - h gamma J` only needs `J` roughly).
    Once,
    /// Whenever the iteration slows down, so that a hard step becomes full Newton.
    WhenSlow,
}

/// What ends the iteration (besides a stall, see [`Newton::stall_level`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acceptance {
    /// The last update is within tolerance: full Newton, whose error after it is of the
    /// order of its square.
    Update,
    /// The error left after the last update, estimated from the contraction rate `theta` as
    /// `size theta / (1 - theta)`, is within tolerance (the first update: the update itself).
    Estimate,
    /// Both: an update within tolerance and an estimated error within tolerance.
    UpdateAndEstimate,
}

/// Settings of Newton's method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Newton {
    /// Iterations allowed (counting those after a refresh) before
    /// [`StepError::NoConvergence`].
    pub max_iterations: usize,
    /// A contraction rate above this, with the iteration not yet converged, calls for a fresh
    /// iteration matrix.
    pub slow_rate: f64,
    /// How often the matrix may be rebuilt within a solve.
    pub refresh: Refresh,
    /// What ends the iteration.
    pub acceptance: Acceptance,
    /// An update taken with a freshly built matrix, at most this large (in tolerance units),
    /// that is not half the previous one, is the rounding floor: exact Newton contracts
    /// quadratically, so a stalled update is noise, not slow progress. `None`: no floor.
    pub stall_level: Option<f64>,
}

/// A contraction rate at or above this is no contraction.
const DIVERGING: f64 = 1.0;

impl Newton {
    /// Solves `F(w) = 0` in place from the guess in `w`, with the iteration matrix in
    /// `matrix` (built at the guess when `None`, and left there for the caller to reuse).
    ///
    /// The iteration stops once the error left after the last update, estimated from the
    /// observed contraction rate, is within tolerance (the first update: once it is itself
    /// within tolerance), or an update within tolerance no longer contracts (rounding noise).
    /// Non-finite residuals or iterates give [`StepError::NonFinite`], a singular matrix
    /// [`StepError::Singular`]; `t` labels errors.
    pub fn solve<P: NewtonProblem>(
        &self,
        t: f64,
        w: &mut [f64],
        matrix: &mut Option<IterationMatrix>,
        problem: &mut P,
    ) -> Result<(), StepError> {
        let n = w.len();
        let mut r: Small<f64> = zeros(n);
        let mut update: Small<f64> = zeros(n);
        let mut previous: Option<f64> = None;
        for _ in 0..self.max_iterations {
            let fresh = matrix.is_none();
            let mut built: Option<SmallMatrix<f64>> = None;
            if fresh {
                let jacobian = built.insert(matrix_zeros(n * n));
                if !problem.linearize(w, jacobian, &mut r)? {
                    problem.residual(w, &mut r);
                }
            } else {
                problem.residual(w, &mut r);
            }
            require_finite(t, &r)?;
            if let Some(jacobian) = built {
                let lu = Lu::factor(jacobian, n).map_err(|_| StepError::Singular { t })?;
                *matrix = Some(IterationMatrix { lu, current: true });
            }
            let Some(IterationMatrix { lu, .. }) = matrix.as_ref() else {
                // Built above when there was none.
                return Err(StepError::Singular { t });
            };
            update.iter_mut().zip(&r).for_each(|(d, &ri)| *d = -ri);
            lu.solve(&mut update);
            w.iter_mut().zip(&update).for_each(|(wi, &di)| *wi += di);
            require_finite(t, w)?;
            let size = problem.size(&update, w);
            let rate = previous.map(|p| if p > 0.0 { size / p } else { 0.0 });
            if self.converged(size, rate, fresh) {
                return Ok(());
            }
            let slow = rate.is_some_and(|theta| theta > self.slow_rate);
            let refresh = match self.refresh {
                Refresh::Always => true,
                Refresh::WhenSlow => slow,
                Refresh::Once => slow && !matrix.as_ref().is_some_and(|m| m.current),
            };
            if refresh {
                *matrix = None;
                // A matrix kept to the end of the solve starts a new rate estimate; the others
                // keep it, to tell a stall of full Newton from slow progress.
                if self.refresh == Refresh::Once {
                    previous = None;
                    continue;
                }
            } else if rate.is_some_and(|theta| theta >= DIVERGING) {
                break;
            }
            previous = Some(size);
        }
        problem.residual(w, &mut r);
        let size = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        Err(StepError::NoConvergence { t, residual: size })
    }

    /// Whether an update of `size` (tolerance units), at contraction rate `rate` (none for the
    /// first update with a matrix), taken with a matrix built at its start point (`fresh`),
    /// ends the iteration.
    fn converged(&self, size: f64, rate: Option<f64>, fresh: bool) -> bool {
        let estimate = || match rate {
            None => size <= 1.0,
            Some(theta) if theta < DIVERGING => size * theta <= 1.0 - theta,
            Some(_) => size <= 1.0,
        };
        let accepted = match self.acceptance {
            Acceptance::Update => size <= 1.0,
            Acceptance::Estimate => estimate(),
            Acceptance::UpdateAndEstimate => size <= 1.0 && estimate(),
        };
        let stalled = fresh
            && self.stall_level.is_some_and(|level| size <= level)
            && rate.is_some_and(|theta| theta > 0.5);
        accepted || stalled
    }
}

/// `|d| / scale`, where a zero update is converged whatever its scale.
pub(super) fn scaled(d: f64, scale: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        d.abs() / scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jacobian::jacobian;
    use crate::scalar::{Dual64, DualNum};

    /// Full Newton as HHT runs it.
    const STEP: Newton = Newton {
        max_iterations: 20,
        slow_rate: 0.25,
        refresh: Refresh::WhenSlow,
        acceptance: Acceptance::UpdateAndEstimate,
        stall_level: Some(1e4),
    };

    /// An ESDIRK stage's settings.
    const STAGE: Newton = Newton {
        max_iterations: 12,
        slow_rate: 0.5,
        refresh: Refresh::Once,
        acceptance: Acceptance::Estimate,
        stall_level: None,
    };

    /// `f` with a dual-number Jacobian, counting evaluations; sizes relative to `tolerance`.
    struct Counted<F> {
        f: F,
        tolerance: f64,
        residuals: usize,
        linearizations: usize,
    }

    impl<F: FnMut(&[Dual64], &mut [Dual64])> Counted<F> {
        fn new(f: F, tolerance: f64) -> Self {
            Counted {
                f,
                tolerance,
                residuals: 0,
                linearizations: 0,
            }
        }
    }

    impl<F: FnMut(&[Dual64], &mut [Dual64])> NewtonProblem for Counted<F> {
        fn residual(&mut self, w: &[f64], r: &mut [f64]) {
            self.residuals += 1;
            let x: Vec<Dual64> = w.iter().map(|&v| Dual64::from(v)).collect();
            let mut out = vec![Dual64::from(0.0); r.len()];
            (self.f)(&x, &mut out);
            r.iter_mut().zip(&out).for_each(|(ri, o)| *ri = o.re);
        }

        fn linearize(
            &mut self,
            w: &[f64],
            matrix: &mut [f64],
            r: &mut [f64],
        ) -> Result<bool, StepError> {
            self.linearizations += 1;
            let (jac, value) = jacobian(w, r.len(), &mut self.f);
            r.copy_from_slice(&value);
            matrix.copy_from_slice(&jac);
            Ok(true)
        }

        fn size(&self, update: &[f64], _w: &[f64]) -> f64 {
            update.iter().fold(0.0f64, |m, d| m.max(d.abs())) / self.tolerance
        }
    }

    #[test]
    fn converges_on_a_nonlinear_system_keeping_the_matrix_while_it_contracts() {
        // x^2 + y^2 = 4, x y = 1 near (1.9, 0.5).
        let f = |x: &[Dual64], r: &mut [Dual64]| {
            r[0] = x[0] * x[0] + x[1] * x[1] - 4.0;
            r[1] = x[0] * x[1] - 1.0;
        };
        let mut w = [1.9, 0.5];
        let mut problem = Counted::new(f, 1e-12);
        let mut matrix = None;
        STEP.solve(0.0, &mut w, &mut matrix, &mut problem).unwrap();
        assert!((w[0] * w[0] + w[1] * w[1] - 4.0).abs() < 1e-13, "{w:?}");
        assert!((w[0] * w[1] - 1.0).abs() < 1e-13, "{w:?}");
        // The guess is close: the matrix built there carries the iteration to the end.
        assert_eq!(problem.linearizations, 1);
        assert!(problem.residuals >= 1);
        assert!(matrix.is_some_and(|m| m.current));
    }

    #[test]
    fn a_kept_matrix_reaches_the_root_full_newton_reaches() {
        // The same root to the same tolerance, whether the matrix is kept or rebuilt each time.
        let f = |x: &[Dual64], r: &mut [Dual64]| {
            r[0] = x[0].powi(3) + x[1] - 3.0;
            r[1] = x[1].exp() - x[0];
        };
        let tolerance = 1e-10;
        let full = Newton {
            refresh: Refresh::Always,
            ..STEP
        };
        let mut results = Vec::new();
        for newton in [STEP, full] {
            let (mut w, mut matrix) = ([1.3, 0.2], None);
            let mut problem = Counted::new(f, tolerance);
            newton
                .solve(0.0, &mut w, &mut matrix, &mut problem)
                .unwrap();
            results.push((w, problem.linearizations));
        }
        let ((kept, kept_matrices), (rebuilt, rebuilt_matrices)) = (results[0], results[1]);
        assert!(
            kept_matrices < rebuilt_matrices,
            "{kept_matrices} vs {rebuilt_matrices}"
        );
        for (a, b) in kept.iter().zip(rebuilt) {
            assert!((a - b).abs() <= 2.0 * tolerance, "{kept:?} vs {rebuilt:?}");
        }
    }

    #[test]
    fn a_stale_matrix_is_rebuilt_once_per_stage_when_slow() {
        // x^3 + x = 10 (root 2); the matrix is taken far from the root.
        let f = |x: &[Dual64], r: &mut [Dual64]| r[0] = x[0] * x[0] * x[0] + x[0] - 10.0;
        let (stale, _) = jacobian(&[3.5], 1, f);
        let lu = Lu::factor(stale, 1).unwrap();
        let mut matrix = Some(IterationMatrix { lu, current: false });
        let mut k = [2.2];
        let mut problem = Counted::new(f, 1e-10);
        STAGE.solve(0.0, &mut k, &mut matrix, &mut problem).unwrap();
        assert!((k[0] - 2.0).abs() < 1e-10, "{k:?}");
        // Rate ~ 1 - 13/37.75 with the stale matrix: slow, so the matrix was rebuilt once.
        assert_eq!(problem.linearizations, 1);
        assert!(matrix.is_some_and(|m| m.current));
    }

    #[test]
    fn reports_singular_non_finite_and_non_convergent_problems() {
        let solve = |newton: Newton, w: &mut [f64], f: fn(&[Dual64], &mut [Dual64])| {
            newton.solve(1.0, w, &mut None, &mut Counted::new(f, 1e-12))
        };
        let singular = solve(STEP, &mut [1.0, 1.0], |x, r| {
            r[0] = x[0] + x[1];
            r[1] = x[0] + x[1] - 1.0;
        });
        assert_eq!(singular.unwrap_err(), StepError::Singular { t: 1.0 });
        let non_finite = solve(STEP, &mut [-1.0], |x, r| r[0] = x[0].sqrt());
        assert_eq!(non_finite.unwrap_err(), StepError::NonFinite { t: 1.0 });
        // atan has no Newton-convergent start far from its root (full Newton overflows to
        // infinity within 20 iterations, so it gets 5).
        for newton in [
            Newton {
                max_iterations: 5,
                ..STEP
            },
            STAGE,
        ] {
            let diverging = solve(newton, &mut [2.0], |x, r| r[0] = x[0].atan());
            let error = diverging.unwrap_err();
            assert!(
                matches!(error, StepError::NoConvergence { t, .. } if t == 1.0),
                "{error}"
            );
        }
    }
}
