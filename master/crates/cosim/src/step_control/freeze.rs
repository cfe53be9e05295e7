//! Freezing the steps of an adaptive run: the system runs once with its adaptive steps, and
//! the macro points they reached become its grid ([`crate::coupling::ScheduleSettings::frozen`]).
//! Later runs then take exactly those steps, as a gradient's runs must: the finite differences
//! of runs whose steps moved with the parameter would differentiate the step-size controller,
//! and the adjoint goes through the steps the run took (the sequence of accepted steps held
//! fixed, as an integrator's discrete adjoint holds its accepted steps).

use std::sync::Arc;

use super::{drive, StepReport};
use crate::error::Result;
use crate::macro_loop::PointStage;
use crate::schedule::CoSimulation;
use crate::system::System;
use fmi_host::instance::LogSettings;

/// Runs `system` once with its adaptive steps (logging as `log` says) and freezes the macro
/// points reached; returns what the step control did, or `None` for a system without
/// adaptive steps, which is left as it is.
pub fn freeze(system: &mut System, log: &LogSettings) -> Result<Option<StepReport>> {
    let Some(settings) = system.schedule.adaptive else {
        return Ok(None);
    };
    super::check(system)?;
    let mut cosimulation = CoSimulation::initialize(system, log)?;
    let mut points = Points(Vec::new());
    let driven = drive(&mut cosimulation, system, &settings, &mut points);
    let terminated = cosimulation.terminate();
    let (_, report) = driven?;
    terminated?;
    system.schedule.frozen = Some(Arc::from(points.0));
    system.schedule.adaptive = None;
    Ok(Some(report))
}

/// The times of the macro points reached.
struct Points(Vec<f64>);

impl PointStage for Points {
    fn at_point(&mut self, _: usize, _: &System, cosimulation: &mut CoSimulation) -> Result<()> {
        self.0.push(cosimulation.time());
        Ok(())
    }
}
