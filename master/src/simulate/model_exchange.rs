//! The Model Exchange loop: the master integrates the FMU's states with an adaptive solver
//! (Dormand–Prince, or ESDIRK for stiff models), stops at time events, locates state events on
//! the dense output, reports completed steps (step events) and runs the FMU's event iteration.

use std::iter::Peekable;

use super::recorder::Recorder;
use super::state_equations::{StateEquations, StateVariables};
use super::{grid_intervals, grid_point, InputTable, Run, SimulationSummary};
use crate::error::{Error, Result};
use crate::instance::EventUpdate;
use crate::model_description::InterfaceType;
use crate::output::progress::Progress;
use crate::solver::{
    locate_crossing, sign_changed, DormandPrince, Esdirk, Interpolant, Method, Stepper, Tolerances,
};

/// A step covers at most 1/50 of the run (as in FMPy), so that an indicator that changes
/// sign twice between step ends is not missed on a smooth stretch.
const MIN_STEPS_PER_RUN: f64 = 50.0;

/// Integrates from start to stop with `method`, recording on the output grid (and around
/// events if asked).
pub(super) fn run(run: Run<'_>, record_events: bool, method: Method) -> Result<SimulationSummary> {
    let n = run.instance.number_of_continuous_states();
    match method {
        Method::Dopri5 => integrate(run, record_events, DormandPrince::new(n), method),
        Method::Esdirk => integrate(run, record_events, Esdirk::new(n), method),
    }
}

fn integrate<S: Stepper>(
    run: Run<'_>,
    record_events: bool,
    stepper: S,
    method: Method,
) -> Result<SimulationSummary> {
    let Run {
        instance,
        inputs,
        recorder,
        model_description,
        progress,
        experiment,
    } = run;
    let n = instance.number_of_continuous_states();
    let m = instance.number_of_event_indicators();
    let mut summary = SimulationSummary::new(InterfaceType::ModelExchange, experiment.start);
    summary.solver = Some(method);
    let continuous_inputs = inputs.filter(|inputs| inputs.has_continuous());
    let mut me = Integration {
        equations: StateEquations {
            instance,
            continuous_inputs,
            variables: StateVariables::new(model_description),
            non_finite: None,
        },
        inputs,
        time: experiment.start,
        states: vec![0.0; n],
        indicators: vec![0.0; m],
        tolerances: Tolerances::from_nominals(experiment.tolerance, &vec![1.0; n]),
        relative_tolerance: experiment.tolerance,
        stepper,
        step: None,
        max_step: (experiment.stop - experiment.start) / MIN_STEPS_PER_RUN,
        next_time_event: None,
        progress,
        summary,
    };
    // After initialization the FMU is in event mode: settle the initial discrete states.
    if me.event_iteration(true)? {
        recorder.record(me.equations.instance, me.time)?;
        return Ok(me.summary);
    }
    recorder.record(me.equations.instance, me.time)?;
    let intervals = grid_intervals(
        experiment.start,
        experiment.output_interval,
        experiment.stop,
    );
    let mut outputs = (1..=intervals)
        .map(|k| {
            grid_point(
                experiment.start,
                experiment.output_interval,
                k,
                experiment.stop,
            )
        })
        .peekable();
    while me.time < experiment.stop {
        let due = me.next_time_event.is_some_and(|t| t <= me.time);
        let step_event = if due {
            false
        } else {
            // Without states there is no dense output: stop at every output point instead.
            let limit = match outputs.peek() {
                Some(&next) if n == 0 => next,
                _ => experiment.stop,
            };
            let event = me.advance(limit)?;
            me.record_inside_step(recorder, &mut outputs)?;
            event
        };
        let time_event = me.next_time_event.is_some_and(|t| t <= me.time);
        if step_event || time_event {
            if record_events {
                recorder.record(me.equations.instance, me.time)?;
            }
            if me.event_iteration(false)? {
                recorder.record(me.equations.instance, me.time)?;
                me.summary.final_time = me.time;
                return Ok(me.summary);
            }
            if record_events {
                recorder.record(me.equations.instance, me.time)?;
            }
        }
        if me.summary.terminated_by_fmu {
            recorder.record(me.equations.instance, me.time)?;
            me.summary.final_time = me.time;
            return Ok(me.summary);
        }
        while let Some(time) = outputs.next_if(|&t| t <= me.time) {
            recorder.record(me.equations.instance, time)?;
        }
    }
    me.summary.final_time = me.time;
    Ok(me.summary)
}

/// The state of a Model Exchange run between steps.
struct Integration<'a, S> {
    /// The FMU's equations (and through them the instance).
    equations: StateEquations<'a>,
    /// All inputs, applied at events.
    inputs: Option<&'a InputTable>,
    time: f64,
    states: Vec<f64>,
    indicators: Vec<f64>,
    tolerances: Tolerances,
    relative_tolerance: f64,
    stepper: S,
    /// The step size to try next.
    step: Option<f64>,
    /// The longest step: indicators are only compared at step ends.
    max_step: f64,
    next_time_event: Option<f64>,
    progress: &'a mut Progress,
    summary: SimulationSummary,
}

impl<S: Stepper> Integration<'_, S> {
    /// Takes one accepted step towards `limit` (or the next time event); returns whether the
    /// FMU needs event mode because of a state event or a step event.
    fn advance(&mut self, limit: f64) -> Result<bool> {
        let end = match self.next_time_event {
            Some(t) if t > self.time && t < limit => t,
            _ => limit,
        };
        let start = self.time;
        let new_time = if self.states.is_empty() {
            end
        } else {
            let new_time = self.step_to(start, end)?;
            self.states.copy_from_slice(self.stepper.x_new());
            new_time
        };
        self.equations.set_point(new_time, &self.states)?;
        let state_event = self.check_indicators(start, new_time)?;
        if !state_event {
            self.time = new_time;
            self.stepper.accept();
        }
        self.summary.steps += 1;
        self.progress.update(self.time);
        let outcome = self.equations.instance.completed_integrator_step(true)?;
        self.summary.terminated_by_fmu |= outcome.terminate;
        Ok(state_event || outcome.enter_event_mode)
    }

    /// Attempts steps from `(start, self.states)` until one towards `end` is accepted; returns
    /// its end time. The new state is the stepper's.
    fn step_to(&mut self, start: f64, end: f64) -> Result<f64> {
        let x = &self.states;
        let mut step = match self.step {
            Some(step) => step,
            None => self.stepper.initial_step(
                &mut self.equations,
                start,
                x,
                &self.tolerances,
                end - start,
            )?,
        }
        .min(self.max_step);
        loop {
            let reaches_end = step >= (end - start) * (1.0 - 1e-12);
            let h = if reaches_end { end - start } else { step };
            let attempt =
                self.stepper
                    .attempt(&mut self.equations, start, x, h, &self.tolerances)?;
            step = attempt.next_step.min(self.max_step);
            if attempt.accepted {
                self.step = Some(step);
                self.equations.non_finite = None;
                return Ok(if reaches_end { end } else { start + h });
            }
            self.summary.rejected_steps += 1;
            if step < 1e-14 * start.abs().max(1.0) {
                let message = match self.equations.non_finite.take() {
                    Some(non_finite) => format!(
                        "{} returned {}; no step from t = {start} avoids it",
                        self.equations.instance.name(),
                        non_finite.describe(&self.equations.variables)
                    ),
                    None => format!(
                        "the step size fell to {step:e} (error estimate {:e})",
                        attempt.error
                    ),
                };
                return Err(Error::Simulation {
                    time: start,
                    message,
                });
            }
        }
    }

    /// Records the output points before the current time, which the last step passed, from
    /// its dense output (before an event at the step's end changes the discrete states), and
    /// puts the FMU back at the end of the step.
    fn record_inside_step(
        &mut self,
        recorder: &mut Recorder,
        outputs: &mut Peekable<impl Iterator<Item = f64>>,
    ) -> Result<()> {
        if self.states.is_empty() || outputs.peek().is_none_or(|&t| t >= self.time) {
            return Ok(());
        }
        let dense = self.stepper.dense_output();
        let mut x = vec![0.0; self.states.len()];
        while let Some(time) = outputs.next_if(|&t| t < self.time) {
            dense.evaluate(time, &mut x);
            self.equations.set_point(time, &x)?;
            recorder.record(self.equations.instance, time)?;
        }
        self.equations.set_point(self.time, &self.states)
    }

    /// Compares the indicators at the end of the step with those at its start; on a sign
    /// change, locates the first crossing, moves the FMU just past it and returns true.
    fn check_indicators(&mut self, start: f64, end: f64) -> Result<bool> {
        if self.indicators.is_empty() {
            return Ok(false);
        }
        let mut after = vec![0.0; self.indicators.len()];
        self.equations.instance.get_event_indicators(&mut after)?;
        if !self
            .indicators
            .iter()
            .zip(&after)
            .any(|(&a, &b)| sign_changed(a, b))
        {
            self.indicators = after;
            return Ok(false);
        }
        let dense = (!self.states.is_empty()).then(|| self.stepper.dense_output());
        let mut x = self.states.clone();
        let equations = &mut self.equations;
        let mut evaluate = |t: f64, z: &mut [f64]| -> Result<()> {
            if let Some(dense) = &dense {
                dense.evaluate(t, &mut x);
            }
            equations.set_point(t, &x)?;
            equations.instance.get_event_indicators(z)
        };
        let resolution = 1e-12 * end.abs().max(1.0) + 100.0 * f64::EPSILON * (end - start).abs();
        let crossing = locate_crossing(
            start,
            &self.indicators,
            end,
            &after,
            resolution,
            &mut evaluate,
        )?;
        if let Some(dense) = &dense {
            dense.evaluate(crossing.after, &mut self.states);
        }
        self.equations.set_point(crossing.after, &self.states)?;
        self.time = crossing.after;
        self.indicators = crossing.indicators_after;
        self.stepper.reset();
        Ok(true)
    }

    /// Event mode: iterates the discrete states, then returns to continuous time with the
    /// states, nominals, indicators and next time event the FMU reports. `initial` is the
    /// iteration right after initialization, where the FMU is already in event mode.
    /// Returns true when the FMU asks to terminate.
    fn event_iteration(&mut self, initial: bool) -> Result<bool> {
        let instance = &mut *self.equations.instance;
        if !initial {
            self.summary.events += 1;
            instance.enter_event_mode()?;
            if let Some(inputs) = self.inputs {
                inputs.apply(instance, self.time)?;
            }
        }
        let mut update = EventUpdate {
            discrete_states_need_update: true,
            ..Default::default()
        };
        let mut passes = 0;
        while update.discrete_states_need_update {
            update = instance.update_discrete_states()?;
            passes += 1;
            if update.terminate {
                self.summary.terminated_by_fmu = true;
                return Ok(true);
            }
            if passes > 1000 {
                return Err(Error::Simulation {
                    time: self.time,
                    message: "the event iteration did not converge in 1000 passes".into(),
                });
            }
        }
        instance.enter_continuous_time_mode()?;
        if !self.states.is_empty() {
            instance.get_continuous_states(&mut self.states)?;
            if let Some(index) = self.states.iter().position(|x| !x.is_finite()) {
                return Err(Error::Simulation {
                    time: self.time,
                    message: format!(
                        "{} set the state {} to {} in event mode",
                        instance.name(),
                        self.equations.variables.state_name(index),
                        self.states[index]
                    ),
                });
            }
            let mut nominals = vec![1.0; self.states.len()];
            instance.get_nominals_of_continuous_states(&mut nominals)?;
            self.tolerances = Tolerances::from_nominals(self.relative_tolerance, &nominals);
        }
        if !self.indicators.is_empty() {
            instance.set_time(self.time)?;
            instance.get_event_indicators(&mut self.indicators)?;
        }
        self.next_time_event = update.next_event_time;
        // The solution may have jumped: restart from a fresh step-size estimate, which also
        // keeps the first step after a reset too short to cross an indicator twice.
        self.stepper.reset();
        self.step = None;
        Ok(false)
    }
}
