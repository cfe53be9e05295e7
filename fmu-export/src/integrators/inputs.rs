//! The step's inputs as the methods read them: evaluated at a time, or lifted into another
//! scalar type.

use crate::scalar::{lift, Scalar};
use crate::small::{zeros, Small};
use crate::system::StepInputs;

/// The inputs `u(t)`, in the scalar type of `t` (a dual time or dual coefficients give their
/// derivatives); on the stack, since every residual evaluation needs them.
pub(crate) fn inputs_at<C: Scalar, T: Scalar + From<C>>(u: &StepInputs<C>, t: T) -> Small<T> {
    let mut u_t = zeros(u.len());
    u.eval(t, &mut u_t);
    u_t
}

/// The inputs over a step with their coefficients lifted into the scalar type `T`.
pub fn lift_inputs<T: Scalar>(u: &StepInputs<f64>) -> StepInputs<T> {
    StepInputs {
        t0: u.t0,
        coefficients: u.coefficients.iter().map(|c| lift(c)).collect(),
    }
}
