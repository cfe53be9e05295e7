//! The number type the energy formulas are written in: `f64` when a run corrects its bonds, dual
//! numbers when a gradient needs their exact derivatives. Both run the same code, so the
//! derivative is that of what the run computed; branches (the cap, `v_epsilon`) test the real
//! part, and a dual number then carries the derivative of the branch taken.

use num_dual::DualNum;

/// A real number, or a dual number over `f64`.
pub trait Scalar: DualNum<Primitive = f64> + Copy {
    /// The real part, for branching.
    fn real(&self) -> f64 {
        self.re()
    }
}

impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}
