//! The scheduler's queue of pending clock ticks: model partitions run in time order and, at
//! one time, from the lowest `priority` value up (the highest priority first); ticks of equal
//! time and priority run in the order they were scheduled.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A pending activation of the model partition of one input clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// When the clock ticks.
    pub time: f64,
    /// The clock's `priority` (a lower value runs first).
    pub priority: u32,
    /// The clock, as an index the caller chose.
    pub clock: usize,
}

/// A tick with its place in the scheduling order, for the heap.
#[derive(Debug, Clone, Copy)]
struct Entry {
    tick: Tick,
    sequence: u64,
}

impl Entry {
    fn key(&self) -> (f64, u32, u64) {
        (self.tick.time, self.tick.priority, self.sequence)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// Reversed, so that the max-heap yields the earliest tick first.
    fn cmp(&self, other: &Self) -> Ordering {
        let (time, priority, sequence) = self.key();
        let (other_time, other_priority, other_sequence) = other.key();
        other_time
            .total_cmp(&time)
            .then(other_priority.cmp(&priority))
            .then(other_sequence.cmp(&sequence))
    }
}

/// Ticks whose times differ by less than this, relative to the time, are one instant: clocks
/// computed as `shift + k * interval` with different intervals meet at times that differ only
/// in the last bits.
const SAME_INSTANT: f64 = 1e-12;

/// Whether `time` is at or before the instant `now`.
fn due(time: f64, now: f64) -> bool {
    time <= now + SAME_INSTANT * now.abs().max(1.0)
}

/// The pending ticks.
#[derive(Debug, Default)]
pub struct TickQueue {
    heap: BinaryHeap<Entry>,
    scheduled: u64,
}

impl TickQueue {
    /// An empty queue.
    pub fn new() -> Self {
        TickQueue::default()
    }

    /// Schedules `tick`.
    pub fn push(&mut self, tick: Tick) {
        self.heap.push(Entry {
            tick,
            sequence: self.scheduled,
        });
        self.scheduled += 1;
    }

    /// Drops the pending ticks of `clock` (a countdown clock being re-scheduled).
    pub fn cancel(&mut self, clock: usize) {
        self.heap.retain(|entry| entry.tick.clock != clock);
    }

    /// The time of the earliest pending tick.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|entry| entry.tick.time)
    }

    /// The time of the earliest pending tick if it comes before the instant `end`: a tick at
    /// `end`, to the last bits, belongs to the interval that begins there.
    pub fn next_time_before(&self, end: f64) -> Option<f64> {
        self.next_time().filter(|&time| !due(end, time))
    }

    /// The next tick to run at the instant `now`: the pending tick of highest priority among
    /// those due at `now`, including ticks scheduled while partitions of `now` ran.
    pub fn pop_due(&mut self, now: f64) -> Option<Tick> {
        let due_first = self
            .heap
            .iter()
            .filter(|entry| due(entry.tick.time, now))
            .max_by(|a, b| {
                // Among the ticks of the instant, priority decides before the last bits of time.
                (b.tick.priority, b.sequence).cmp(&(a.tick.priority, a.sequence))
            })
            .copied()?;
        self.heap
            .retain(|entry| entry.sequence != due_first.sequence);
        Some(due_first.tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(time: f64, priority: u32, clock: usize) -> Tick {
        Tick {
            time,
            priority,
            clock,
        }
    }

    /// The clocks of the ticks due at each instant, instant after instant.
    fn drain(queue: &mut TickQueue) -> Vec<(f64, Vec<usize>)> {
        let mut order = Vec::new();
        while let Some(now) = queue.next_time() {
            let mut clocks = Vec::new();
            while let Some(tick) = queue.pop_due(now) {
                clocks.push(tick.clock);
            }
            order.push((now, clocks));
        }
        order
    }

    #[test]
    fn ticks_run_in_time_order_whatever_their_priority() {
        let mut queue = TickQueue::new();
        queue.push(tick(2.0, 0, 0));
        queue.push(tick(1.0, 9, 1));
        queue.push(tick(0.5, 5, 2));
        assert_eq!(
            drain(&mut queue),
            [(0.5, vec![2]), (1.0, vec![1]), (2.0, vec![0])]
        );
    }

    #[test]
    fn at_one_time_the_lowest_priority_value_runs_first_then_the_order_of_scheduling() {
        let mut queue = TickQueue::new();
        queue.push(tick(1.0, 2, 0));
        queue.push(tick(1.0, 0, 1));
        queue.push(tick(1.0, 1, 2));
        queue.push(tick(1.0, 1, 3));
        assert_eq!(drain(&mut queue), [(1.0, vec![1, 2, 3, 0])]);
    }

    #[test]
    fn a_tick_scheduled_during_an_instant_runs_in_that_instant_by_its_priority() {
        let mut queue = TickQueue::new();
        queue.push(tick(4.0, 0, 0));
        queue.push(tick(4.0, 5, 1));
        queue.push(tick(5.0, 0, 0));
        assert_eq!(queue.pop_due(4.0).map(|t| t.clock), Some(0));
        // The partition just run announces a countdown tick now, of a priority between.
        queue.push(tick(4.0, 2, 2));
        assert_eq!(queue.pop_due(4.0).map(|t| t.clock), Some(2));
        assert_eq!(queue.pop_due(4.0).map(|t| t.clock), Some(1));
        assert_eq!(queue.pop_due(4.0), None, "the tick at 5 is not due at 4");
        assert_eq!(queue.next_time(), Some(5.0));
    }

    #[test]
    fn times_apart_only_in_the_last_bits_are_one_instant() {
        let mut queue = TickQueue::new();
        queue.push(tick(3.0 * 0.1, 1, 0));
        queue.push(tick(0.3, 0, 1));
        assert_ne!(3.0 * 0.1, 0.3);
        let now = queue.next_time().unwrap();
        assert_eq!(queue.pop_due(now).map(|t| t.clock), Some(1));
        assert_eq!(queue.pop_due(now).map(|t| t.clock), Some(0));
    }

    #[test]
    fn a_tick_at_the_end_of_an_interval_to_the_last_bits_belongs_to_the_next() {
        let mut queue = TickQueue::new();
        queue.push(tick(0.3, 0, 0));
        assert_ne!(0.3, 3.0 * 0.1);
        assert_eq!(queue.next_time_before(3.0 * 0.1), None);
        assert_eq!(queue.next_time_before(0.3), None);
        assert_eq!(queue.next_time_before(0.4), Some(0.3));
    }

    #[test]
    fn cancelling_drops_only_that_clocks_ticks() {
        let mut queue = TickQueue::new();
        queue.push(tick(1.0, 0, 0));
        queue.push(tick(2.0, 0, 1));
        queue.push(tick(3.0, 0, 0));
        queue.cancel(0);
        assert_eq!(drain(&mut queue), [(2.0, vec![1])]);
    }
}
