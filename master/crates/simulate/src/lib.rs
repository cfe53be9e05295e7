//! Simulations into result files: a single FMU ([`simulate`]: Co-Simulation FMUs step
//! themselves, Model Exchange FMUs are integrated by the master's solver, the model
//! partitions of Scheduled Execution FMUs run at the ticks of their clocks) and a system of
//! FMUs ([`run`]: the co-simulation crate's macro-step loop with the energy stage), each
//! writing its CSV result file ([`csv`]) row by row, so that a failed or interrupted run
//! leaves the rows up to the failure.
//!
//! What a caller shows of a run is its own business: it watches the run through a
//! [`progress::Progress`] and gets the rows it asked for in memory ([`simulate::Trace`]), to
//! plot them or compute with them. The `tandem` binary draws the bar and the plots.

pub mod csv;
pub mod progress;
pub mod run;
pub mod simulate;
