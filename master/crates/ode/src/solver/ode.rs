//! The problem a solver integrates: the right-hand side `x' = f(t, x)` and, for implicit
//! methods, its Jacobian `df/dx`.

use nalgebra::DMatrix;

/// An ordinary differential equation `x' = f(t, x)`.
///
/// Closures `FnMut(t, x, dx) -> Result<(), E>` are ODEs whose Jacobian is approximated by
/// forward differences; a problem that knows its Jacobian overrides [`Ode::jacobian`].
pub trait Ode {
    /// What evaluating the equation can fail with.
    type Error;

    /// Writes `f(t, x)` into `dx`.
    fn derivatives(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), Self::Error>;

    /// Writes `df/dx` at `(t, x)` into `jacobian` (`n x n`), given `fx = f(t, x)` and the
    /// typical magnitude of each state (for difference increments).
    fn jacobian(
        &mut self,
        t: f64,
        x: &[f64],
        fx: &[f64],
        typical: &[f64],
        jacobian: &mut DMatrix<f64>,
    ) -> Result<(), Self::Error> {
        forward_differences(self, t, x, fx, typical, jacobian)
    }
}

impl<E, F> Ode for F
where
    F: FnMut(f64, &[f64], &mut [f64]) -> Result<(), E>,
{
    type Error = E;

    fn derivatives(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), E> {
        self(t, x, dx)
    }
}

/// The Jacobian of `ode` by forward differences, one evaluation per column. The increment
/// `sqrt(eps) max(|x_j|, typical_j)` balances truncation and rounding error.
pub fn forward_differences<O: Ode + ?Sized>(
    ode: &mut O,
    t: f64,
    x: &[f64],
    fx: &[f64],
    typical: &[f64],
    jacobian: &mut DMatrix<f64>,
) -> Result<(), O::Error> {
    let mut shifted = x.to_vec();
    let mut f_shifted = vec![0.0; x.len()];
    for j in 0..x.len() {
        let increment = f64::EPSILON.sqrt() * x[j].abs().max(typical[j]).max(f64::MIN_POSITIVE);
        shifted[j] = x[j] + increment;
        // The increment actually represented in floating point.
        let step = shifted[j] - x[j];
        ode.derivatives(t, &shifted, &mut f_shifted)?;
        for i in 0..x.len() {
            jacobian[(i, j)] = (f_shifted[i] - fx[i]) / step;
        }
        shifted[j] = x[j];
    }
    Ok(())
}
