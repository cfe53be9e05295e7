//! Newton's method on a step residual `F(w) = 0`, with the exact Jacobian from dual numbers.

use crate::jacobian::jacobian_into;
use crate::linear::Lu;
use crate::scalar::Dual64;
use crate::small::{Small, SmallMatrix};
use crate::system::StepError;

/// Settings of Newton's method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Newton {
    /// Converged once the last update satisfies `max_i |dw_i| / scale_i <= tolerance`.
    pub tolerance: f64,
    /// Iterations allowed before [`StepError::NoConvergence`].
    pub max_iterations: usize,
}

/// An update this small (in scaled units) that no longer shrinks is taken as the rounding floor:
/// exact Newton contracts quadratically, so a stalled tiny update is noise, not slow progress.
const STALL_LEVEL: f64 = 1e-6;

impl Newton {
    /// Solves `residual(w) = 0` in place, starting from the guess in `w`, and returns the LU
    /// factorization of the last Jacobian `dF/dw` (useful for error-estimate filtering).
    ///
    /// `scale[i] >= 0` is the magnitude against which updates of component `i` are measured
    /// (a zero update always counts as converged); `t` only labels errors. Non-finite residuals or iterates give [`StepError::NonFinite`], a singular
    /// Jacobian [`StepError::Singular`].
    pub fn solve<F>(
        &self,
        t: f64,
        w: &mut [f64],
        scale: &[f64],
        mut residual: F,
    ) -> Result<Lu<f64>, StepError>
    where
        F: FnMut(&[Dual64], &mut [Dual64]),
    {
        let n = w.len();
        let mut previous_norm = f64::INFINITY;
        let mut residual_norm = f64::INFINITY;
        let mut r: Small<f64> = Small::from_elem(0.0, n);
        for _ in 0..self.max_iterations {
            let mut jac: SmallMatrix<f64> = SmallMatrix::from_elem(0.0, n * n);
            jacobian_into(w, &mut residual, &mut jac, &mut r);
            if !r.iter().all(|v| v.is_finite()) {
                return Err(StepError::NonFinite { t });
            }
            residual_norm = r.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
            let lu = Lu::factor(jac, n).map_err(|_| StepError::Singular { t })?;
            let mut update: Small<f64> = r.iter().map(|v| -v).collect();
            lu.solve(&mut update);
            let mut norm = 0.0f64;
            for ((wi, &di), &si) in w.iter_mut().zip(&update).zip(scale) {
                *wi += di;
                norm = norm.max(scaled(di, si));
            }
            if !w.iter().all(|v| v.is_finite()) {
                return Err(StepError::NonFinite { t });
            }
            let stalled = norm <= STALL_LEVEL && norm > 0.5 * previous_norm;
            if norm <= self.tolerance || stalled {
                return Ok(lu);
            }
            previous_norm = norm;
        }
        Err(StepError::NoConvergence { t, residual: residual_norm })
    }
}

/// `|d| / scale`, where a zero update is converged whatever its scale.
fn scaled(d: f64, scale: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        d.abs() / scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::DualNum;

    #[test]
    fn converges_quadratically_on_a_nonlinear_system() {
        // x^2 + y^2 = 4, x y = 1 near (1.9, 0.5).
        let newton = Newton { tolerance: 1e-12, max_iterations: 20 };
        let mut w = [1.9, 0.5];
        newton
            .solve(0.0, &mut w, &[1.0, 1.0], |x, r| {
                r[0] = x[0] * x[0] + x[1] * x[1] - 4.0;
                r[1] = x[0] * x[1] - 1.0;
            })
            .unwrap();
        assert!((w[0] * w[0] + w[1] * w[1] - 4.0).abs() < 1e-14);
        assert!((w[0] * w[1] - 1.0).abs() < 1e-14);
    }

    #[test]
    fn reports_singular_non_finite_and_non_convergent_problems() {
        let newton = Newton { tolerance: 1e-12, max_iterations: 5 };
        let singular = newton.solve(1.0, &mut [1.0, 1.0], &[1.0; 2], |x, r| {
            r[0] = x[0] + x[1];
            r[1] = x[0] + x[1] - 1.0;
        });
        assert_eq!(singular.unwrap_err(), StepError::Singular { t: 1.0 });
        let non_finite = newton.solve(2.0, &mut [-1.0], &[1.0], |x, r| r[0] = x[0].sqrt());
        assert_eq!(non_finite.unwrap_err(), StepError::NonFinite { t: 2.0 });
        // atan has no Newton-convergent start far from its root.
        let diverging = newton.solve(3.0, &mut [2.0], &[1.0], |x, r| r[0] = x[0].atan());
        assert!(matches!(diverging.unwrap_err(), StepError::NoConvergence { t, .. } if t == 3.0));
    }
}
