//! What can go wrong in a co-design analysis, each saying what to change.

use nalgebra::Complex;

/// The errors of the co-design analysis and its adjoint.
#[derive(Debug, thiserror::Error)]
pub enum CodesignError {
    /// A weight matrix that must be positive semi-definite has a negative eigenvalue.
    #[error("{name} is not positive semi-definite (eigenvalue {eigenvalue:.3e})")]
    NotPositiveSemiDefinite {
        /// "Q".
        name: &'static str,
        /// Its smallest eigenvalue.
        eigenvalue: f64,
    },
    /// A weight matrix that must be symmetric positive definite is not.
    #[error("{name} is not symmetric positive definite (its Cholesky factorization fails)")]
    NotPositiveDefinite {
        /// "Q" or "S".
        name: &'static str,
    },
    /// A weight matrix is not symmetric.
    #[error("{name} is not symmetric")]
    NotSymmetric {
        /// "Q" or "S".
        name: &'static str,
    },
    /// The Hamiltonian has eigenvalues on the imaginary axis: no stabilizing CARE solution.
    #[error(
        "the Riccati equation has no stabilizing solution: (J, G) is not stabilizable or \
         (J, Q) is not detectable at the target (an unstable mode the input cannot reach, or one Q does not see)"
    )]
    NotStabilizable,
    /// The CARE solution is not accurate enough.
    #[error("the Riccati solution is inaccurate: relative residual {relative_residual:.3e} (limit 1e-9)")]
    CareResidual {
        /// The relative residual reached.
        relative_residual: f64,
    },
    /// The LQR gain does not stabilize the linearization.
    #[error("the LQR closed loop J + G W is not stable: eigenvalue {eigenvalue}")]
    NotStabilizing {
        /// An eigenvalue with non-negative real part.
        eigenvalue: Complex<f64>,
    },
    /// A Lyapunov equation with eigenvalues of A summing to zero.
    #[error("the Lyapunov equation is singular: two eigenvalues of the closed loop sum to zero")]
    SingularLyapunov,
    /// Newton did not find the steady state.
    #[error(
        "the steady state was not found: Newton stopped after {iterations} iterations with residual \
         {residual:.3e}; give a better initial guess for the unknown target entries or choose other residual rows"
    )]
    SteadyState {
        /// Iterations done.
        iterations: usize,
        /// Max-norm of the residual rows at the end.
        residual: f64,
    },
    /// The steady-state Jacobian is singular.
    #[error(
        "the steady-state Jacobian (chosen residual rows × unknown entries) is singular; choose rows of r \
         that depend on the unknowns"
    )]
    SingularSteadyState,
    /// The explicit-Euler closed loop blew up.
    #[error(
        "the closed loop diverges under explicit Euler at step {step} (t = {time}); use a smaller dt \
         (dt |λ| = {stiffness:.3} for the fastest closed-loop eigenvalue λ; keep it well below 2)"
    )]
    Diverged {
        /// The first step whose state is not finite or has left every reasonable bound.
        step: usize,
        /// Its time.
        time: f64,
        /// Δt times the largest closed-loop eigenvalue magnitude.
        stiffness: f64,
    },
    /// The problem's sizes do not fit the plant.
    #[error("{item}: expected {expected}, got {got}")]
    Dimension {
        /// What was sized wrongly.
        item: String,
        /// The size the plant needs.
        expected: usize,
        /// The size given.
        got: usize,
    },
    /// A setting out of its range.
    #[error("{0}")]
    Setting(String),
    /// An FMU call failed.
    #[error(transparent)]
    Fmu(#[from] tandem_ode::Error),
    /// The plant could not be evaluated.
    #[error("plant: {0}")]
    Plant(String),
}

impl From<fmi_host::Error> for CodesignError {
    fn from(error: fmi_host::Error) -> Self {
        CodesignError::Fmu(error.into())
    }
}
