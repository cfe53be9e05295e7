//! Energy monitoring and correction of explicit co-simulation, after Rodríguez et al.,
//! "Energy-based monitoring and correction to enhance the accuracy and stability of explicit
//! co-simulation", Multibody Syst Dyn 55 (2022).
//!
//! A system declares **power bonds** (`[[bond]]`): an effort output of one component and a flow
//! output of another, whose product is the power the interface carries. Because each side
//! works over a macro step with the other's value held (or extrapolated), the power one side
//! delivers and the other receives differ: the **residual power** `dP` of every macro step
//! ([`monitor`]) measures the energy the coupling creates or destroys; its sum is the residual
//! energy `dE`. Spikes and a persistently positive mean of `dP` flag an unreliable run
//! ([`warnings`]). With the **correction** on ([`correction`]), a force that removes the
//! estimated energy error `mu H dP` (with the factor `mu` from
//! [`crate::system::energy_setup::mu`]) is added to the effort sent to the flow side during the
//! next macro step. The [`manager`] runs all of this at the communication points of a
//! co-simulation, and [`EnergyStage`] runs the manager as a stage of the one macro-step loop
//! ([`crate::macro_loop`]); the `run` command draws it.
//!
//! This module is the stage that runs on top of a loaded system: the bonds and settings a
//! system declares are read and checked with the system, into its
//! [`crate::system::EnergySetup`].
//!
//! System file keys: see `docs/system-file.md` (section *Energy*).

pub mod correction;
pub mod manager;
pub mod monitor;
pub mod scalar;
mod stage;
pub mod warnings;

pub use manager::{setup_columns, EnergyColumn, EnergyManager, EnergyReport, Quantity};
pub use stage::EnergyStage;
