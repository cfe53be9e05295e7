//! The Jacobi macro step: every participant advances from the values communicated up to the
//! start of the step, so within a step the participants do not depend on each other and the
//! numbers do not depend on where each one advances. A step runs either in turn on the calling
//! thread or in parallel on a pool of threads that lives for the whole run; the [`Chooser`]
//! picks the layout of every step. A participant is advanced by one thread at a time (the
//! parallel step hands each one out once), and its results are settled in component order.

use std::num::NonZeroUsize;
use std::time::Instant;

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use super::layout::{Chooser, Layout};
use super::{settle, Advance, Histories, Participant, Progress};
use crate::coupling::Threads;
use crate::error::{Error, Result};

/// How a Jacobi run lays out its macro steps.
pub(super) struct Jacobi {
    /// The pool of the parallel steps; none when every step runs in turn.
    pool: Option<ThreadPool>,
    chooser: Chooser,
    /// How each participant's last step ended, in component order (kept between steps).
    advances: Vec<Result<Advance>>,
}

impl Jacobi {
    /// The layout for `participants` participants with `threads`: one thread runs every step
    /// in turn; a given number more runs every step in parallel; `auto` sizes the pool to the
    /// cores and runs each step in the layout found faster. `time` is the start time, for
    /// messages.
    pub fn new(threads: Threads, participants: usize, time: f64) -> Result<Jacobi> {
        let (size, chooser) = match threads {
            Threads::Count(n) => (n.get(), Chooser::fixed(Layout::Parallel)),
            Threads::Auto => (
                std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
                Chooser::adaptive(),
            ),
        };
        let size = size.min(participants);
        if size < 2 {
            return Ok(Jacobi {
                pool: None,
                chooser: Chooser::fixed(Layout::InTurn),
                advances: Vec::with_capacity(participants),
            });
        }
        let pool = ThreadPoolBuilder::new()
            .num_threads(size)
            .thread_name(|i| format!("tandem jacobi {i}"))
            .build()
            .map_err(|e| Error::Simulation {
                time,
                message: format!("cannot start {size} threads for the Jacobi schedule: {e}"),
            })?;
        Ok(Jacobi {
            pool: Some(pool),
            chooser,
            advances: Vec::with_capacity(participants),
        })
    }

    /// Advances every participant from `from` to `to` and adds their values at `to` to the
    /// histories.
    pub fn step(
        &mut self,
        participants: &mut [Participant],
        histories: &mut Histories,
        from: f64,
        to: f64,
        degree: usize,
    ) -> Result<Progress> {
        let (layout, timed) = self.chooser.next();
        let started = timed.then(Instant::now);
        let shared = &*histories;
        let advance = |p: &mut Participant| p.advance(shared, from, to, degree);
        let advances = &mut self.advances;
        match (&self.pool, layout) {
            // One participant per task, so that an idle thread can take any of them.
            (Some(pool), Layout::Parallel) => pool.install(|| {
                participants
                    .par_iter_mut()
                    .with_max_len(1)
                    .map(advance)
                    .collect_into_vec(advances)
            }),
            _ => {
                advances.clear();
                advances.extend(participants.iter_mut().map(advance));
            }
        }
        if let Some(started) = started {
            self.chooser.record(layout, started.elapsed());
        }
        settle_all(histories, participants, to, advances)
    }
}

/// Once every participant has finished its step (`advances`, in component order, emptied
/// here), reports the first failure, else adds all values at `to` to the histories; the first
/// termination request in component order ends the run.
fn settle_all(
    histories: &mut Histories,
    participants: &[Participant],
    to: f64,
    advances: &mut Vec<Result<Advance>>,
) -> Result<Progress> {
    if let Some(failed) = advances.iter().position(Result::is_err) {
        return advances.swap_remove(failed).map(|_| Progress::Reached);
    }
    let mut progress = Progress::Reached;
    // Every entry is `Ok` now, so flattening keeps the component order.
    for (index, advance) in advances.drain(..).flatten().enumerate() {
        let settled = settle(histories, &participants[index], index, to, advance);
        if progress == Progress::Reached {
            progress = settled;
        }
    }
    Ok(progress)
}
