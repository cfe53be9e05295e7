//! The problem a solver integrates: the right-hand side `x' = f(t, x)` and, for implicit
//! methods, its Jacobian `df/dx` and which of its entries may be non-zero.

use super::jacobian::Jacobian;
use super::sparsity::Sparsity;

/// An ordinary differential equation `x' = f(t, x)`.
///
/// Closures `FnMut(t, x, dx) -> Result<(), E>` are ODEs whose Jacobian is approximated by
/// forward differences; a problem that knows its Jacobian overrides [`Ode::jacobian`].
pub trait Ode {
    /// What evaluating the equation can fail with.
    type Error;

    /// Writes `f(t, x)` into `dx`.
    fn derivatives(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), Self::Error>;

    /// The pattern of `df/dx`, when known: the implicit methods then store the Jacobian on
    /// it and evaluate it one product per colour of its columns rather than per column.
    fn sparsity(&self) -> Option<&Sparsity> {
        None
    }

    /// Writes `df/dx` at `(t, x)` into `jacobian` (`n x n`, on the pattern of
    /// [`Ode::sparsity`] or dense), given `fx = f(t, x)` and the typical magnitude of each
    /// state (for difference increments).
    fn jacobian(
        &mut self,
        t: f64,
        x: &[f64],
        fx: &[f64],
        typical: &[f64],
        jacobian: &mut Jacobian,
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

/// The Jacobian of `ode` by forward differences, one evaluation per colour of its columns
/// (per column when it is dense): the columns of a colour share no row, so one evaluation with
/// all of them shifted separates them. The increment `sqrt(eps) max(|x_j|, typical_j)`
/// balances truncation and rounding error.
pub fn forward_differences<O: Ode + ?Sized>(
    ode: &mut O,
    t: f64,
    x: &[f64],
    fx: &[f64],
    typical: &[f64],
    jacobian: &mut Jacobian,
) -> Result<(), O::Error> {
    let mut shifted = x.to_vec();
    let mut difference = vec![0.0; x.len()];
    for colour in 0..jacobian.colours() {
        for &j in jacobian.columns(colour) {
            let increment = f64::EPSILON.sqrt() * x[j].abs().max(typical[j]).max(f64::MIN_POSITIVE);
            shifted[j] = x[j] + increment;
        }
        ode.derivatives(t, &shifted, &mut difference)?;
        for (d, f) in difference.iter_mut().zip(fx) {
            *d -= f;
        }
        // The increments actually represented in floating point.
        jacobian.store(colour, &difference, |j| shifted[j] - x[j]);
        for &j in jacobian.columns(colour) {
            shifted[j] = x[j];
        }
    }
    Ok(())
}
