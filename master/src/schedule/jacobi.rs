//! The Jacobi macro step: every participant advances at once, each on its own thread, from
//! the values communicated up to the start of the step.

use super::{settle, Histories, Participant, Progress};
use crate::error::Result;

/// Advances every participant from `from` to `to` in parallel; the first one runs on the
/// calling thread, each other one on a scoped thread of its own.
pub(super) fn step(
    participants: &mut [Participant],
    histories: &mut Histories,
    from: f64,
    to: f64,
    degree: usize,
) -> Result<Progress> {
    let shared: &Histories = histories;
    let advances = std::thread::scope(|scope| {
        let Some((first, rest)) = participants.split_first_mut() else {
            return Vec::new();
        };
        let handles: Vec<_> = rest
            .iter_mut()
            .map(|p| scope.spawn(move || p.advance(shared, from, to, degree)))
            .collect();
        let mut advances = vec![first.advance(shared, from, to, degree)];
        advances.extend(handles.into_iter().map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        advances
    });
    // Every participant has finished; report the first failure in component order.
    let advances = advances.into_iter().collect::<Result<Vec<_>>>()?;
    let mut progress = Progress::Reached;
    for (index, advance) in advances.into_iter().enumerate() {
        let settled = settle(histories, &participants[index], index, to, advance);
        if progress == Progress::Reached {
            progress = settled;
        }
    }
    Ok(progress)
}
