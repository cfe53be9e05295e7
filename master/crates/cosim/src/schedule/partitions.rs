//! A Scheduled Execution participant: an FMI 3.0 instance whose model partitions the master
//! activates at the ticks of its input clocks, as `tandem simulate` does for one FMU
//! ([`crate::scheduled_execution`]). Over a macro step `[t, t + H)` the partitions of the
//! ticks in that interval run in time and priority order; the participant itself decides
//! nothing about inputs and outputs (see [`super::participant`]).

use crate::error::Result;
use crate::scheduled_execution::{Clocks, Scheduler};
use fmi_host::instance::Fmu3Instance;

/// The instance and the schedule of its partitions.
pub(super) struct Partitions {
    instance: Fmu3Instance,
    scheduler: Scheduler,
    /// Which clocks ticked at the latest instant, by clock column (kept, so that an instant
    /// allocates nothing; a system records no clock columns).
    ticked: Vec<bool>,
    /// FMU calls the scheduling made.
    calls: u64,
    /// Partitions activated so far.
    activations: usize,
}

impl Partitions {
    /// The schedule of `clocks` (the component's, as loaded) for `instance`.
    pub(super) fn new(instance: Fmu3Instance, clocks: Clocks) -> Self {
        Partitions {
            instance,
            ticked: vec![false; clocks.columns.len()],
            scheduler: Scheduler::new(clocks),
            calls: 0,
            activations: 0,
        }
    }

    /// The instance.
    pub(super) fn instance(&mut self) -> &mut Fmu3Instance {
        &mut self.instance
    }

    /// FMU calls the scheduling made so far.
    pub(super) fn calls(&self) -> usize {
        self.calls as usize
    }

    /// Partitions activated so far.
    pub(super) fn activations(&self) -> usize {
        self.activations
    }

    /// Schedules the first ticks from `start`; called in Initialization Mode. A system ticks
    /// no triggered clock.
    pub(super) fn schedule_first(&mut self, start: f64) -> Result<()> {
        self.scheduler
            .schedule_first(&mut self.instance, start, &[], &mut self.calls)
    }

    /// The time of the next tick if it comes before the instant `end`.
    pub(super) fn next_time_before(&self, end: f64) -> Option<f64> {
        self.scheduler.next_time_before(end)
    }

    /// Runs the partitions due at the instant `time`.
    pub(super) fn run_instant(&mut self, time: f64) -> Result<()> {
        self.ticked.fill(false);
        self.activations += self.scheduler.run_instant(
            &mut self.instance,
            time,
            &mut self.ticked,
            &mut self.calls,
        )?;
        Ok(())
    }
}
