//! Adaptive macro steps (`[schedule] adaptive`): every macro step is taken from a point saved
//! before it, its coupling error estimated at its end ([`estimate`]); a step whose error is
//! above the tolerance is rolled back and taken again, shorter, and the next step's length
//! comes from a PI controller on the errors ([`controller`]). A step an FMU discards (status
//! Discard: it could not take it) is rolled back and taken shorter too. The stages act at every
//! accepted macro point, as on the fixed grid of [`crate::macro_loop::drive`], so a result
//! file gets a row per accepted step.
//!
//! Every component's FMU must be able to get and set its state, and a Co-Simulation FMU
//! must accept steps of any length (`canHandleVariableCommunicationStepSize`).

mod controller;
mod estimate;
mod freeze;
mod report;

pub use controller::Controller;
pub use estimate::CouplingError;
pub use freeze::freeze;
pub use report::StepReport;

use crate::coupling::AdaptiveSettings;
use crate::error::{Error, Result};
use crate::macro_loop::PointStage;
use crate::schedule::{CoSimulation, Progress};
use crate::stop;
use crate::system::System;
use fmi_host::model_description::InterfaceType;

/// Checks that the components of `system` can take adaptive macro steps.
pub fn check(system: &System) -> Result<()> {
    for component in &system.components {
        let md = component.fmu.model_description();
        let (capabilities, variable_steps) = match component.interface {
            InterfaceType::CoSimulation => {
                let cs = md.co_simulation.as_ref();
                (
                    cs.map(|cs| &cs.capabilities),
                    cs.is_some_and(|cs| cs.can_handle_variable_communication_step_size),
                )
            }
            InterfaceType::ModelExchange => {
                (md.model_exchange.as_ref().map(|me| &me.capabilities), true)
            }
            InterfaceType::ScheduledExecution => (None, false),
        };
        let problem = if !capabilities.is_some_and(|c| c.can_get_and_set_fmu_state) {
            "adaptive macro steps roll a step back from the FMUs' saved states, and this FMU \
             cannot get and set its state (canGetAndSetFMUState)"
        } else if !variable_steps {
            "adaptive macro steps change the step's length, and this FMU takes only fixed \
             communication steps (canHandleVariableCommunicationStepSize)"
        } else {
            continue;
        };
        return Err(Error::invalid_value(
            format!("component {}", component.name),
            problem,
        ));
    }
    Ok(())
}

/// Runs `cosimulation` of `system` from its start to its stop time in macro steps chosen by
/// `settings`, letting `stage` act at the start and at every accepted point (numbered from
/// 0). Ends early with [`Progress::Terminated`] when an FMU asks to end the simulation, and
/// with [`Error::Interrupted`] when a stop was requested; fails when a step at the shortest
/// length allowed still errs above the tolerance.
pub fn drive(
    cosimulation: &mut CoSimulation,
    system: &System,
    settings: &AdaptiveSettings,
    stage: &mut dyn PointStage,
) -> Result<(Progress, StepReport)> {
    let duration = system.stop - system.start;
    let shortest = settings.min_step.unwrap_or(1e-9 * duration);
    let longest = settings.max_step.unwrap_or(duration);
    let mut controller = Controller::new(CouplingError::order(system));
    let mut estimate = CouplingError::new(system);
    let mut report = StepReport::default();
    let mut step = system.macro_step.clamp(shortest, longest);
    stage.at_point(0, system, cosimulation)?;
    let mut point = 0;
    while cosimulation.time() < system.stop {
        stop::check(cosimulation.time())?;
        let from = cosimulation.time();
        // A step that would leave less than a shortest step before the stop goes to the stop.
        let to = if from + step >= system.stop - shortest {
            system.stop
        } else {
            from + step
        };
        let saved = cosimulation.save_point()?;
        estimate.predict(cosimulation, to);
        let progress = cosimulation.step(to);
        // An FMU that discarded the step is back at its state before it, as after a rejection.
        let (error, discarded) = match &progress {
            Ok(Progress::Reached) => (estimate.error(cosimulation, settings.tolerance), false),
            Err(Error::Discarded { .. }) => (f64::INFINITY, true),
            _ => (0.0, false),
        };
        if error > 1.0 && to - from > shortest * (1.0 + 1e-9) {
            cosimulation.restore_point(&saved)?;
            cosimulation.free_point(saved)?;
            report.rejected += 1;
            report.discarded += usize::from(discarded);
            step = controller.rejected(to - from, error).max(shortest);
            continue;
        }
        cosimulation.free_point(saved)?;
        if let terminated @ Progress::Terminated { .. } = progress? {
            return Ok((terminated, report));
        }
        if error > 1.0 {
            return Err(Error::simulation(
                from,
                format!(
                    "adaptive macro steps: the step of {:.3e} s (schedule.adaptive.min-step) \
                     still errs {error:.3} times the tolerance",
                    to - from
                ),
            ));
        }
        report.accept(to - from, to == system.stop);
        point += 1;
        stage.at_point(point, system, cosimulation)?;
        step = controller
            .accepted(to - from, error)
            .clamp(shortest, longest);
    }
    Ok((Progress::Reached, report))
}
