//! Adaptive macro steps (`[schedule] adaptive`). By the coupling's error (the default), every
//! macro step is taken from a point saved before it, its coupling error estimated at its end
//! ([`estimate`]); a step whose error is above the tolerance is rolled back and taken again,
//! shorter, and the next step's length comes from a PI controller on the errors
//! ([`controller`]). ECCO ([`ecco`]) keeps every step and takes the error from the power
//! bonds' residual power instead. A step an FMU discards (status
//! Discard: it could not take it) is rolled back and taken shorter too. The stages act at every
//! accepted macro point, as on the fixed grid of [`crate::macro_loop::drive`], so a result
//! file gets a row per accepted step.
//!
//! By the coupling's error every component's FMU must be able to get and set its state; a
//! Co-Simulation FMU must accept steps of any length (`canHandleVariableCommunicationStepSize`).

mod controller;
mod ecco;
mod estimate;
mod freeze;
mod report;

pub use controller::Controller;
pub use ecco::Ecco;
pub use estimate::CouplingError;
pub use freeze::freeze;
pub use report::StepReport;

use crate::coupling::{AdaptiveMethod, AdaptiveSettings};
use crate::error::{Error, Result};
use crate::macro_loop::PointStage;
use crate::schedule::{CoSimulation, Progress};
use crate::stop;
use crate::system::System;
use fmi_host::model_description::InterfaceType;

/// Checks that the components of `system` can take adaptive macro steps.
pub fn check(system: &System) -> Result<()> {
    let ecco = system
        .schedule
        .adaptive
        .is_some_and(|settings| settings.method == AdaptiveMethod::Ecco);
    if ecco && Ecco::new(system).is_none() {
        return Err(Error::invalid_value(
            system.path.display().to_string(),
            "schedule.adaptive.method = \"ecco\" chooses the steps from the residual power of \
             the power bonds, and the system has none ([[bond]])",
        ));
    }
    for component in &system.components {
        let variable_steps = match component.interface {
            InterfaceType::CoSimulation => component
                .fmu
                .model_description()
                .co_simulation
                .as_ref()
                .is_some_and(|cs| cs.can_handle_variable_communication_step_size),
            InterfaceType::ModelExchange => true,
            InterfaceType::ScheduledExecution => false,
        };
        // ECCO takes no step back.
        let problem = if !ecco && !component.can_get_and_set_state() {
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
/// with [`Error::Interrupted`] when a stop was requested; by the coupling's error, fails when
/// a step at the shortest length allowed still errs above the tolerance.
pub fn drive(
    cosimulation: &mut CoSimulation,
    system: &System,
    settings: &AdaptiveSettings,
    stage: &mut dyn PointStage,
) -> Result<(Progress, StepReport)> {
    // The order of the error in the step: the hold's local error, or a residual power.
    let order = match settings.method {
        AdaptiveMethod::Error => CouplingError::order(system),
        AdaptiveMethod::Ecco => 1.0,
    };
    let mut run = Run {
        shortest: settings
            .min_step
            .unwrap_or(1e-9 * (system.stop - system.start)),
        longest: settings.max_step.unwrap_or(system.stop - system.start),
        controller: Controller::new(order),
        report: StepReport::default(),
        point: 0,
    };
    let first = system.macro_step.clamp(run.shortest, run.longest);
    cosimulation.plan_step(run.end(system, system.start, first) - system.start);
    stage.at_point(0, system, cosimulation)?;
    let progress = match settings.method {
        AdaptiveMethod::Error => {
            run.by_error(cosimulation, system, settings.tolerance, first, stage)?
        }
        AdaptiveMethod::Ecco => {
            let ecco = Ecco::new(system).expect("checked when loaded");
            run.by_ecco(cosimulation, system, settings.tolerance, first, ecco, stage)?
        }
    };
    Ok((progress, run.report))
}

/// An adaptive run's limits, controller and account.
struct Run {
    shortest: f64,
    longest: f64,
    controller: Controller,
    report: StepReport,
    /// The latest accepted point.
    point: usize,
}

impl Run {
    /// The end of the step of length `step` from `from`: a step that would leave less than a
    /// shortest step before the stop goes to the stop.
    fn end(&self, system: &System, from: f64, step: f64) -> f64 {
        if from + step >= system.stop - self.shortest {
            system.stop
        } else {
            from + step
        }
    }

    /// Counts the step `(from, to)` accepted with `error`, chooses the next step's length,
    /// which it returns, and lets `stage` act at the point reached knowing it (an energy
    /// correction spreads its energy over that step).
    fn accept(
        &mut self,
        (from, to): (f64, f64),
        error: f64,
        system: &System,
        cosimulation: &mut CoSimulation,
        stage: &mut dyn PointStage,
    ) -> Result<f64> {
        self.report.accept(to - from, to == system.stop);
        self.point += 1;
        let next = self
            .controller
            .accepted(to - from, error)
            .clamp(self.shortest, self.longest);
        // Past the stop no step follows; a correction computed there is never applied.
        let planned = if to < system.stop {
            self.end(system, to, next) - to
        } else {
            next
        };
        cosimulation.plan_step(planned);
        stage.at_point(self.point, system, cosimulation)?;
        Ok(next)
    }

    /// Steps by the coupling's error, taking back every step above the tolerance.
    fn by_error(
        &mut self,
        cosimulation: &mut CoSimulation,
        system: &System,
        tolerance: f64,
        mut step: f64,
        stage: &mut dyn PointStage,
    ) -> Result<Progress> {
        let mut estimate = CouplingError::new(system);
        while cosimulation.time() < system.stop {
            stop::check(cosimulation.time())?;
            let from = cosimulation.time();
            let to = self.end(system, from, step);
            let saved = cosimulation.save_point()?;
            estimate.predict(cosimulation, to);
            let progress = cosimulation.step(to);
            // An FMU that discarded the step is back at its state before it, as after a
            // rejection.
            let (error, discarded) = match &progress {
                Ok(Progress::Reached) => (estimate.error(cosimulation, tolerance), false),
                Err(Error::Discarded { .. }) => (f64::INFINITY, true),
                _ => (0.0, false),
            };
            if error > 1.0 && to - from > self.shortest * (1.0 + 1e-9) {
                cosimulation.restore_point(&saved)?;
                cosimulation.free_point(saved)?;
                self.report.rejected += 1;
                self.report.discarded += usize::from(discarded);
                step = self
                    .controller
                    .rejected(to - from, error)
                    .max(self.shortest);
                continue;
            }
            cosimulation.free_point(saved)?;
            if let terminated @ Progress::Terminated { .. } = progress? {
                return Ok(terminated);
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
            step = self.accept((from, to), error, system, cosimulation, stage)?;
        }
        Ok(Progress::Reached)
    }

    /// Steps by ECCO: every step kept, the next one's length from the bonds' residual power.
    fn by_ecco(
        &mut self,
        cosimulation: &mut CoSimulation,
        system: &System,
        tolerance: f64,
        mut step: f64,
        mut ecco: Ecco,
        stage: &mut dyn PointStage,
    ) -> Result<Progress> {
        ecco.start(cosimulation);
        while cosimulation.time() < system.stop {
            stop::check(cosimulation.time())?;
            let from = cosimulation.time();
            let to = self.end(system, from, step);
            if let terminated @ Progress::Terminated { .. } = cosimulation.step(to)? {
                return Ok(terminated);
            }
            let error = ecco.error(cosimulation, tolerance);
            step = self.accept((from, to), error, system, cosimulation, stage)?;
        }
        Ok(Progress::Reached)
    }
}
