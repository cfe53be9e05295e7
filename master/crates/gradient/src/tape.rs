//! The record of a forward run that the sweeps read, per participant: its initialization, the
//! values of the cost's outputs at every macro point, and a window of macro steps (the inputs
//! every step used and how they were computed from communicated samples, the values
//! communicated, FMU states to come back to). A run that only evaluates the cost keeps no
//! window; a gradient run keeps the whole run in it, or, with checkpoints, nothing at first:
//! the sweeps re-run one segment at a time into it (see [`super::checkpoints`]), so that it
//! never holds more than one segment.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use fmi_host::instance::{seed_references, DerivativeLayout, FmuInstance, FmuState};
use tandem_cosim::schedule::{Event, Hold, Recorder};
use tandem_cosim::{Error, Result};

/// Which FMU states a forward run keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatePolicy {
    /// None: the run only evaluates the cost.
    Nothing,
    /// The states at the start and at every `n`-th macro point; the sweeps recompute the
    /// steps in between from them.
    Checkpoints(usize),
    /// The state at every macro point and before every sub-step: nothing is recomputed.
    All,
}

/// The count of initialization samples read, shared by the tapes of one run.
pub type InitializationClock = Arc<AtomicUsize>;

/// The initialization samples of `tapes` before their values after initialization, as
/// (participant, tag) in the order they were read.
pub fn initialization_samples(tapes: &[Tape]) -> Vec<(usize, usize)> {
    let mut samples: Vec<(usize, usize, usize)> = tapes
        .iter()
        .enumerate()
        .flat_map(|(i, tape)| {
            let read = tape.initialization_order.iter().take(tape.start_tag);
            read.enumerate().map(move |(tag, &place)| (place, i, tag))
        })
        .collect();
    samples.sort_unstable();
    samples.into_iter().map(|(_, i, tag)| (i, tag)).collect()
}

/// The inputs written at one time, and how each was computed.
#[derive(Debug, Clone)]
pub struct InputRecord {
    /// When.
    pub time: f64,
    /// The values, in the participant's input order.
    pub values: Vec<f64>,
    /// How each value was computed from communicated samples.
    pub holds: Vec<Hold>,
}

/// One step of a participant.
#[derive(Debug, Clone)]
pub struct SubStep {
    /// The inputs written before the step (their time is the step's start).
    pub inputs: InputRecord,
    /// Length of the step.
    pub step: f64,
}

/// A participant's part of one macro step.
#[derive(Debug, Clone)]
pub struct MacroStep {
    /// Its steps (several when it runs multi-rate).
    pub sub_steps: Vec<SubStep>,
    /// The inputs written at the end of the macro step, before its outputs were read.
    pub end: InputRecord,
    /// The tag of the values read there.
    pub tag: usize,
}

/// What the reverse pass needs to know of a participant's derivatives.
#[derive(Debug, Clone)]
pub struct Derivatives {
    /// The seed order.
    pub layout: DerivativeLayout,
    /// Length of the discrete state, asked once initialization is over (the extension only
    /// answers in step mode); zero until then.
    pub state_size: usize,
    /// The layout's inputs when initialization started (before the master set any).
    pub start_inputs: Vec<f64>,
}

/// A point of the recorded run an FMU state belongs to: before sub-step `sub_step` of macro
/// step `step`. Sub-step 0 is macro point `step` itself: its state, kept as read with the
/// previous macro step's end inputs, serves the first step too once its inputs are written
/// (the inputs are all an FMU state there differs in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The macro step (or point).
    pub step: usize,
    /// The sub-step within it.
    pub sub_step: usize,
}

impl Place {
    /// Macro point `point`.
    pub fn point(point: usize) -> Self {
        Place {
            step: point,
            sub_step: 0,
        }
    }
}

/// Where the recording is in the participant's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Initializing,
    Initialized,
    Stepping,
}

/// Consecutive macro steps of the run, from `first`, with the values at their points and the
/// FMU states the sweeps restore.
#[derive(Default)]
struct Window {
    first: usize,
    steps: Vec<MacroStep>,
    /// The observed values at points `first ..= first + steps.len()`.
    values: Vec<Vec<f64>>,
    /// The FMU states at points `first ..= first + steps.len()` (`None`: not kept, or freed).
    point_states: Vec<Option<FmuState>>,
    /// Per macro step, the states before its sub-steps 1, 2, ...
    sub_step_states: Vec<Vec<Option<FmuState>>>,
    /// A state at point `first + steps.len()` to take instead of reading one there (handed
    /// on from the window this one replaced, or the checkpoint there).
    end_state: Option<(usize, FmuState)>,
}

impl Window {
    /// Every state the window holds, taken out of it.
    fn take_states(&mut self) -> Vec<FmuState> {
        let mut states: Vec<FmuState> = self
            .point_states
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        for step in &mut self.sub_step_states {
            states.extend(step.iter_mut().filter_map(Option::take));
        }
        states.extend(self.end_state.take().map(|(_, state)| state));
        states
    }
}

/// The allocations of a replaced window's records, which the next window's records reuse: a
/// checkpointed gradient re-runs one segment after another, each into a new window, and
/// allocated every record anew (134 thousand allocations in a gradient of the bench's 33-FMU
/// chain over 1000 macro steps).
#[derive(Default)]
struct Spares {
    records: Vec<InputRecord>,
    sub_step_lists: Vec<Vec<SubStep>>,
    values: Vec<Vec<f64>>,
}

impl Spares {
    /// Takes over the records of `steps` and the value lists of `values`, emptying both.
    fn keep(&mut self, steps: &mut Vec<MacroStep>, values: &mut Vec<Vec<f64>>) {
        for MacroStep {
            mut sub_steps, end, ..
        } in steps.drain(..)
        {
            self.records
                .extend(sub_steps.drain(..).map(|sub_step| sub_step.inputs));
            self.records.push(end);
            self.sub_step_lists.push(sub_steps);
        }
        self.values.append(values);
    }

    /// The record of `values` written at `time` as `holds` say.
    fn record(&mut self, time: f64, values: &[f64], holds: &[Hold]) -> InputRecord {
        let mut record = self.records.pop().unwrap_or_else(|| InputRecord {
            time,
            values: Vec::new(),
            holds: Vec::new(),
        });
        record.time = time;
        record.values.clear();
        record.values.extend_from_slice(values);
        record.holds.clear();
        record.holds.extend_from_slice(holds);
        record
    }

    /// An empty list of sub-steps.
    fn sub_step_list(&mut self) -> Vec<SubStep> {
        self.sub_step_lists.pop().unwrap_or_default()
    }

    /// A copy of `values`.
    fn values(&mut self, values: &[f64]) -> Vec<f64> {
        let mut kept = self.values.pop().unwrap_or_default();
        kept.clear();
        kept.extend_from_slice(values);
        kept
    }
}

/// The record of one participant's run.
pub struct Tape {
    policy: StatePolicy,
    /// Whether stepping events go into the window (false while a checkpointed run goes
    /// forward the first time).
    windowed: bool,
    /// Whether macro points add to the cost's values (false while re-running a segment).
    costing: bool,
    phase: Phase,
    pending: Option<InputRecord>,
    sub_steps: Vec<SubStep>,
    sub_step_states: Vec<Option<FmuState>>,
    /// The number of values observed so far (the next one's tag).
    observed: usize,
    /// The macro point reached.
    point: usize,
    /// The latest observed values.
    latest: Vec<f64>,
    /// The observed slots the cost reads.
    cost_slots: Vec<usize>,
    /// Per macro point, the values of `cost_slots`.
    cost_values: Vec<f64>,
    window: Window,
    /// The allocations of replaced windows, for the next one's records.
    spares: Spares,
    /// The largest number of macro steps the window held at once.
    peak_steps: usize,
    /// The recorded place whose FMU state the instance is in (up to its inputs), if known.
    at: Cell<Option<Place>>,
    /// The derivatives of the participant's FMU, when the policy keeps states and the FMU
    /// provides them.
    pub derivatives: Option<Derivatives>,
    /// Per initialization sample (by tag), the inputs written before it (none for the first,
    /// read with the inputs' start values).
    pub initialization: Vec<Option<InputRecord>>,
    /// Per initialization sample (by tag), its place among the initialization samples of
    /// every participant, in the order they were read: the propagation reads the
    /// participants in dependency order, not in passes, so a sample's tag alone does not
    /// place it after the samples its inputs came from.
    pub initialization_order: Vec<usize>,
    /// The inputs written after the last initialization sample (inputs set again from
    /// values read later), which the values after initialization were read with.
    pub final_inputs: Option<InputRecord>,
    /// The count of initialization samples read so far, shared by the tapes of one run.
    clock: InitializationClock,
    /// The tag of the values at the start time after initialization.
    pub start_tag: usize,
}

impl Tape {
    /// An empty tape keeping the FMU states `policy` asks for and, at every macro point, the
    /// values of the observed slots `cost_slots`, placing its initialization samples on
    /// `clock` (one for all the tapes of a run).
    pub fn new(policy: StatePolicy, cost_slots: Vec<usize>, clock: InitializationClock) -> Self {
        Tape {
            policy,
            windowed: policy == StatePolicy::All,
            costing: true,
            phase: Phase::Initializing,
            pending: None,
            sub_steps: Vec::new(),
            sub_step_states: Vec::new(),
            observed: 0,
            point: 0,
            latest: Vec::new(),
            cost_slots,
            cost_values: Vec::new(),
            window: Window::default(),
            spares: Spares::default(),
            peak_steps: 0,
            at: Cell::new(None),
            derivatives: None,
            initialization: Vec::new(),
            initialization_order: Vec::new(),
            final_inputs: None,
            clock,
            start_tag: 0,
        }
    }

    /// The tag of the values communicated at macro point `point` (0: the start).
    pub fn point_tag(&self, point: usize) -> usize {
        self.start_tag + point
    }

    /// The value of the cost's slot `slot` at macro point `point`.
    pub fn cost_value(&self, point: usize, slot: usize) -> f64 {
        let column = self
            .cost_slots
            .iter()
            .position(|&s| s == slot)
            .expect("the cost's slots are recorded");
        self.cost_values[point * self.cost_slots.len() + column]
    }

    /// The latest observed values.
    pub fn latest(&self) -> &[f64] {
        &self.latest
    }

    /// Whether the window holds macro step `k`.
    pub fn holds_step(&self, k: usize) -> bool {
        (self.window.first..self.window.first + self.window.steps.len()).contains(&k)
    }

    /// Macro step `k`, which the window must hold.
    pub fn step(&self, k: usize) -> &MacroStep {
        &self.window.steps[k - self.window.first]
    }

    /// The values observed at macro point `point`, which the window must hold.
    pub fn values(&self, point: usize) -> &[f64] {
        &self.window.values[point - self.window.first]
    }

    /// The FMU state at `place`, if the window keeps it.
    pub fn state(&self, place: Place) -> Option<&FmuState> {
        let index = place.step.checked_sub(self.window.first)?;
        match place.sub_step {
            0 => self.window.point_states.get(index)?.as_ref(),
            j => self.window.sub_step_states.get(index)?.get(j - 1)?.as_ref(),
        }
    }

    /// The place the instance is at, if known.
    pub fn at(&self) -> Option<Place> {
        self.at.get()
    }

    /// Notes that the instance is now at `place` (its state restored there).
    pub fn set_at(&self, place: Option<Place>) {
        self.at.set(place);
    }

    /// The largest number of macro steps the tape held at once.
    pub fn peak_steps(&self) -> usize {
        self.peak_steps
    }

    /// Starts a new window at macro point `first`, whose state `start` and values `values`
    /// are known, for a re-run of the steps up to point `end`; stops adding to the cost's
    /// values. Returns the states of the old window to free (its state at `end`, if it had
    /// one, serves the new window instead of a copy).
    pub fn begin_window(
        &mut self,
        first: usize,
        end: usize,
        start: FmuState,
        values: Vec<f64>,
    ) -> Vec<FmuState> {
        let mut old = std::mem::take(&mut self.window);
        let handed_on = match end.checked_sub(old.first) {
            Some(index) => old.point_states.get_mut(index).and_then(Option::take),
            None => None,
        };
        let mut steps = std::mem::take(&mut old.steps);
        self.spares.keep(&mut steps, &mut old.values);
        self.window = Window {
            first,
            steps,
            values: vec![values],
            point_states: vec![Some(start)],
            sub_step_states: Vec::new(),
            end_state: handed_on.map(|state| (end, state)),
        };
        self.windowed = true;
        self.costing = false;
        self.point = first;
        self.observed = self.point_tag(first) + 1;
        self.at.set(Some(Place::point(first)));
        old.take_states()
    }

    /// Frees the states of macro step `k` a reverse sweep is done with: before its sub-steps
    /// after the first, and at its end.
    pub fn take_step_states(&mut self, k: usize) -> Vec<FmuState> {
        let index = k - self.window.first;
        let mut states: Vec<FmuState> = self.window.sub_step_states[index]
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        states.extend(self.window.point_states[index + 1].take());
        states
    }

    /// Frees the states macro step `k` started from, which a forward sweep is done with: at
    /// its start point and before its later sub-steps. The state at its end stays.
    pub fn take_states_before(&mut self, k: usize) -> Vec<FmuState> {
        let index = k - self.window.first;
        let mut states: Vec<FmuState> = self.window.sub_step_states[index]
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        states.extend(self.window.point_states[index].take());
        states
    }

    /// Every FMU state the tape still holds, taken out of it (to free them).
    pub fn take_states(&mut self) -> Vec<FmuState> {
        let mut states = self.window.take_states();
        states.extend(self.sub_step_states.drain(..).flatten());
        states
    }

    fn record(&mut self, instance: &mut dyn FmuInstance, event: Event<'_>) -> Result<()> {
        match (self.phase, event) {
            (
                Phase::Initializing | Phase::Stepping,
                Event::Inputs {
                    time,
                    values,
                    holds,
                },
            ) => {
                if self.phase == Phase::Initializing || self.windowed {
                    self.pending = Some(self.spares.record(time, values, holds));
                }
            }
            (Phase::Initializing, Event::Observed { .. }) => {
                if self.observed == 0 {
                    self.derivatives = self.read_derivatives(instance)?;
                }
                let inputs = self.pending.take();
                if self.derivatives.is_some() {
                    self.initialization.push(inputs);
                    let place = self.clock.fetch_add(1, Ordering::Relaxed);
                    self.initialization_order.push(place);
                }
                self.observed += 1;
            }
            (Phase::Initializing, Event::Initialized) => {
                self.final_inputs = self.pending.take();
                self.phase = Phase::Initialized;
            }
            (Phase::Initialized, Event::Observed { values, .. }) => {
                self.start_tag = self.observed;
                self.phase = Phase::Stepping;
                self.read_state_size(instance)?;
                self.reach_point(instance, values)?;
            }
            (Phase::Stepping, Event::Step { step, .. }) => {
                self.at.set(None);
                if self.windowed {
                    let inputs = self.pending.take().ok_or_else(|| unexpected(&event))?;
                    if !self.sub_steps.is_empty() && self.derivatives.is_some() {
                        self.sub_step_states.push(Some(instance.get_fmu_state()?));
                    }
                    self.sub_steps.push(SubStep { inputs, step });
                }
            }
            (Phase::Stepping, Event::Observed { values, .. }) => {
                if self.windowed {
                    let end = self.pending.take().ok_or_else(|| unexpected(&event))?;
                    let sub_steps =
                        std::mem::replace(&mut self.sub_steps, self.spares.sub_step_list());
                    let states = std::mem::take(&mut self.sub_step_states);
                    self.window.steps.push(MacroStep {
                        sub_steps,
                        end,
                        tag: self.observed,
                    });
                    self.window.sub_step_states.push(states);
                    self.peak_steps = self.peak_steps.max(self.window.steps.len());
                }
                self.point += 1;
                self.reach_point(instance, values)?;
            }
            _ => return Err(unexpected(&event)),
        }
        Ok(())
    }

    /// Records the values `values` read at the macro point reached (and, in the window, the
    /// instance's state there).
    fn reach_point(&mut self, instance: &mut dyn FmuInstance, values: &[f64]) -> Result<()> {
        self.observed += 1;
        self.latest.clear();
        self.latest.extend_from_slice(values);
        if self.costing {
            self.cost_values
                .extend(self.cost_slots.iter().map(|&slot| values[slot]));
        }
        self.at.set(Some(Place::point(self.point)));
        if !self.windowed {
            return Ok(());
        }
        if self.window.values.len() <= self.point - self.window.first {
            let kept = self.spares.values(values);
            self.window.values.push(kept);
        }
        let state = match self.window.end_state.take() {
            Some((point, state)) if point == self.point => Some(state),
            other => {
                self.window.end_state = other;
                match self.derivatives {
                    Some(_) => Some(instance.get_fmu_state()?),
                    None => None,
                }
            }
        };
        let index = self.point - self.window.first;
        if self.window.point_states.len() <= index {
            self.window.point_states.resize_with(index + 1, || None);
        }
        if self.window.point_states[index].is_none() {
            self.window.point_states[index] = state;
        } else if let Some(state) = state {
            instance.free_fmu_state(state)?;
        }
        Ok(())
    }

    /// The instance's derivatives, when the policy keeps states and the FMU provides them;
    /// called at the first sample, when the inputs still have their start values.
    fn read_derivatives(&self, instance: &mut dyn FmuInstance) -> Result<Option<Derivatives>> {
        if self.policy == StatePolicy::Nothing {
            return Ok(None);
        }
        let Some(derivatives) = instance.step_derivatives() else {
            return Ok(None);
        };
        let layout = derivatives.layout();
        let mut start_inputs = vec![0.0; layout.inputs.len()];
        instance.get_real(&seed_references(&layout.inputs), &mut start_inputs)?;
        Ok(Some(Derivatives {
            layout,
            state_size: 0,
            start_inputs,
        }))
    }

    /// Asks the instance, now at the start time in step mode, for the length of its discrete
    /// state.
    fn read_state_size(&mut self, instance: &mut dyn FmuInstance) -> Result<()> {
        let Some(derivatives) = self.derivatives.as_mut() else {
            return Ok(());
        };
        let name = instance.name().to_string();
        let provider = instance
            .step_derivatives()
            .ok_or_else(|| Error::InvalidValue {
                item: format!("instance {name}"),
                message: "provided step derivatives during initialization but not after it".into(),
            })?;
        derivatives.state_size = provider.state_size()?;
        Ok(())
    }
}

/// An event out of the order the schedule documents.
fn unexpected(event: &Event<'_>) -> Error {
    Error::InvalidValue {
        item: "gradient recording".into(),
        message: format!(
            "the co-simulation reported {event:?} where the recording did not expect it \
             (the event order of schedule::Event changed)"
        ),
    }
}

/// The tapes of a run, shared with its participants' recorders.
pub type SharedTapes = Vec<Arc<Mutex<Tape>>>;

/// Locks `tape`, even if a recorder panicked while holding it.
pub fn lock(tape: &Mutex<Tape>) -> std::sync::MutexGuard<'_, Tape> {
    tape.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A participant's recorder: fills a tape the gradient reads after the run.
pub struct TapeRecorder {
    tape: Arc<Mutex<Tape>>,
}

impl TapeRecorder {
    /// A recorder filling `tape`.
    pub fn new(tape: Arc<Mutex<Tape>>) -> Self {
        TapeRecorder { tape }
    }
}

impl Recorder for TapeRecorder {
    fn record(
        &mut self,
        instance: &mut dyn FmuInstance,
        event: Event<'_>,
    ) -> tandem_cosim::Result<()> {
        lock(&self.tape).record(instance, event)
    }
}
