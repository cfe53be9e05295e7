//! [`MeStepper`]: a Model Exchange instance and the adaptive solver that advances it.
//!
//! Inputs come from the caller: a function that writes the inputs' values at a time, called
//! whenever the FMU is put at a new time (at every stage of the solver, and in event mode).
//! The stepper either owns its instance (a co-simulation participant, advanced on any thread)
//! or borrows it (`tandem simulate`, which records from the same instance).

use std::borrow::BorrowMut;

use super::equations::{put, Equations, NonFinite, StateVariables};
use crate::error::{Error, Result};
use crate::solver::{
    locate_crossing, sign_changed, DormandPrince, Interpolant, Jacobian, Ode, SolverMemory,
    Stepper, Tolerances,
};
use fmi_host::instance::{EventUpdate, FmuInstance};
use fmi_host::model_description::ModelDescription;

/// Writes the inputs' values at a time into the instance. The flag is true in event mode,
/// where inputs that change only at events may be set too; otherwise only inputs that vary
/// continuously may be.
pub type Inputs<'a> = dyn FnMut(&mut dyn FmuInstance, f64, bool) -> Result<()> + 'a;

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

/// The stepper's part of a saved point of the integration ([`MeStepper::snapshot`]): together
/// with the FMU's state, the integration continues from it exactly as it did the first time.
#[derive(Debug, Clone)]
pub struct StepperSnapshot {
    time: f64,
    states: Vec<f64>,
    indicators: Vec<f64>,
    tolerances: Tolerances,
    step: Option<f64>,
    next_time_event: Option<f64>,
    solver: SolverMemory,
}

/// A Model Exchange instance (owned, `Box<dyn FmuInstance>`, or borrowed) and the solver
/// `S` that advances it.
pub struct MeStepper<I = Box<dyn FmuInstance>, S: Stepper = DormandPrince> {
    instance: I,
    variables: StateVariables,
    time: f64,
    states: Vec<f64>,
    indicators: Vec<f64>,
    relative_tolerance: f64,
    tolerances: Tolerances,
    solver: S,
    /// The step size the controller proposes next (none before the first step).
    step: Option<f64>,
    /// The longest step: indicators are only compared at step ends.
    max_step: f64,
    next_time_event: Option<f64>,
    /// The first non-finite derivative seen since the last accepted step.
    non_finite: Option<NonFinite>,
    statistics: Statistics,
    /// Room for states from the dense output and for indicators at a step's end, kept so
    /// that a step allocates nothing.
    scratch_states: Vec<f64>,
    scratch_indicators: Vec<f64>,
    /// The last step's dense output, refilled in place.
    dense: S::Dense,
}

impl<I: BorrowMut<dyn FmuInstance>, S: Stepper> MeStepper<I, S> {
    /// Wraps the Model Exchange `instance` of the FMU described by `md`, to be integrated by
    /// `solver` with `relative_tolerance` (the absolute tolerances follow from the states'
    /// nominal values) and no limit on the step size.
    pub fn new(mut instance: I, md: &ModelDescription, relative_tolerance: f64, solver: S) -> Self {
        let n = instance.borrow_mut().number_of_continuous_states();
        let m = instance.borrow_mut().number_of_event_indicators();
        MeStepper {
            instance,
            variables: StateVariables::new(md),
            time: 0.0,
            states: vec![0.0; n],
            indicators: vec![0.0; m],
            relative_tolerance,
            tolerances: Tolerances::from_nominals(relative_tolerance, &vec![1.0; n]),
            solver,
            step: None,
            max_step: f64::INFINITY,
            next_time_event: None,
            non_finite: None,
            statistics: Statistics::default(),
            scratch_states: vec![0.0; n],
            scratch_indicators: vec![0.0; m],
            dense: S::Dense::default(),
        }
    }

    /// Limits every step to `max_step` (indicators are only compared at step ends, so this
    /// bounds how long an indicator can change sign twice unseen).
    pub fn with_max_step(mut self, max_step: f64) -> Self {
        self.max_step = max_step;
        self
    }

    /// The instance.
    pub fn instance(&mut self) -> &mut dyn FmuInstance {
        self.instance.borrow_mut()
    }

    /// The solver.
    pub fn solver(&self) -> &S {
        &self.solver
    }

    /// The time the states have reached.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The relative tolerance the states are integrated with.
    pub fn relative_tolerance(&self) -> f64 {
        self.relative_tolerance
    }

    /// The continuous states at [`Self::time`].
    pub fn states(&self) -> &[f64] {
        &self.states
    }

    /// What the stepper knows of the integration besides the FMU's own state.
    pub fn snapshot(&self) -> StepperSnapshot {
        StepperSnapshot {
            time: self.time,
            states: self.states.clone(),
            indicators: self.indicators.clone(),
            tolerances: self.tolerances.clone(),
            step: self.step,
            next_time_event: self.next_time_event,
            solver: self.solver.memory(),
        }
    }

    /// Goes back to `snapshot` (the FMU's own state is the caller's to restore).
    pub fn restore(&mut self, snapshot: &StepperSnapshot) {
        self.time = snapshot.time;
        self.states.clone_from(&snapshot.states);
        self.indicators.clone_from(&snapshot.indicators);
        self.tolerances.clone_from(&snapshot.tolerances);
        self.step = snapshot.step;
        self.next_time_event = snapshot.next_time_event;
        self.non_finite = None;
        self.solver.recall(&snapshot.solver);
    }

    /// Number of continuous states.
    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    /// The work done so far.
    pub fn statistics(&self) -> Statistics {
        self.statistics
    }

    /// The time of the next time event the FMU announced, if any.
    pub fn next_time_event(&self) -> Option<f64> {
        self.next_time_event
    }

    /// `d der(x) / dx` at the current time and states, as the implicit solvers evaluate it:
    /// with `coloured`, on the pattern the ModelStructure declares (dense without one), one
    /// directional derivative (or forward difference) per colour of its columns; otherwise
    /// dense, one per state. Leaves the FMU at the current point.
    pub fn state_jacobian(&mut self, inputs: &mut Inputs<'_>, coloured: bool) -> Result<Jacobian> {
        let MeStepper {
            instance,
            variables,
            states,
            tolerances,
            non_finite,
            statistics,
            time,
            ..
        } = self;
        let mut equations = Equations {
            instance: instance.borrow_mut(),
            inputs,
            variables,
            non_finite,
            calls: &mut statistics.calls,
        };
        let n = states.len();
        let mut jacobian = match coloured {
            true => Jacobian::for_problem(n, equations.sparsity()),
            false => Jacobian::dense(n),
        };
        let mut derivatives = vec![0.0; n];
        equations.derivatives(*time, states, &mut derivatives)?;
        let typical = tolerances.typical();
        equations.jacobian(*time, states, &derivatives, &typical, &mut jacobian)?;
        Ok(jacobian)
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
        self.advance_visiting(to, inputs, |_| {})
    }

    /// [`Self::advance_to`], showing the solver to `visit` after every step it takes (before
    /// any event handling), while it still holds that step. Without continuous states the
    /// solver takes no steps and `visit` is never called.
    pub fn advance_visiting(
        &mut self,
        to: f64,
        inputs: &mut Inputs<'_>,
        mut visit: impl FnMut(&S),
    ) -> Result<Reached> {
        self.solver.reset();
        while self.time < to {
            let due = self.next_time_event.is_some_and(|t| t <= self.time);
            let outcome = if due {
                StepOutcome::default()
            } else {
                let outcome = self.step(to, inputs)?;
                if !self.states.is_empty() {
                    visit(&self.solver);
                }
                outcome
            };
            if outcome.terminate {
                return Ok(Reached::Terminated(self.time));
            }
            if self.event_due(outcome) && self.handle_event(inputs)? {
                return Ok(Reached::Terminated(self.time));
            }
        }
        Ok(Reached::Target)
    }

    /// Whether event mode is needed after a step with `outcome`: a state or step event, or a
    /// time event reached.
    pub fn event_due(&self, outcome: StepOutcome) -> bool {
        outcome.event || self.next_time_event.is_some_and(|t| t <= self.time)
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
            end
        } else {
            let new_time = self.integrate(start, end, inputs)?;
            self.states.copy_from_slice(self.solver.x_new());
            new_time
        };
        self.set_point(new_time, inputs)?;
        let state_event = self.check_indicators(start, new_time, inputs)?;
        if !state_event {
            self.time = new_time;
            self.solver.accept();
        }
        self.statistics.steps += 1;
        self.statistics.calls += 1;
        let outcome = self.instance.borrow_mut().completed_integrator_step(true)?;
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
        let instance = self.instance.borrow_mut();
        instance.enter_event_mode()?;
        inputs(instance, self.time, true)?;
        self.event_iteration(inputs)
    }

    /// Puts the FMU at each of `times` that the last step passed (before the current time) on
    /// the step's dense output and calls `visit` there, then puts it back at the current point.
    /// Used to record an output grid finer than the steps without stopping at every point.
    pub fn revisit_last_step(
        &mut self,
        times: impl IntoIterator<Item = f64>,
        inputs: &mut Inputs<'_>,
        mut visit: impl FnMut(&mut dyn FmuInstance, f64) -> Result<()>,
    ) -> Result<()> {
        self.solver.dense_output(&mut self.dense);
        let x = &mut self.scratch_states;
        x.resize(self.states.len(), 0.0);
        let mut moved = false;
        for time in times.into_iter().take_while(|&t| t < self.time) {
            self.dense.evaluate(time, x);
            let instance = self.instance.borrow_mut();
            put(instance, &mut self.statistics.calls, time, x, inputs)?;
            visit(instance, time)?;
            moved = true;
        }
        if moved {
            self.set_point(self.time, inputs)?;
        }
        Ok(())
    }

    /// Attempts steps from (`start`, states) until one towards `end` is accepted; returns the
    /// time it reaches (the new states are the solver's).
    fn integrate(&mut self, start: f64, end: f64, inputs: &mut Inputs<'_>) -> Result<f64> {
        let MeStepper {
            instance,
            variables,
            states,
            tolerances,
            solver,
            statistics,
            step: proposed,
            max_step,
            non_finite,
            ..
        } = self;
        let mut equations = Equations {
            instance: instance.borrow_mut(),
            inputs,
            variables,
            non_finite,
            calls: &mut statistics.calls,
        };
        let mut step = match *proposed {
            Some(step) => step,
            None => solver.initial_step(&mut equations, start, states, tolerances, end - start)?,
        }
        .min(*max_step);
        loop {
            let reaches_end = step >= (end - start) * (1.0 - 1e-12);
            let h = if reaches_end { end - start } else { step };
            let attempt = solver.attempt(&mut equations, start, states, h, tolerances)?;
            step = attempt.next_step.min(*max_step);
            if attempt.accepted {
                *proposed = Some(step);
                *equations.non_finite = None;
                return Ok(if reaches_end { end } else { start + h });
            }
            statistics.rejected_steps += 1;
            if step < 1e-14 * start.abs().max(1.0) {
                let name = equations.instance.name();
                let message = match equations.non_finite.take() {
                    Some(non_finite) => format!(
                        "{name} returned {}; no step from t = {start} avoids it",
                        non_finite.describe(variables)
                    ),
                    None => format!(
                        "instance {name}: the step size fell to {step:e} (error estimate {:e})",
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

    /// Puts the FMU at `time` with the current states and its inputs there.
    fn set_point(&mut self, time: f64, inputs: &mut Inputs<'_>) -> Result<()> {
        let instance = self.instance.borrow_mut();
        put(
            instance,
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
        let mut after = std::mem::take(&mut self.scratch_indicators);
        after.resize(self.indicators.len(), 0.0);
        self.statistics.calls += 1;
        self.instance
            .borrow_mut()
            .get_event_indicators(&mut after)?;
        if !self
            .indicators
            .iter()
            .zip(&after)
            .any(|(&a, &b)| sign_changed(a, b))
        {
            std::mem::swap(&mut self.indicators, &mut after);
            self.scratch_indicators = after;
            return Ok(false);
        }
        let has_states = !self.states.is_empty();
        if has_states {
            self.solver.dense_output(&mut self.dense);
        }
        let dense = has_states.then_some(&self.dense);
        let mut x = self.states.clone();
        let (instance, calls) = (self.instance.borrow_mut(), &mut self.statistics.calls);
        let mut evaluate = |t: f64, z: &mut [f64]| -> Result<()> {
            if let Some(dense) = &dense {
                dense.evaluate(t, &mut x);
            }
            put(instance, calls, t, &x, inputs)?;
            *calls += 1;
            Ok(instance.get_event_indicators(z)?)
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
    /// nominals, indicators and next time event the FMU reports; true when it asks to
    /// terminate.
    fn event_iteration(&mut self, inputs: &mut Inputs<'_>) -> Result<bool> {
        let instance = self.instance.borrow_mut();
        let mut update = EventUpdate {
            discrete_states_need_update: true,
            ..Default::default()
        };
        let mut passes = 0;
        while update.discrete_states_need_update {
            self.statistics.calls += 1;
            update = instance.update_discrete_states()?;
            passes += 1;
            if update.terminate {
                return Ok(true);
            }
            if passes > MAX_EVENT_PASSES {
                return Err(Error::Simulation {
                    time: self.time,
                    message: format!(
                        "instance {}: the event iteration did not converge in {MAX_EVENT_PASSES} passes",
                        instance.name()
                    ),
                });
            }
        }
        self.statistics.calls += 1;
        instance.enter_continuous_time_mode()?;
        if !self.states.is_empty() {
            self.statistics.calls += 2;
            instance.get_continuous_states(&mut self.states)?;
            if let Some(index) = self.states.iter().position(|x| !x.is_finite()) {
                return Err(Error::Simulation {
                    time: self.time,
                    message: format!(
                        "{} set the state {} to {} in event mode",
                        instance.name(),
                        self.variables.state_name(index),
                        self.states[index]
                    ),
                });
            }
            let mut nominals = vec![1.0; self.states.len()];
            instance.get_nominals_of_continuous_states(&mut nominals)?;
            self.tolerances = Tolerances::from_nominals(self.relative_tolerance, &nominals);
        }
        if !self.indicators.is_empty() {
            self.set_point(self.time, inputs)?;
            self.statistics.calls += 1;
            self.instance
                .borrow_mut()
                .get_event_indicators(&mut self.indicators)?;
        }
        self.next_time_event = update.next_event_time;
        // The solution may have jumped: restart from a fresh step-size estimate, which also
        // keeps the first step after a reset too short to cross an indicator twice.
        self.solver.reset();
        self.step = None;
        Ok(false)
    }
}
