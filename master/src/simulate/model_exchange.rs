//! The Model Exchange loop: the master integrates the FMU's states with the adaptive
//! Dormand–Prince method, stops at time events, locates state events on the dense output,
//! reports completed steps (step events) and runs the FMU's event iteration.

use super::{grid_intervals, grid_point, InputTable, Run, SimulationSummary};
use crate::error::{Error, Result};
use crate::instance::{EventUpdate, FmuInstance};
use crate::model_description::InterfaceType;
use crate::solver::{locate_crossing, sign_changed, DormandPrince, Tolerances};

/// Integrates from start to stop, recording on the output grid (and around events if asked).
pub(super) fn run(run: Run<'_>, record_events: bool) -> Result<SimulationSummary> {
    let Run {
        instance,
        inputs,
        recorder,
        experiment,
    } = run;
    let n = instance.number_of_continuous_states();
    let m = instance.number_of_event_indicators();
    let mut me = Integration {
        time: experiment.start,
        states: vec![0.0; n],
        indicators: vec![0.0; m],
        tolerances: Tolerances::from_nominals(experiment.tolerance, &vec![1.0; n]),
        relative_tolerance: experiment.tolerance,
        stepper: DormandPrince::new(n),
        step: None,
        next_time_event: None,
        continuous_inputs: inputs.is_some_and(InputTable::has_continuous),
        inputs,
        instance,
        summary: SimulationSummary {
            interface: InterfaceType::ModelExchange,
            final_time: experiment.start,
            steps: 0,
            rejected_steps: 0,
            events: 0,
            rows: 0,
            terminated_by_fmu: false,
        },
    };
    // After initialization the FMU is in event mode: settle the initial discrete states.
    if me.event_iteration(true)? {
        recorder.record(me.instance, me.time)?;
        return Ok(me.summary);
    }
    recorder.record(me.instance, me.time)?;
    let intervals = grid_intervals(
        experiment.start,
        experiment.output_interval,
        experiment.stop,
    );
    for k in 1..=intervals {
        let output_time = grid_point(
            experiment.start,
            experiment.output_interval,
            k,
            experiment.stop,
        );
        while me.time < output_time {
            let due = me.next_time_event.is_some_and(|t| t <= me.time);
            let step_event = if due { false } else { me.advance(output_time)? };
            let time_event = me.next_time_event.is_some_and(|t| t <= me.time);
            if step_event || time_event {
                if record_events {
                    recorder.record(me.instance, me.time)?;
                }
                if me.event_iteration(false)? {
                    recorder.record(me.instance, me.time)?;
                    me.summary.final_time = me.time;
                    return Ok(me.summary);
                }
                if record_events {
                    recorder.record(me.instance, me.time)?;
                }
            }
            if me.summary.terminated_by_fmu {
                recorder.record(me.instance, me.time)?;
                me.summary.final_time = me.time;
                return Ok(me.summary);
            }
        }
        recorder.record(me.instance, output_time)?;
    }
    me.summary.final_time = me.time;
    Ok(me.summary)
}

/// The state of a Model Exchange run between steps.
struct Integration<'a> {
    instance: &'a mut dyn FmuInstance,
    inputs: Option<&'a InputTable>,
    continuous_inputs: bool,
    time: f64,
    states: Vec<f64>,
    indicators: Vec<f64>,
    tolerances: Tolerances,
    relative_tolerance: f64,
    stepper: DormandPrince,
    step: Option<f64>,
    next_time_event: Option<f64>,
    summary: SimulationSummary,
}

/// Puts the FMU at (`time`, `states`), with inputs when they vary continuously.
fn set_point(
    instance: &mut dyn FmuInstance,
    inputs: Option<&InputTable>,
    time: f64,
    states: &[f64],
) -> Result<()> {
    instance.set_time(time)?;
    if let Some(inputs) = inputs {
        inputs.apply(instance, time)?;
    }
    if !states.is_empty() {
        instance.set_continuous_states(states)?;
    }
    Ok(())
}

impl Integration<'_> {
    /// Takes one accepted step towards `limit` (or the next time event); returns whether the
    /// FMU needs event mode because of a state event or a step event.
    fn advance(&mut self, limit: f64) -> Result<bool> {
        let end = match self.next_time_event {
            Some(t) if t > self.time && t < limit => t,
            _ => limit,
        };
        let inputs = if self.continuous_inputs {
            self.inputs
        } else {
            None
        };
        let start = self.time;
        let (new_time, state_event) = if self.states.is_empty() {
            set_point(self.instance, inputs, end, &[])?;
            (end, self.check_indicators(start, end)?)
        } else {
            let instance = &mut *self.instance;
            let mut rhs = |t: f64, x: &[f64], dx: &mut [f64]| -> Result<()> {
                set_point(instance, inputs, t, x)?;
                instance.get_derivatives(dx)
            };
            let mut step = match self.step {
                Some(step) => step,
                None => self.stepper.initial_step(
                    &mut rhs,
                    start,
                    &self.states,
                    &self.tolerances,
                    end - start,
                )?,
            };
            let new_time = loop {
                let reaches_end = step >= (end - start) * (1.0 - 1e-12);
                let h = if reaches_end { end - start } else { step };
                let attempt =
                    self.stepper
                        .attempt(&mut rhs, start, &self.states, h, &self.tolerances)?;
                step = attempt.next_step;
                if attempt.accepted {
                    self.step = Some(step);
                    break if reaches_end { end } else { start + h };
                }
                self.summary.rejected_steps += 1;
                if step < 1e-14 * start.abs().max(1.0) {
                    return Err(Error::Simulation {
                        time: start,
                        message: format!(
                            "the step size fell to {step:e} (error estimate {:e})",
                            attempt.error
                        ),
                    });
                }
            };
            self.states.copy_from_slice(self.stepper.x_new());
            set_point(self.instance, inputs, new_time, &self.states)?;
            (new_time, self.check_indicators(start, new_time)?)
        };
        if !state_event {
            self.time = new_time;
            self.stepper.accept();
        }
        self.summary.steps += 1;
        let outcome = self.instance.completed_integrator_step(true)?;
        self.summary.terminated_by_fmu |= outcome.terminate;
        Ok(state_event || outcome.enter_event_mode)
    }

    /// Compares the indicators at the end of the step with those at its start; on a sign
    /// change, locates the first crossing, moves the FMU just past it and returns true.
    fn check_indicators(&mut self, start: f64, end: f64) -> Result<bool> {
        if self.indicators.is_empty() {
            return Ok(false);
        }
        let mut after = vec![0.0; self.indicators.len()];
        self.instance.get_event_indicators(&mut after)?;
        if !self
            .indicators
            .iter()
            .zip(&after)
            .any(|(&a, &b)| sign_changed(a, b))
        {
            self.indicators = after;
            return Ok(false);
        }
        let inputs = if self.continuous_inputs {
            self.inputs
        } else {
            None
        };
        let dense = (!self.states.is_empty()).then(|| self.stepper.dense_output());
        let mut x = self.states.clone();
        let instance = &mut *self.instance;
        let mut evaluate = |t: f64, z: &mut [f64]| -> Result<()> {
            if let Some(dense) = &dense {
                dense.evaluate(t, &mut x);
            }
            set_point(instance, inputs, t, &x)?;
            instance.get_event_indicators(z)
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
        set_point(self.instance, inputs, crossing.after, &self.states)?;
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
        if !initial {
            self.summary.events += 1;
            self.instance.enter_event_mode()?;
            if let Some(inputs) = self.inputs {
                inputs.apply(self.instance, self.time)?;
            }
        }
        let mut update = EventUpdate {
            discrete_states_need_update: true,
            ..Default::default()
        };
        let mut passes = 0;
        while update.discrete_states_need_update {
            update = self.instance.update_discrete_states()?;
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
        self.instance.enter_continuous_time_mode()?;
        if !self.states.is_empty() {
            self.instance.get_continuous_states(&mut self.states)?;
            let mut nominals = vec![1.0; self.states.len()];
            self.instance
                .get_nominals_of_continuous_states(&mut nominals)?;
            self.tolerances = Tolerances::from_nominals(self.relative_tolerance, &nominals);
        }
        if !self.indicators.is_empty() {
            self.instance.set_time(self.time)?;
            self.instance.get_event_indicators(&mut self.indicators)?;
        }
        self.next_time_event = update.next_event_time;
        self.stepper.reset();
        Ok(false)
    }
}
