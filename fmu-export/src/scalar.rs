//! The scalar type model equations are written in.
//!
//! Equations are generic over [`Scalar`], so the same code runs with `f64` (simulation) and with
//! dual numbers (exact Jacobians for directional/adjoint derivatives and integrator Newton
//! matrices). Real parts are read with [`DualStruct::re`] where a branch needs a plain number.

pub use num_dual::{Dual64, DualNum, DualNumCopy, DualStruct};

/// A real number, or a (possibly nested) dual number over `f64`.
pub trait Scalar: DualNumCopy + DualNum<Primitive = f64> {
    /// Lifts a constant into the scalar type.
    #[inline]
    fn cst(value: f64) -> Self {
        Self::from(value)
    }

    /// The real part, for branching and diagnostics.
    #[inline]
    fn real(&self) -> f64 {
        self.re()
    }
}

impl<T: DualNumCopy + DualNum<Primitive = f64>> Scalar for T {}

/// Lifts a slice of reals into any scalar type.
pub fn lift<T: Scalar>(values: &[f64]) -> Vec<T> {
    values.iter().map(|&v| T::cst(v)).collect()
}

/// Real parts of a slice of scalars.
pub fn real_parts<T: Scalar>(values: &[T]) -> Vec<f64> {
    values.iter().map(Scalar::real).collect()
}
