//! The schedule of one Scheduled Execution instance: its clocks and their pending ticks, and
//! the run of the partitions due at one instant, the same for a single FMU and for a
//! component of a system.

use super::{Clocks, TickQueue};
use crate::error::Result;
use fmi_host::instance::Fmu3Instance;

/// The clocks of an instance and the ticks still to come.
#[derive(Debug)]
pub struct Scheduler {
    clocks: Clocks,
    queue: TickQueue,
}

impl Scheduler {
    /// The schedule of `clocks`, with no tick yet: see [`Scheduler::schedule_first`].
    pub fn new(clocks: Clocks) -> Self {
        Scheduler {
            clocks,
            queue: TickQueue::new(),
        }
    }

    /// Schedules the first ticks from `start`, asking the FMU for intervals and shifts where
    /// the standard says so; called in Initialization Mode. `triggered` holds the ticks the
    /// user gives each triggered input clock (by index among the input clocks); `calls`
    /// counts the FMU calls made.
    pub fn schedule_first(
        &mut self,
        instance: &mut Fmu3Instance,
        start: f64,
        triggered: &[(usize, Vec<f64>)],
        calls: &mut u64,
    ) -> Result<()> {
        self.clocks
            .schedule_first(instance, &mut self.queue, start, triggered, calls)
    }

    /// The time of the earliest pending tick.
    pub fn next_time(&self) -> Option<f64> {
        self.queue.next_time()
    }

    /// The time of the earliest pending tick if it comes before the instant `end` (a tick at
    /// `end` belongs to the interval that begins there).
    pub fn next_time_before(&self, end: f64) -> Option<f64> {
        self.queue.next_time_before(end)
    }

    /// Runs the partitions due at the instant `time`, by priority, each followed by what its
    /// tick schedules (the next tick of its clock, countdown ticks the FMU announces, which
    /// run at this instant too when due); marks in `ticked` (by clock column) the clocks that
    /// ticked. Returns the number of activations; `calls` counts the FMU calls made.
    pub fn run_instant(
        &mut self,
        instance: &mut Fmu3Instance,
        time: f64,
        ticked: &mut [bool],
        calls: &mut u64,
    ) -> Result<usize> {
        let mut activations = 0;
        while let Some(tick) = self.queue.pop_due(time) {
            let (reference, column) = self.clocks.activating(tick.clock, time)?;
            *calls += 1;
            instance.activate_model_partition(reference, time)?;
            activations += 1;
            ticked[column] = true;
            self.clocks
                .after_tick(instance, &mut self.queue, tick.clock, time, calls)?;
            if instance.take_clock_update() {
                self.clocks
                    .clock_update(instance, &mut self.queue, time, ticked, calls)?;
            }
        }
        Ok(activations)
    }
}
