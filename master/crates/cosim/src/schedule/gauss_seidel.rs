//! The Gauss-Seidel macro step: participants advance one after another, each seeing the
//! values of those that already reached the end of the step.

use super::{settle, Histories, Holds, Participant, Progress, Recording};
use crate::error::Result;

/// Advances the participants from `from` to `to` with `holds` in `order`, recording each
/// one's values at `to` in the histories (as `recording` says) before the next one starts.
pub(super) fn step(
    participants: &mut [Participant],
    histories: &mut Histories,
    order: &[usize],
    (from, to): (f64, f64),
    holds: Holds,
    recording: Recording,
) -> Result<Progress> {
    for &index in order {
        let advance = participants[index].advance(histories, from, to, holds)?;
        let progress = settle(
            histories,
            &participants[index],
            index,
            to,
            advance,
            recording,
        );
        if progress != Progress::Reached {
            return Ok(progress);
        }
    }
    Ok(Progress::Reached)
}
