//! Reverse-mode differentiation of model code: [`Rev`] is a real number whose operations are
//! recorded on a per-thread tape, and it implements [`Scalar`](crate::Scalar) like the dual
//! numbers do, so the model equations run on it unchanged.
//!
//! Forward mode (one dual evaluation per known) makes `vᵀ ∂f/∂x` cost as many evaluations as
//! there are knowns; here it costs one taped evaluation and one sweep back over the tape,
//! whatever the number of knowns ([`vjp_into`]). Nested as `Dual<Rev>` (forward over
//! reverse) it gives second-order contractions ([`jacobian_adjoint_into`]).
//!
//! The tape and the work arrays live in thread-locals whose capacity is kept between calls,
//! so that a product allocates nothing once the tape has grown to the model's size.

mod arithmetic;
mod functions;
mod jacobian_adjoint;
mod tape;

pub use jacobian_adjoint::jacobian_adjoint_into;
pub use tape::{vjp_into, with_scratch, Recording};

/// A real number recorded on the thread's tape: its value and the tape slot its adjoint
/// accumulates in (none for a constant, a number that depends on no recorded input).
#[derive(Clone, Copy, Debug)]
pub struct Rev {
    value: f64,
    slot: u32,
}

impl Rev {
    /// A constant: it depends on no input, and operations on constants alone record nothing.
    #[inline]
    pub fn constant(value: f64) -> Rev {
        Rev {
            value,
            slot: tape::CONSTANT,
        }
    }

    /// The value.
    #[inline]
    pub fn value(&self) -> f64 {
        self.value
    }

    /// Whether the number depends on no recorded input.
    #[inline]
    pub fn is_constant(&self) -> bool {
        self.slot == tape::CONSTANT
    }
}

#[cfg(test)]
mod tests;
