//! The Gauss-Seidel macro step: participants advance one after another, each seeing the
//! values of those that already reached the end of the step.

use super::{settle, Histories, Participant, Progress};
use crate::error::Result;

/// Advances the participants from `from` to `to` in `order`, adding each one's values at
/// `to` to the histories before the next one starts.
pub(super) fn step(
    participants: &mut [Participant],
    histories: &mut Histories,
    order: &[usize],
    from: f64,
    to: f64,
    degree: usize,
) -> Result<Progress> {
    for &index in order {
        let advance = participants[index].advance(histories, from, to, degree)?;
        let progress = settle(histories, &participants[index], index, to, advance);
        if progress != Progress::Reached {
            return Ok(progress);
        }
    }
    Ok(Progress::Reached)
}
