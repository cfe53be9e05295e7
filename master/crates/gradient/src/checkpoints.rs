//! Checkpoints of a gradient run: at the start and at every n-th macro point, the whole
//! co-simulation's state (every FMU's state, the master's communicated values and input
//! offsets, the values observed there, and every coupling stage's state: for the energy
//! correction, its residual energies, correction states and the efforts and flows it last
//! read). The forward run keeps only these and the cost's values; a sweep that needs a macro
//! step re-runs its segment of n macro steps from the checkpoint before it, with the same
//! macro-step loop ([`run_points`]) as the first run (the coupling stages included), the recorders filling the
//! tapes' windows and the stages their own records as in the first run, so that the record, the
//! states and the offsets are exactly those the first run would have kept.
//! Memory: N / n checkpoints and one segment of n macro steps per component (N macro
//! steps), least for n near sqrt(N); the time: every macro step taken twice.

use std::ops::RangeInclusive;

use super::stage::{CouplingStage, StageCheckpoint};
use super::tape::{lock, SharedTapes, Tape};
use fmi_host::instance::FmuState;
use tandem_cosim::macro_loop::{self, PointStage};
use tandem_cosim::schedule::{CoSimulation, Progress, Snapshot};
use tandem_cosim::stop;
use tandem_cosim::system::System;
use tandem_cosim::{Error, Result};

/// The coupling stages of a run.
pub type Stages = [Box<dyn CouplingStage>];

/// The co-simulation at one macro point.
struct Checkpoint {
    snapshot: Snapshot,
    /// Per component, its FMU state and the values it had communicated there.
    components: Vec<(FmuState, Vec<f64>)>,
    /// Per coupling stage, its state there.
    stages: Vec<StageCheckpoint>,
}

/// The checkpoints of one run.
pub struct Checkpoints {
    /// Macro steps per segment (0: no checkpoints; the tapes keep the whole run).
    interval: usize,
    /// Macro steps in the run.
    steps: usize,
    /// The times of the macro points.
    times: Vec<f64>,
    /// By segment.
    kept: Vec<Option<Checkpoint>>,
    /// Per component, whether it keeps the linearizations of the steps a re-run takes.
    linearizing: Vec<bool>,
}

impl Checkpoints {
    /// Checkpoints every `interval` macro points (0: none) of a run through the macro points
    /// at `times`.
    pub fn new(interval: usize, times: &[f64]) -> Self {
        Checkpoints {
            interval,
            steps: times.len().saturating_sub(1),
            times: times.to_vec(),
            kept: Vec::new(),
            linearizing: Vec::new(),
        }
    }

    /// The number of macro steps of the run.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Called at every macro point `point` of the first run (0: after initialization): keeps a
    /// checkpoint there if a segment starts there and every component can be differentiated
    /// (otherwise the adjoint is not used).
    pub fn reach(
        &mut self,
        cosimulation: &mut CoSimulation,
        shared: &SharedTapes,
        stages: &Stages,
        point: usize,
    ) -> Result<()> {
        if self.interval == 0 || !point.is_multiple_of(self.interval) || point >= self.steps {
            return Ok(());
        }
        if shared.iter().any(|tape| lock(tape).derivatives.is_none()) {
            return Ok(());
        }
        let mut components = Vec::with_capacity(shared.len());
        for (i, tape) in shared.iter().enumerate() {
            let state = cosimulation.instance_mut(i)?.get_fmu_state()?;
            components.push((state, lock(tape).latest().to_vec()));
        }
        let snapshot = cosimulation.snapshot()?;
        self.kept.push(Some(Checkpoint {
            snapshot,
            components,
            stages: stages.iter().map(|stage| stage.checkpoint()).collect(),
        }));
        Ok(())
    }

    /// Makes every tape's window hold macro step `k`, re-running its segment of the run of
    /// `system` (with its coupling `stages`, which keep that segment's records too) from the
    /// checkpoint before it if it does not. Components for which `linearize` says so keep the
    /// linearizations of the steps the re-run takes (those whose FMUs can): worth it where the
    /// sweep differentiates each step more than once (a forward sweep: one JVP per parameter).
    #[allow(clippy::too_many_arguments)]
    pub fn ensure_step(
        &mut self,
        cosimulation: &mut CoSimulation,
        system: &System,
        stages: &mut Stages,
        shared: &SharedTapes,
        tapes: &mut [Tape],
        k: usize,
        linearize: &dyn Fn(usize) -> bool,
    ) -> Result<()> {
        // Every sweep asks for each macro step: where it stops when the user interrupts.
        stop::check(self.times[k])?;
        if tapes.iter().all(|tape| tape.holds_step(k)) {
            return Ok(());
        }
        let missing = || Error::Simulation {
            time: self.times[k],
            message: format!("gradient sweep: no checkpoint kept before macro step {k}"),
        };
        if self.interval == 0 {
            return Err(missing());
        }
        let first = k / self.interval * self.interval;
        let end = (first + self.interval).min(self.steps);
        let checkpoint = self
            .kept
            .get_mut(first / self.interval)
            .and_then(Option::take)
            .ok_or_else(missing)?;
        cosimulation.rewind(&checkpoint.snapshot)?;
        for (stage, state) in stages.iter_mut().zip(checkpoint.stages) {
            stage.rewind(first, state);
        }
        self.linearizing.resize(tapes.len(), false);
        for (i, (tape, (state, values))) in tapes.iter_mut().zip(checkpoint.components).enumerate()
        {
            let instance = cosimulation.instance_mut(i)?;
            instance.set_fmu_state(&state)?;
            let wanted = linearize(i);
            if wanted || self.linearizing[i] {
                // One per macro step of the segment (a component running multi-rate takes
                // more: the sweep linearizes its earlier ones again).
                let steps = if wanted { end - first } else { 0 };
                self.linearizing[i] = match instance.step_derivatives() {
                    Some(derivatives) => derivatives.keep_step_linearizations(steps)? && wanted,
                    None => false,
                };
            }
            let old = tape.begin_window(first, end, state, values);
            free(cosimulation, i, old)?;
        }
        // The recorders fill the tapes while the co-simulation runs the segment again.
        exchange(tapes, shared);
        let mut rerun_points = GradientPoints { stages, keep: None };
        let rerun = run_points(cosimulation, system, first + 1..=end, &mut rerun_points);
        exchange(tapes, shared);
        rerun
    }

    /// Frees every checkpoint still kept, and the components' kept linearizations.
    pub fn free_all(&mut self, cosimulation: &mut CoSimulation) -> Result<()> {
        let mut result = Ok(());
        for (i, linearizing) in std::mem::take(&mut self.linearizing)
            .into_iter()
            .enumerate()
        {
            if linearizing {
                result = result.and(stop_linearizing(cosimulation, i));
            }
        }
        for checkpoint in self.kept.drain(..).flatten() {
            for (i, (state, _)) in checkpoint.components.into_iter().enumerate() {
                result = result.and(free(cosimulation, i, vec![state]));
            }
        }
        result
    }
}

/// Makes component `i` stop linearizing its steps and drop those it kept.
fn stop_linearizing(cosimulation: &mut CoSimulation, i: usize) -> Result<()> {
    match cosimulation.instance_mut(i)?.step_derivatives() {
        Some(derivatives) => Ok(derivatives.keep_step_linearizations(0).map(drop)?),
        None => Ok(()),
    }
}

/// Swaps the sweeps' tapes with those the recorders fill.
fn exchange(tapes: &mut [Tape], shared: &SharedTapes) {
    for (tape, recorded) in tapes.iter_mut().zip(shared) {
        std::mem::swap(tape, &mut *lock(recorded));
    }
}

/// What a gradient run does at every macro point: its coupling stages act, then, in the first
/// run, a checkpoint is kept where a segment starts.
pub struct GradientPoints<'a> {
    /// The coupling stages.
    pub stages: &'a mut Stages,
    /// The checkpoints to keep and the tapes the recorders fill; none in a re-run.
    pub keep: Option<(&'a mut Checkpoints, &'a SharedTapes)>,
}

impl PointStage for GradientPoints<'_> {
    fn at_point(
        &mut self,
        point: usize,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> Result<()> {
        for stage in self.stages.iter_mut() {
            stage.at_point(point, system, cosimulation)?;
        }
        match &mut self.keep {
            Some((checkpoints, shared)) => {
                checkpoints.reach(cosimulation, shared, self.stages, point)
            }
            None => Ok(()),
        }
    }
}

/// Runs the macro points `points` of a gradient run of `system`, with `work` acting at each:
/// the one macro-step loop, where a component ending the run early is an error (a cost and
/// its gradient need the whole run).
pub fn run_points(
    cosimulation: &mut CoSimulation,
    system: &System,
    points: RangeInclusive<usize>,
    work: &mut GradientPoints<'_>,
) -> Result<()> {
    match macro_loop::drive(cosimulation, system, points, work)? {
        Progress::Reached => Ok(()),
        Progress::Terminated { component, time } => Err(Error::Simulation {
            time,
            message: format!(
                "component {component} ended the run before t = {}; a cost and its gradient \
                 need the whole run",
                system.stop
            ),
        }),
    }
}

/// Frees `states` of component `index`.
pub fn free(cosimulation: &mut CoSimulation, index: usize, states: Vec<FmuState>) -> Result<()> {
    let instance = cosimulation.instance_mut(index)?;
    Ok(states
        .into_iter()
        .try_for_each(|state| instance.free_fmu_state(state))?)
}
