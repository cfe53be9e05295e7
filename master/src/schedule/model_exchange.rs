//! Model Exchange FMUs as steppers: the master integrates the FMU's states with the adaptive
//! Dormand–Prince method of [`crate::solver`], stops at time events, locates state events on
//! the dense output, reports completed steps (step events) and runs the FMU's event iteration.
//!
//! [`MeStepper`] owns its instance, so that a co-simulation participant can advance it from
//! one communication point to the next on any thread. Inputs come from the caller: a function
//! that writes the inputs' values at a time, called whenever the FMU is put at a new time (at
//! every stage of the integrator, and in event mode).

use crate::error::{Error, Result};
use crate::instance::{EventUpdate, FmuInstance};
use crate::solver::{locate_crossing, sign_changed, DormandPrince, Interpolant, Stepper, Tolerances};

/// Writes the inputs' values at a time into the instance.
pub type Inputs<'a> = dyn FnMut(&mut dyn FmuInstance, f64) -> Result<()> + 'a;

/// Passes of the event iteration after which it is deemed not to converge.
const MAX_EVENT_PASSES: usize = 1000;

/// How far an advance got.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reached {
    /// The target time.
    Target,
    /// The FMU asked to end the simulation at this time.
    Terminated(f64),
}

/// The outcome of one integrator step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepOutcome {
    /// A state event or step event: the FMU needs event mode now.
    pub event: bool,
    /// The FMU asked to end the simulation.
    pub terminate: bool,
}

/// Counts of the work done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Accepted integrator steps.
    pub steps: usize,
    /// Rejected integrator steps.
    pub rejected_steps: usize,
    /// Events handled after initialization.
    pub events: usize,
    /// FMI calls made by the stepper (the input writes are the caller's).
    pub calls: usize,
}

/// A Model Exchange instance and the integrator that advances it.
pub struct MeStepper {
    instance: Box<dyn FmuInstance>,
    time: f64,
    states: Vec<f64>,
    indicators: Vec<f64>,
    relative_tolerance: f64,
    tolerances: Tolerances,
    solver: DormandPrince,
    /// The step size the controller proposes next (none before the first step).
    step: Option<f64>,
    next_time_event: Option<f64>,
    statistics: Statistics,
}

impl MeStepper {
    /// Wraps a Model Exchange `instance` to be integrated with `relative_tolerance` (the
    /// absolute tolerances follow from the states' nominal values).
    pub fn new(instance: Box<dyn FmuInstance>, relative_tolerance: f64) -> Self {
        let n = instance.number_of_continuous_states();
        let m = instance.number_of_event_indicators();
        MeStepper {
            instance,
            time: 0.0,
            states: vec![0.0; n],
            indicators: vec![0.0; m],
            relative_tolerance,
            tolerances: Tolerances::from_nominals(relative_tolerance, &vec![1.0; n]),
            solver: DormandPrince::new(n),
            step: None,
            next_time_event: None,
            statistics: Statistics::default(),
        }
    }

    /// The instance.
    pub fn instance(&mut self) -> &mut dyn FmuInstance {
        self.instance.as_mut()
    }

    /// The time the states have reached.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The work done so far.
    pub fn statistics(&self) -> Statistics {
        self.statistics
    }

    /// The time of the next time event the FMU announced, if any.
    pub fn next_time_event(&self) -> Option<f64> {
        self.next_time_event
    }

    /// Starts the integration at `time`, right after the instance left initialization mode
    /// (in event mode): settles the initial discrete states and reads the continuous states.
    /// Returns true when the FMU asks to terminate.
    pub fn start(&mut self, time: f64, inputs: &mut Inputs<'_>) -> Result<bool> {
        self.time = time;
        self.event_iteration(inputs)
    }

    /// Integrates to `to`, handling every event on the way. The inputs may have jumped since
    /// the last call (a new communication point), so the integrator starts afresh.
    pub fn advance_to(&mut self, to: f64, inputs: &mut Inputs<'_>) -> Result<Reached> {
        self.solver.reset();
        while self.time < to {
            let due = self.next_time_event.is_some_and(|t| t <= self.time);
            let outcome = if due {
                StepOutcome::default()
            } else {
                self.step(to, inputs)?
            };
            if outcome.terminate {
                return Ok(Reached::Terminated(self.time));
            }
            let time_event = self.next_time_event.is_some_and(|t| t <= self.time);
            if (outcome.event || time_event) && self.handle_event(inputs)? {
                return Ok(Reached::Terminated(self.time));
            }
        }
        Ok(Reached::Target)
    }

    /// Takes one accepted step towards `limit` (or the next time event, if sooner); on a state
    /// event the states stop just past its first crossing.
    pub fn step(&mut self, limit: f64, inputs: &mut Inputs<'_>) -> Result<StepOutcome> {
        let end = match self.next_time_event {
            Some(t) if t > self.time && t < limit => t,
            _ => limit,
        };
        let start = self.time;
        let new_time = if self.states.is_empty() {
            self.set_point(end, inputs)?;
            end
        } else {
            let new_time = self.integrate(start, end, inputs)?;
            self.states.copy_from_slice(self.solver.x_new());
            self.set_point(new_time, inputs)?;
            new_time
        };
        let state_event = self.check_indicators(start, new_time, inputs)?;
        if !state_event {
            self.time = new_time;
            self.solver.accept();
        }
        self.statistics.steps += 1;
        self.statistics.calls += 1;
        let outcome = self.instance.completed_integrator_step(true)?;
        Ok(StepOutcome {
            event: state_event || outcome.enter_event_mode,
            terminate: outcome.terminate,
        })
    }

    /// Enters event mode at the current time and runs the event iteration; returns true when
    /// the FMU asks to terminate.
    pub fn handle_event(&mut self, inputs: &mut Inputs<'_>) -> Result<bool> {
        self.statistics.events += 1;
        self.statistics.calls += 1;
        self.instance.enter_event_mode()?;
        inputs(self.instance.as_mut(), self.time)?;
        self.event_iteration(inputs)
    }

    /// Attempts steps from (`start`, states) until one towards `end` is accepted; returns the
    /// time it reaches (the new states are the solver's).
    fn integrate(&mut self, start: f64, end: f64, inputs: &mut Inputs<'_>) -> Result<f64> {
        let MeStepper {
            instance,
            states,
            tolerances,
            solver,
            statistics,
            step: proposed,
            ..
        } = self;
        let calls = &mut statistics.calls;
        let mut rhs = |t: f64, x: &[f64], dx: &mut [f64]| -> Result<()> {
            put(instance.as_mut(), calls, t, x, inputs)?;
            *calls += 1;
            instance.get_derivatives(dx)
        };
        let mut step = match *proposed {
            Some(step) => step,
            None => solver.initial_step(&mut rhs, start, states, tolerances, end - start)?,
        };
        loop {
            let reaches_end = step >= (end - start) * (1.0 - 1e-12);
            let h = if reaches_end { end - start } else { step };
            let attempt = solver.attempt(&mut rhs, start, states, h, tolerances)?;
            step = attempt.next_step;
            if attempt.accepted {
                *proposed = Some(step);
                return Ok(if reaches_end { end } else { start + h });
            }
            statistics.rejected_steps += 1;
            if step < 1e-14 * start.abs().max(1.0) {
                return Err(Error::Simulation {
                    time: start,
                    message: format!(
                        "instance {}: the step size fell to {step:e} (error estimate {:e})",
                        instance.name(),
                        attempt.error
                    ),
                });
            }
        }
    }

    /// Puts the FMU at `time` with the current states and its inputs there.
    fn set_point(&mut self, time: f64, inputs: &mut Inputs<'_>) -> Result<()> {
        put(
            self.instance.as_mut(),
            &mut self.statistics.calls,
            time,
            &self.states,
            inputs,
        )
    }

    /// Compares the indicators at the end of the step with those at its start; on a sign
    /// change, locates the first crossing, moves the FMU just past it and returns true.
    fn check_indicators(&mut self, start: f64, end: f64, inputs: &mut Inputs<'_>) -> Result<bool> {
        if self.indicators.is_empty() {
            return Ok(false);
        }
        let mut after = vec![0.0; self.indicators.len()];
        self.statistics.calls += 1;
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
        let dense = (!self.states.is_empty()).then(|| self.solver.dense_output());
        let mut x = self.states.clone();
        let (instance, calls) = (&mut self.instance, &mut self.statistics.calls);
        let mut evaluate = |t: f64, z: &mut [f64]| -> Result<()> {
            if let Some(dense) = &dense {
                dense.evaluate(t, &mut x);
            }
            put(instance.as_mut(), calls, t, &x, inputs)?;
            *calls += 1;
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
        self.set_point(crossing.after, inputs)?;
        self.time = crossing.after;
        self.indicators = crossing.indicators_after;
        self.solver.reset();
        Ok(true)
    }

    /// The event iteration in event mode, then back to continuous time with the states,
    /// nominals, indicators and next time event the FMU reports; true when it asks to terminate.
    fn event_iteration(&mut self, inputs: &mut Inputs<'_>) -> Result<bool> {
        let mut update = EventUpdate {
            discrete_states_need_update: true,
            ..Default::default()
        };
        let mut passes = 0;
        while update.discrete_states_need_update {
            self.statistics.calls += 1;
            update = self.instance.update_discrete_states()?;
            passes += 1;
            if update.terminate {
                return Ok(true);
            }
            if passes > MAX_EVENT_PASSES {
                return Err(Error::Simulation {
                    time: self.time,
                    message: format!(
                        "instance {}: the event iteration did not converge in {MAX_EVENT_PASSES} passes",
                        self.instance.name()
                    ),
                });
            }
        }
        self.statistics.calls += 1;
        self.instance.enter_continuous_time_mode()?;
        if !self.states.is_empty() {
            self.statistics.calls += 2;
            self.instance.get_continuous_states(&mut self.states)?;
            let mut nominals = vec![1.0; self.states.len()];
            self.instance
                .get_nominals_of_continuous_states(&mut nominals)?;
            self.tolerances = Tolerances::from_nominals(self.relative_tolerance, &nominals);
        }
        if !self.indicators.is_empty() {
            self.set_point(self.time, inputs)?;
            self.statistics.calls += 1;
            self.instance.get_event_indicators(&mut self.indicators)?;
        }
        self.next_time_event = update.next_event_time;
        self.solver.reset();
        Ok(false)
    }
}

/// Puts `instance` at `time` with `states` (when it has any) and its inputs there, counting
/// the calls.
fn put(
    instance: &mut dyn FmuInstance,
    calls: &mut usize,
    time: f64,
    states: &[f64],
    inputs: &mut Inputs<'_>,
) -> Result<()> {
    *calls += 1;
    instance.set_time(time)?;
    inputs(instance, time)?;
    if !states.is_empty() {
        *calls += 1;
        instance.set_continuous_states(states)?;
    }
    Ok(())
}
