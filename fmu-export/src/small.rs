//! Short vectors kept on the stack: the temporaries of a step (forces, mass matrix, inputs at
//! a time, Newton updates) are a few entries long for most models, and heap-allocating them
//! several times per residual evaluation used to cost more than the arithmetic.

use smallvec::SmallVec;

use crate::scalar::Scalar;

/// Entries of a [`Small`] vector held inline before it moves to the heap. Small on purpose:
/// the buffer is copied whenever the vector moves.
pub const INLINE: usize = 4;

/// Entries of a [`SmallMatrix`] held inline: a 4 x 4 matrix.
pub const MATRIX_INLINE: usize = 16;

/// A vector of up to [`INLINE`] entries on the stack (larger ones on the heap).
pub type Small<T> = SmallVec<[T; INLINE]>;

/// A matrix of up to [`MATRIX_INLINE`] entries on the stack (larger ones on the heap).
pub type SmallMatrix<T> = SmallVec<[T; MATRIX_INLINE]>;

/// `n` zeros.
pub fn zeros<T: Scalar>(n: usize) -> Small<T> {
    SmallVec::from_elem(T::cst(0.0), n)
}

/// `n` zeros, for a matrix of `n` entries.
pub fn matrix_zeros<T: Scalar>(n: usize) -> SmallMatrix<T> {
    SmallVec::from_elem(T::cst(0.0), n)
}
