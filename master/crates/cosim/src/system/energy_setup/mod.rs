//! The energy part of a system, checked with the rest of it: the `[energy]` settings, the power
//! bonds (`[[bond]]`) resolved against the components and connections, with the factor mu of
//! each, and the components' energy outputs. The energy monitoring and correction that run on
//! top of a system read it from [`super::System::energy`].

pub mod bond;
pub mod mu;
pub mod settings;

pub use bond::Bond;
pub use settings::{EnergyEntry, EnergySettings};

use super::{Component, Connection, Port, SystemDescription};
use crate::coupling::ScheduleSettings;
use crate::error::Result;
use bond::Context;
use fmi_host::model_description::Causality;

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
        schedule: &ScheduleSettings,
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
