//! Short vectors kept on the stack: the temporaries of a step (forces, mass matrix, inputs at
//! a time, Newton updates) are a few entries long for most models, and heap-allocating them
//! several times per residual evaluation used to cost more than the arithmetic.

use smallvec::SmallVec;

use crate::scalar::Scalar;

/// Entries held inline before a [`Small`] vector moves to the heap: a 4 x 4 matrix.
pub const INLINE: usize = 16;

/// A vector of up to [`INLINE`] entries on the stack (larger ones on the heap).
pub type Small<T> = SmallVec<[T; INLINE]>;

/// `n` zeros.
pub fn zeros<T: Scalar>(n: usize) -> Small<T> {
    SmallVec::from_elem(T::cst(0.0), n)
}
