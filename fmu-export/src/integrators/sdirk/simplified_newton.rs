//! Simplified Newton iteration for one implicit stage: the iteration matrix is factored once
//! and reused, its convergence rate is monitored, and the matrix is re-linearized at the
//! current iterate when the rate degrades.

use crate::linear::Lu;
use crate::system::StepError;

/// Iterations allowed per stage (counting those after a re-linearization).
const MAX_ITERATIONS: usize = 12;

/// A contraction rate above this, with the update still above tolerance, calls for a fresh
/// iteration matrix.
const SLOW_RATE: f64 = 0.5;

/// The factored iteration matrix and whether it was built at the current stage's iterate.
pub struct IterationMatrix {
    /// LU factors of the matrix.
    pub lu: Lu<f64>,
    /// Whether the matrix is the exact Jacobian at an iterate of the current stage.
    pub current: bool,
}

/// Solves `residual(k) = 0` from the guess in `k`.
///
/// `norm(update, k)` measures an update in units of the convergence tolerance. The iteration
/// stops once the error left after the last update, estimated from the observed contraction
/// rate `theta` as `norm * theta / (1 - theta)`, is at most one; the first update stops it
/// when it is itself within tolerance. An update within tolerance that no longer contracts is
/// rounding noise and stops it too. When convergence is slow, `relinearize(k)` provides the
/// exact iteration matrix at `k` (once per stage). `t` labels errors.
pub fn solve<R, N, L>(
    t: f64,
    k: &mut [f64],
    matrix: &mut IterationMatrix,
    mut residual: R,
    norm: N,
    mut relinearize: L,
) -> Result<(), StepError>
where
    R: FnMut(&[f64], &mut [f64]),
    N: Fn(&[f64], &[f64]) -> f64,
    L: FnMut(&[f64]) -> Result<Lu<f64>, StepError>,
{
    let mut r = vec![0.0; k.len()];
    let mut previous: Option<f64> = None;
    for _ in 0..MAX_ITERATIONS {
        residual(k, &mut r);
        if !r.iter().all(|v| v.is_finite()) {
            return Err(StepError::NonFinite { t });
        }
        let mut update: Vec<f64> = r.iter().map(|v| -v).collect();
        matrix.lu.solve(&mut update);
        k.iter_mut().zip(&update).for_each(|(ki, di)| *ki += di);
        if !k.iter().all(|v| v.is_finite()) {
            return Err(StepError::NonFinite { t });
        }
        let size = norm(&update, k);
        let rate = previous.map(|p| if p > 0.0 { size / p } else { 0.0 });
        let converged = match rate {
            None => size <= 1.0,
            Some(theta) if theta < 1.0 => size * theta <= 1.0 - theta,
            Some(_) => size <= 1.0,
        };
        if converged {
            return Ok(());
        }
        let slow = rate.is_some_and(|theta| theta > SLOW_RATE);
        if slow && !matrix.current {
            *matrix = IterationMatrix { lu: relinearize(k)?, current: true };
            previous = None;
            continue;
        }
        if rate.is_some_and(|theta| theta >= 1.0) {
            break;
        }
        previous = Some(size);
    }
    residual(k, &mut r);
    let size = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    Err(StepError::NoConvergence { t, residual: size })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jacobian::jacobian;

    fn lu_of<F: FnMut(&[crate::scalar::Dual64], &mut [crate::scalar::Dual64])>(
        x: &[f64],
        f: F,
    ) -> Lu<f64> {
        let (jac, _) = jacobian(x, x.len(), f);
        Lu::factor(jac, x.len()).unwrap()
    }

    #[test]
    fn converges_with_a_stale_matrix_and_relinearizes_when_slow() {
        // x^3 + x = 10 (root 2); the matrix is taken far from the root.
        let f = |x: &[f64], r: &mut [f64]| r[0] = x[0] * x[0] * x[0] + x[0] - 10.0;
        let norm = |d: &[f64], _: &[f64]| d[0].abs() / 1e-10;
        let mut relinearizations = 0;
        let mut k = [2.2];
        let mut matrix = IterationMatrix {
            lu: lu_of(&[3.5], |x, r| r[0] = x[0] * x[0] * x[0] + x[0]),
            current: false,
        };
        solve(0.0, &mut k, &mut matrix, f, norm, |x| {
            relinearizations += 1;
            Ok(lu_of(x, |x, r| r[0] = x[0] * x[0] * x[0] + x[0]))
        })
        .unwrap();
        assert!((k[0] - 2.0).abs() < 1e-10, "{k:?}");
        // Rate ~ 1 - 13/37.75 with the stale matrix: slow, so the matrix was refreshed once.
        assert_eq!(relinearizations, 1);
        assert!(matrix.current);
    }

    #[test]
    fn a_diverging_iteration_reports_no_convergence() {
        // atan with a matrix that overshoots: updates grow.
        let mut k = [1.5];
        let mut matrix = IterationMatrix { lu: Lu::factor(vec![0.1], 1).unwrap(), current: true };
        let error = solve(
            4.0,
            &mut k,
            &mut matrix,
            |x, r| r[0] = x[0].atan(),
            |d, _| d[0].abs() / 1e-10,
            |_| unreachable!("the matrix is current"),
        )
        .unwrap_err();
        assert!(matches!(error, StepError::NoConvergence { t, .. } if t == 4.0), "{error}");
    }
}
