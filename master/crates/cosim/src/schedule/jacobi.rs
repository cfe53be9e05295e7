//! The Jacobi macro step: every participant advances from the values communicated up to the
//! start of the step, so within a step the participants do not depend on each other and the
//! numbers do not depend on where each one advances. A step runs either in turn on the calling
//! thread or in parallel on the calling thread together with a pool of threads that lives for
//! the whole run; the [`Chooser`] picks the layout of every step. A participant is advanced by
//! one thread at a time (the parallel step hands each one out once), and its results are
//! settled in component order. Between parallel steps no thread sleeps (for up to
//! [`KEEP_WARM`]), because waking one costs more than most steps.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::layout::{Chooser, Layout};
use super::{settle, Advance, Histories, Holds, Participant, Progress, Recording};
use crate::coupling::Threads;
use crate::error::{Error, Result};

/// How a Jacobi run lays out its macro steps.
pub(super) struct Jacobi {
    /// The threads of the parallel steps; none when every step runs in turn.
    pool: Option<Pool>,
    chooser: Chooser,
    /// The layout of work on every participant after the run (a gradient's reverse sweep),
    /// timed apart from the macro steps' because its work per participant differs.
    sweeps: Chooser,
    /// How each participant's last step ended, in component order (kept between steps).
    advances: Vec<Result<Advance>>,
}

/// The threads that advance participants in a parallel step besides the calling one.
struct Pool {
    threads: ThreadPool,
    /// The number of parallel steps started, which the threads watch between steps.
    generation: Arc<AtomicU64>,
}

impl Jacobi {
    /// The layout for `participants` participants with `threads`: one thread runs every step
    /// in turn; a given number more runs every step in parallel; `auto` sizes the pool to the
    /// cores and runs each step in the layout found faster. `time` is the start time, for
    /// messages.
    pub fn new(threads: Threads, participants: usize, time: f64) -> Result<Jacobi> {
        let (size, adaptive) = match threads {
            Threads::Count(n) => (n.get(), false),
            Threads::Auto => (
                std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
                true,
            ),
        };
        let chooser = || {
            if adaptive {
                Chooser::adaptive()
            } else {
                Chooser::fixed(Layout::Parallel)
            }
        };
        let size = size.min(participants);
        if size < 2 {
            return Ok(Jacobi {
                pool: None,
                chooser: Chooser::fixed(Layout::InTurn),
                sweeps: Chooser::fixed(Layout::InTurn),
                advances: Vec::with_capacity(participants),
            });
        }
        // The calling thread is one of the `size` threads of a parallel step.
        let threads = ThreadPoolBuilder::new()
            .num_threads(size - 1)
            .thread_name(|i| format!("tandem jacobi {i}"))
            .build()
            .map_err(|e| Error::Simulation {
                time,
                message: format!("cannot start {size} threads for the Jacobi schedule: {e}"),
            })?;
        Ok(Jacobi {
            pool: Some(Pool {
                threads,
                generation: Arc::default(),
            }),
            chooser: chooser(),
            sweeps: chooser(),
            advances: Vec::with_capacity(participants),
        })
    }

    /// Advances every participant from `from` to `to` with `holds` and records their values
    /// at `to` in the histories as `recording` says.
    pub fn step(
        &mut self,
        participants: &mut [Participant],
        histories: &mut Histories,
        (from, to): (f64, f64),
        holds: Holds,
        recording: Recording,
    ) -> Result<Progress> {
        let shared = &*histories;
        let advance = |p: &mut Participant| p.advance(shared, from, to, holds);
        let advances = &mut self.advances;
        advances.clear();
        advances.resize_with(participants.len(), || Ok(Advance::Reached));
        let items = participants.iter_mut().zip(advances.iter_mut());
        let work = |(participant, result): (&mut Participant, &mut Result<Advance>)| {
            *result = advance(participant);
        };
        run_chosen(self.pool.as_ref(), &mut self.chooser, items, work);
        settle_all(histories, participants, to, advances, recording)
    }

    /// Runs `work` on every participant with its item of `items` (one per participant, in
    /// component order), in turn or in parallel as the sweeps' [`Chooser`] says.
    pub fn for_each<I>(
        &mut self,
        participants: &mut [Participant],
        items: I,
        work: impl Fn(usize, &mut Participant, I::Item) + Sync,
    ) where
        I: ExactSizeIterator + Send,
        I::Item: Send,
    {
        let items = participants.iter_mut().zip(items).enumerate();
        let work = |(index, (participant, item))| work(index, participant, item);
        run_chosen(self.pool.as_ref(), &mut self.sweeps, items, work);
    }
}

/// Runs `work` on every item in the layout `chooser` picks (in parallel only on a `pool`), and
/// reports the time taken when the chooser asks for it.
fn run_chosen<I>(
    pool: Option<&Pool>,
    chooser: &mut Chooser,
    items: I,
    work: impl Fn(I::Item) + Sync,
) where
    I: ExactSizeIterator + Send,
    I::Item: Send,
{
    let (layout, timed) = chooser.next();
    let started = timed.then(Instant::now);
    match (pool, layout) {
        (Some(pool), Layout::Parallel) => pool.run(items, work),
        _ => items.for_each(work),
    }
    if let Some(started) = started {
        chooser.record(layout, started.elapsed());
    }
}

/// How long the pool's threads stay busy after a parallel step, waiting for the next one,
/// before they go to sleep. A sleeping thread lets its processor halt, and on a virtual
/// machine waking it again took hundreds of microseconds (2 engine mounts on 2 cores: 336 us
/// per macro step of 770), so the pool keeps the processors warm through the master's work
/// between steps, which is much shorter than this.
const KEEP_WARM: Duration = Duration::from_millis(1);

impl Pool {
    /// Runs `work` on every item on the calling thread and the pool's threads together, each
    /// thread taking the next item not yet taken (an item is a participant with what its work
    /// writes). No thread sleeps on the way: the caller works instead of handing the whole
    /// step over and waits for the last item by spinning, and the pool's threads spin for the
    /// next step (see [`KEEP_WARM`]). Rayon boxes the two jobs it is handed per step, two
    /// small allocations against participants' steps that pay for a pool.
    fn run<I>(&self, items: I, work: impl Fn(I::Item) + Sync)
    where
        I: ExactSizeIterator + Send,
        I::Item: Send,
    {
        let total = items.len();
        let finished = AtomicUsize::new(0);
        let queue = Mutex::new(items);
        let take_until_done = || loop {
            // Only `next` runs under the lock, so a panicking participant cannot poison it.
            let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some(item) = next else {
                break;
            };
            // Counted even when the participant panics, so that the caller's wait ends and
            // the scope passes the panic on.
            let _counted = Counted(&finished);
            work(item);
        };
        // Ends the threads' wait for this step (see `keep_warm`).
        self.generation.fetch_add(1, Ordering::Release);
        self.threads.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, _| take_until_done());
            take_until_done();
            spin_until(|| finished.load(Ordering::Acquire) == total, None);
        });
        self.keep_warm();
    }

    /// Keeps the pool's threads spinning until the next parallel step starts (the step count
    /// changes) or [`KEEP_WARM`] has passed.
    fn keep_warm(&self) {
        let generation = Arc::clone(&self.generation);
        let current = generation.load(Ordering::Acquire);
        self.threads.spawn_broadcast(move |_| {
            spin_until(
                || generation.load(Ordering::Acquire) != current,
                Some(KEEP_WARM),
            );
        });
    }
}

/// Spins until `done` holds or, with a `limit`, that long has passed; without a limit, lets
/// other threads run now and then after a millisecond (the awaited thread may have been
/// preempted).
fn spin_until(done: impl Fn() -> bool, limit: Option<Duration>) {
    // Reading the clock costs tens of nanoseconds: only every so many spins.
    const SPINS_PER_LOOK: u32 = 256;
    let started = Instant::now();
    let mut spins = 0u32;
    while !done() {
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(SPINS_PER_LOOK) {
            let waited = started.elapsed();
            match limit {
                Some(limit) if waited > limit => return,
                None if waited > KEEP_WARM => std::thread::yield_now(),
                _ => {}
            }
        }
    }
}

/// Adds one to its counter when dropped, on unwinding too.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// Once every participant has finished its step (`advances`, in component order, emptied
/// here), reports the first failure, else records all values at `to` in the histories; the
/// first termination request in component order ends the run.
fn settle_all(
    histories: &mut Histories,
    participants: &[Participant],
    to: f64,
    advances: &mut Vec<Result<Advance>>,
    recording: Recording,
) -> Result<Progress> {
    if let Some(failed) = advances.iter().position(Result::is_err) {
        return advances.swap_remove(failed).map(|_| Progress::Reached);
    }
    let mut progress = Progress::Reached;
    // Every entry is `Ok` now, so flattening keeps the component order.
    for (index, advance) in advances.drain(..).flatten().enumerate() {
        let settled = settle(
            histories,
            &participants[index],
            index,
            to,
            advance,
            recording,
        );
        if progress == Progress::Reached {
            progress = settled;
        }
    }
    Ok(progress)
}
