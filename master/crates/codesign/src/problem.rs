//! A co-design problem for one plant: the target (with its unknown entries), the LQR weights,
//! the initial deviation and the explicit-Euler horizon.

use nalgebra::{DMatrix, DVector};

use super::error::CodesignError;
use super::plant::Dims;

/// Everything Algorithm 1 needs besides the plant and the design d.
#[derive(Debug, Clone)]
pub struct Problem {
    /// x_tgt: known entries, and initial guesses for the entries in `unknown_x`.
    pub x_target: Vec<f64>,
    /// u_tgt: known entries, and initial guesses for the entries in `unknown_u`.
    pub u_target: Vec<f64>,
    /// Indices of the entries of x_tgt solved for (θ, first part).
    pub unknown_x: Vec<usize>,
    /// Indices of the entries of u_tgt solved for (θ, second part).
    pub unknown_u: Vec<usize>,
    /// Rows of r that make the steady-state residual r̃ (as many as unknowns).
    pub residual_rows: Vec<usize>,
    /// State weight Q (symmetric positive semi-definite).
    pub q: DMatrix<f64>,
    /// Control weight S (symmetric positive definite).
    pub s: DMatrix<f64>,
    /// Initial deviation δx⁽⁰⁾ from the target (fixed, the paper's convention).
    pub dx0: DVector<f64>,
    /// Explicit-Euler step Δt.
    pub dt: f64,
    /// Number of steps n_t.
    pub steps: usize,
}

impl Problem {
    /// Checks the sizes against the plant and the weights' symmetry and definiteness.
    pub fn validate(&self, dims: Dims) -> Result<(), CodesignError> {
        let size = |item: &str, expected: usize, got: usize| {
            if expected == got {
                Ok(())
            } else {
                Err(CodesignError::Dimension {
                    item: item.to_string(),
                    expected,
                    got,
                })
            }
        };
        size(
            "x_target entries (plant states)",
            dims.x,
            self.x_target.len(),
        )?;
        size(
            "u_target entries (plant inputs)",
            dims.u,
            self.u_target.len(),
        )?;
        size("initial deviation entries", dims.x, self.dx0.len())?;
        size("Q rows", dims.x, self.q.nrows())?;
        size("Q columns", dims.x, self.q.ncols())?;
        size("S rows", dims.u, self.s.nrows())?;
        size("S columns", dims.u, self.s.ncols())?;
        size(
            "residual rows (one per unknown target entry)",
            self.unknown_x.len() + self.unknown_u.len(),
            self.residual_rows.len(),
        )?;
        let index =
            |item: &str, list: &[usize], bound: usize| match list.iter().find(|&&i| i >= bound) {
                Some(&i) => Err(CodesignError::Dimension {
                    item: format!("{item} index {i} (0-based) out of range"),
                    expected: bound,
                    got: i + 1,
                }),
                None => Ok(()),
            };
        index("unknown x_target", &self.unknown_x, dims.x)?;
        index("unknown u_target", &self.unknown_u, dims.u)?;
        index("residual row", &self.residual_rows, dims.x)?;
        for (name, m) in [("Q", &self.q), ("S", &self.s)] {
            if (m - m.transpose()).norm() > 1e-12 * m.norm() {
                return Err(CodesignError::NotSymmetric { name });
            }
        }
        if self.s.clone().cholesky().is_none() {
            return Err(CodesignError::NotPositiveDefinite { name: "S" });
        }
        let q_min = self.q.clone().symmetric_eigenvalues().min();
        if q_min < -1e-12 * self.q.norm() {
            return Err(CodesignError::NotPositiveSemiDefinite {
                name: "Q",
                eigenvalue: q_min,
            });
        }
        if !(self.dt > 0.0 && self.dt.is_finite()) || self.steps == 0 {
            return Err(CodesignError::Setting(format!(
                "dt must be positive and finite and steps at least 1 (dt = {}, steps = {})",
                self.dt, self.steps
            )));
        }
        Ok(())
    }
}
