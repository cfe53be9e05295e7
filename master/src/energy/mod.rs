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
//! estimated energy error `mu H dP` (with the factor `mu` from [`mu`]) is added to the effort
//! sent to the flow side during the next macro step. The [`manager`] runs all of this at the
//! communication points of a co-simulation; [`plot`] draws it.
//!
//! System file keys: see `docs/system-file.md` (section *Energy*).

pub mod bond;
pub mod correction;
pub mod manager;
pub mod monitor;
pub mod mu;
pub mod plot;
pub mod scalar;
pub mod settings;
pub mod warnings;

pub use bond::Bond;
pub use manager::{setup_columns, Column, EnergyManager, EnergyReport, Quantity};
pub use settings::{EnergyEntry, EnergySettings};

use crate::coupling::Schedule;
use crate::error::Result;
use crate::model_description::Causality;
use crate::system::{Component, Connection, Port, SystemDescription};
use bond::Context;

/// The name of the output through which a component reports its energy.
pub const ENERGY_OUTPUT: &str = "energy";

/// The checked energy part of a system.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergySetup {
    /// The `[energy]` settings.
    pub settings: EnergySettings,
    /// The power bonds, in file order (numbered from 1 in columns and messages).
    pub bonds: Vec<Bond>,
    /// Every component's scalar float output named `energy`: their sum is the total energy.
    pub energy_outputs: Vec<Port>,
}

impl EnergySetup {
    /// Checks the bonds and energy settings of `description` against the components and
    /// connections; `None` when the system has neither, or turns monitoring off.
    pub fn check(
        description: &SystemDescription,
        components: &[Component],
        connections: &[Connection],
        schedule: &Schedule,
    ) -> Result<Option<Self>> {
        let entry = description.energy.as_ref();
        if description.bonds.is_empty() && entry.is_none() {
            return Ok(None);
        }
        let settings = entry.map_or_else(EnergySettings::default, |e| e.value.clone());
        let context = Context {
            components,
            connections,
            schedule: schedule.kind,
            extrapolation: schedule.extrapolation,
            mu: settings.mu,
            correction: settings.correction,
        };
        let bonds = bond::resolve(description, &context)?;
        if let (true, true, Some(entry)) = (settings.correction, bonds.is_empty(), entry) {
            return Err(description.error(
                &entry.at,
                "energy.correction = true, but the system declares no [[bond]] to correct",
            ));
        }
        if !settings.monitor {
            return Ok(None);
        }
        Ok(Some(EnergySetup {
            settings,
            bonds,
            energy_outputs: energy_outputs(components),
        }))
    }
}

/// The scalar float outputs named [`ENERGY_OUTPUT`], one per component at most.
fn energy_outputs(components: &[Component]) -> Vec<Port> {
    components
        .iter()
        .enumerate()
        .filter_map(|(component, c)| {
            let md = c.fmu.model_description();
            md.variables
                .iter()
                .position(|v| {
                    v.name == ENERGY_OUTPUT
                        && v.causality == Causality::Output
                        && v.ty.is_float()
                        && v.is_scalar()
                })
                .map(|variable| Port::whole(component, variable))
        })
        .collect()
}
