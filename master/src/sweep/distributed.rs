//! A sweep across the ranks of an MPI job, handed out dynamically: each rank asks rank 0 for a
//! run index, runs it, and sends the row back with its next request, so that a rank with short
//! runs does more of them. Rank 0's main thread does the handing out (it alone calls MPI,
//! funneled threading) while a worker thread of rank 0 takes indices from the same counter and
//! runs sets like every other rank. Rows travel as bytes ([`wire`]): the metrics by their bits,
//! so that rank 0's table is the local sweep's bit for bit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use mpi::traits::*;
use mpi::Tag;

use super::progress::SweepProgress;
use super::table::RunRow;
use super::Runner;
use crate::cluster::malformed;
use crate::cluster::mpi_world::Mpi;
use crate::cluster::wire::{decode, encode};

/// A worker's message to rank 0: the row of its last run (none in the first request), which
/// asks for the next index at the same time.
const REQUEST: Tag = 1;
/// Rank 0's answer: the index of the next run, or [`DONE`].
const ASSIGN: Tag = 2;
/// No runs left: the worker stops.
const DONE: u64 = u64::MAX;
/// Rank 0's main thread sleeps this long after a request when none is waiting, so that a burst
/// of short runs is answered fast...
const FIRST_POLL: Duration = Duration::from_micros(50);
/// ... and twice as long after every empty look, up to this, which a worker may wait for its
/// next index: looking every 50 us through runs of 0.2 s cost about a quarter of a core on two
/// cores, taken from the worker threads (docs/benchmarks.md, "MPI on the idle machine").
const LONGEST_POLL: Duration = Duration::from_millis(1);

/// A row on the wire: the run's index, its metrics or error message, and its wall time.
type WireRow = (usize, Result<Vec<f64>, String>, Duration);

/// Runs every set of `runner` on the ranks of `mpi` (collective); rank 0 gets the rows in run
/// order, the other ranks `None`.
pub fn runs(mpi: &Mpi, runner: &Runner<'_>, bar: &SweepProgress) -> Option<Vec<RunRow>> {
    if mpi.rank() == 0 {
        Some(hand_out(mpi, runner, bar))
    } else {
        work(mpi, runner);
        None
    }
}

/// Rank 0: answers requests until every other rank was told [`DONE`], while a worker thread
/// runs sets too; returns the rows by run index.
fn hand_out(mpi: &Mpi, runner: &Runner<'_>, bar: &SweepProgress) -> Vec<RunRow> {
    let world = mpi.world();
    let count = runner.count();
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<RunRow>>> = Mutex::new(vec![None; count]);
    let store = |index: usize, row: RunRow| {
        bar.finished(row.outcome.is_ok());
        rows.lock().expect("no thread panics holding the rows")[index] = Some(row);
    };
    std::thread::scope(|scope| {
        scope.spawn(|| loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= count {
                break;
            }
            store(index, runner.run(index));
        });
        let mut working = mpi.size() - 1;
        let mut poll = FIRST_POLL;
        while working > 0 {
            let Some((message, status)) = world
                .any_process()
                .immediate_matched_probe_with_tag(REQUEST)
            else {
                std::thread::sleep(poll);
                poll = (poll * 2).min(LONGEST_POLL);
                continue;
            };
            poll = FIRST_POLL;
            let (bytes, _) = (message, status).matched_receive_vec::<u8>();
            let source = status.source_rank();
            let sender = usize::try_from(source).expect("ranks are not negative");
            match decode::<Option<WireRow>>(&bytes) {
                Some(Some((index, outcome, wall_time))) if index < count => {
                    let parameters = runner.sets.values[index].clone();
                    store(
                        index,
                        RunRow {
                            parameters,
                            outcome,
                            wall_time,
                        },
                    );
                }
                Some(None) => {}
                // A rank that cannot be understood gets no more work; its runs are redone here.
                _ => {
                    eprintln!("{}", malformed(sender));
                    world.process_at_rank(source).send_with_tag(&DONE, ASSIGN);
                    working -= 1;
                    continue;
                }
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            let answer = if index < count {
                index as u64
            } else {
                working -= 1;
                DONE
            };
            world.process_at_rank(source).send_with_tag(&answer, ASSIGN);
        }
    });
    let rows = rows
        .into_inner()
        .expect("no thread panicked holding the rows");
    rows.into_iter()
        .enumerate()
        .map(|(index, row)| row.unwrap_or_else(|| runner.run(index)))
        .collect()
}

/// A rank other than 0: asks for indices and runs them until told [`DONE`].
fn work(mpi: &Mpi, runner: &Runner<'_>) {
    let root = mpi.world().process_at_rank(0);
    let mut last: Option<WireRow> = None;
    loop {
        root.send_with_tag(&encode(&last)[..], REQUEST);
        let (index, _) = root.receive_with_tag::<u64>(ASSIGN);
        if index == DONE {
            break;
        }
        let index = usize::try_from(index).expect("rank 0 sends indices of the sets");
        let row = runner.run(index);
        last = Some((index, row.outcome, row.wall_time));
    }
}
