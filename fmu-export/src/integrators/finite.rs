//! The one test of a step's values for NaN and infinity, so that every place reports it alike.

use crate::scalar::Scalar;
use crate::system::StepError;

/// `Err(NonFinite)` at time `t` unless every entry of `values` is finite.
pub(crate) fn require_finite<T: Scalar>(t: f64, values: &[T]) -> Result<(), StepError> {
    if values.iter().all(|v| v.real().is_finite()) {
        Ok(())
    } else {
        Err(StepError::NonFinite { t })
    }
}
