//! Scheduled Execution (FMI 3.0 chapter 5) with the master as the scheduler: it activates the
//! model partition of each input clock at its ticks (`fmi3ActivateModelPartition`), in time
//! order and, at one time, by priority (the lowest `priority` value first), one partition
//! after the other on one thread (no preemption).
//!
//! Input clocks tick as the model description declares them ([`Clocks`]): periodic clocks
//! every interval from the start plus their shift, changing and countdown clocks when the FMU
//! gives their next interval, triggered clocks when the user ticks them. `tandem simulate`
//! runs one such FMU from start to stop; `tandem run` runs one as a component of a system,
//! the ticks of each macro step in turn. Both schedule through [`Scheduler`].

mod clocks;
mod queue;
mod scheduler;

pub use clocks::Clocks;
pub use queue::{Tick, TickQueue};
pub use scheduler::Scheduler;
