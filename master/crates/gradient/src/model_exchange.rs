//! Model Exchange components in gradient runs. The master integrates each one in held-input
//! steps with sensitivities ([`HeldInputStep`]) when its inputs are held constant over the
//! macro step (a zero-order hold under explicit coupling, so that the run computes what
//! `tandem run` computes) and its FMU gives what the sensitivities need; otherwise the
//! gradient falls back to finite differences and reports why.

use fmi_host::instance::{FmuInstance, LogSettings};
use fmi_host::model_description::InterfaceType;
use tandem_cosim::system::{Component, System};
use tandem_cosim::Result;
use tandem_ode::model_exchange::HeldInputStep;

/// Why `component` of `system`, a Model Exchange component, cannot be differentiated through
/// the master's integrator, if it cannot (never for a Co-Simulation component).
pub fn obstacle(system: &System, component: &Component) -> Option<String> {
    if component.interface != InterfaceType::ModelExchange {
        return None;
    }
    let extrapolation = component
        .extrapolation
        .unwrap_or(system.schedule.extrapolation);
    let reason = if system.schedule.implicit.is_some() {
        Some(
            "its inputs follow the implicit coupling's line within each macro step, while the \
             master's sensitivities hold them over the step"
                .to_string(),
        )
    } else if extrapolation.degree() > 0 {
        Some(format!(
            "its inputs follow the {extrapolation} extrapolation within each macro step, while the \
             master's sensitivities hold them over the step (use extrapolation = \"zoh\")"
        ))
    } else {
        HeldInputStep::obstacle(component.fmu.model_description())
    };
    reason.map(|reason| {
        format!(
            "component {} ({}) is integrated by the master as Model Exchange, and {reason}",
            component.name, component.fmu_label
        )
    })
}

/// The instance of `component` for a gradient run of `system`: its FMU's, in held-input steps
/// when it is a Model Exchange component without [`obstacle`].
pub fn instantiate(
    system: &System,
    component: &Component,
    log: &LogSettings,
) -> Result<Box<dyn FmuInstance>> {
    let instance = component
        .fmu
        .instantiate(component.interface, &component.name, log.clone())?;
    if component.interface == InterfaceType::ModelExchange && obstacle(system, component).is_none()
    {
        return Ok(Box::new(HeldInputStep::new(
            instance,
            &component.shapes(),
            component.solver,
            component.tolerance,
        )));
    }
    Ok(instance)
}
