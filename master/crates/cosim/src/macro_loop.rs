//! The one loop over the macro steps of a system. It steps the co-simulation through the
//! communication grid and, at every macro point it reaches, lets a [`PointStage`] act: the
//! energy monitor and correction ([`crate::energy::EnergyStage`]), a gradient's coupling stages
//! and checkpoints, a result writer. `tandem run`, every run of `tandem sweep` and every run
//! (and re-run of a checkpoint segment) of a gradient drive this loop, so they take the same
//! steps at the same times and act at the same points.
//!
//! A stop request ([`crate::stop`]) ends the loop before the next macro step, once the stages
//! acted at the point reached: a run keeps its rows up to there.

use std::ops::RangeInclusive;

use crate::error::Result;
use crate::schedule::{CoSimulation, Progress};
use crate::stop;
use crate::system::System;

/// What acts at the macro points of a run, once the co-simulation reached them.
pub trait PointStage {
    /// At macro point `point` (0: the start, after initialization) of the run `cosimulation`
    /// of `system`: reads what it needs, and may set input offsets for the macro step that
    /// starts there.
    fn at_point(
        &mut self,
        point: usize,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> Result<()>;
}

/// Runs `cosimulation` of `system` through the macro points `points` of its communication grid
/// ([`System::point`]: point `k` at `start + k H`, the last clipped to the stop time, or the
/// frozen points of an adaptive run): steps to each point but 0,
/// then lets `stage` act there. Ends early with [`Progress::Terminated`] when an FMU asks to
/// end the simulation (the stage does not act at the point it did not reach), and with
/// [`crate::Error::Interrupted`] when a stop was requested.
pub fn drive(
    cosimulation: &mut CoSimulation,
    system: &System,
    points: RangeInclusive<usize>,
    stage: &mut dyn PointStage,
) -> Result<Progress> {
    for point in points {
        if point > 0 {
            stop::check(cosimulation.time())?;
            let to = system.point(point);
            if let terminated @ Progress::Terminated { .. } = cosimulation.step(to)? {
                return Ok(terminated);
            }
        }
        stage.at_point(point, system, cosimulation)?;
    }
    Ok(Progress::Reached)
}
