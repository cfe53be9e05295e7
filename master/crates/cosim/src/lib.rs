//! Co-simulation of FMUs: the systems the Tandem master runs and one macro step of them.
//!
//! - [`system`]: system files (TOML, SSP packages with SSD, SSV and SSM files) read into a
//!   [`system::System`]: components, ports, connections with units and transformations,
//!   parameters, the energy setup (power bonds), each checked with its file and line;
//! - [`coupling`] and [`schedule`]: the macro step: Jacobi (on threads) and Gauss-Seidel,
//!   multi-rate components, input extrapolation, FMU state snapshots, and a recorder the
//!   caller plugs in;
//! - [`scheduled_execution`]: the clocks of Scheduled Execution FMUs and the master's
//!   schedule of their model partitions, for a single FMU and for a component of a system;
//! - [`macro_loop`]: the one loop over the macro steps that every run drives, with the
//!   stages that act at the macro points it reaches;
//! - [`energy`]: the energy monitor and correction, a stage that runs at the communication
//!   points;
//! - [`stop`]: the request to stop (a signal) that the loops check after every macro step;
//! - [`start_values`], [`column`], [`time_grid`], [`time_table`]: start values (arrays too),
//!   result columns, communication grids and signals read from CSV files, shared by
//!   single-FMU simulation, systems and gradients.

pub mod column;
pub mod coupling;
pub mod energy;
pub mod error;
pub mod macro_loop;
pub mod schedule;
pub mod scheduled_execution;
pub mod start_values;
pub mod step_control;
pub mod stop;
pub mod system;
pub mod time_grid;
pub mod time_table;

pub use error::{Error, Result};
