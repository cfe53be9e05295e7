//! The record of a forward run that the reverse pass reads: per participant, the inputs every
//! step used and how they were computed from communicated samples, the values it communicated,
//! and FMU states to restore (all of them, or checkpoints to recompute the rest from).

use std::sync::{Arc, Mutex, PoisonError};

use super::derivatives::DerivativeLayout;
use crate::error::{Error, Result};
use crate::instance::{FmuInstance, FmuState};
use crate::schedule::{Event, Hold, Recorder};

/// Which FMU states a forward run keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatePolicy {
    /// None: the run only evaluates the cost.
    Nothing,
    /// The states at the start and at every `n`-th macro point; the reverse pass recomputes
    /// the steps in between from them.
    Checkpoints(usize),
    /// The state before every step and at every macro point: nothing is recomputed.
    All,
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

/// Where the recording is in the participant's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Initializing,
    Initialized,
    Stepping,
}

/// The record of one participant's run.
pub struct Tape {
    policy: StatePolicy,
    phase: Phase,
    pending: Option<InputRecord>,
    sub_steps: Vec<SubStep>,
    /// The derivatives of the participant's FMU, when the policy keeps states and the FMU
    /// provides them.
    pub derivatives: Option<Derivatives>,
    /// Every communicated sample, by tag.
    pub observations: Vec<Vec<f64>>,
    /// Per initialization sample (by tag), the inputs written before it (none for the first,
    /// read with the inputs' start values).
    pub initialization: Vec<Option<InputRecord>>,
    /// The tag of the values at the start time after initialization.
    pub start_tag: usize,
    /// The macro steps.
    pub steps: Vec<MacroStep>,
    /// FMU states at macro points (0: the start), with the end inputs of the macro step written.
    pub point_states: Vec<Option<FmuState>>,
    /// FMU states before each step, by macro step and step, with the step's inputs written.
    pub sub_step_states: Vec<Vec<Option<FmuState>>>,
}

impl Tape {
    /// An empty tape keeping the FMU states `policy` asks for.
    pub fn new(policy: StatePolicy) -> Self {
        Tape {
            policy,
            phase: Phase::Initializing,
            pending: None,
            sub_steps: Vec::new(),
            derivatives: None,
            observations: Vec::new(),
            initialization: Vec::new(),
            start_tag: 0,
            steps: Vec::new(),
            point_states: Vec::new(),
            sub_step_states: Vec::new(),
        }
    }

    /// The tag of the values communicated at macro point `point` (0: the start).
    pub fn point_tag(&self, point: usize) -> usize {
        match point {
            0 => self.start_tag,
            _ => self.steps[point - 1].tag,
        }
    }

    /// The checkpoint interval: macro steps recomputed from one stored state.
    pub fn checkpoint_interval(&self) -> usize {
        match self.policy {
            StatePolicy::Checkpoints(n) => n,
            StatePolicy::Nothing | StatePolicy::All => 1,
        }
    }

    /// Every FMU state the tape still holds, taken out of it (to free them).
    pub fn take_states(&mut self) -> Vec<FmuState> {
        let points = self.point_states.iter_mut().filter_map(Option::take);
        let mut states: Vec<FmuState> = points.collect();
        for step in &mut self.sub_step_states {
            states.extend(step.iter_mut().filter_map(Option::take));
        }
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
                self.pending = Some(InputRecord {
                    time,
                    values: values.to_vec(),
                    holds: holds.to_vec(),
                });
            }
            (Phase::Initializing, Event::Observed { values, .. }) => {
                if self.observations.is_empty() {
                    self.derivatives = self.read_derivatives(instance)?;
                }
                self.initialization.push(self.pending.take());
                self.observations.push(values.to_vec());
            }
            (Phase::Initializing, Event::Initialized) => self.phase = Phase::Initialized,
            (Phase::Initialized, Event::Observed { values, .. }) => {
                self.start_tag = self.observations.len();
                self.observations.push(values.to_vec());
                self.phase = Phase::Stepping;
                self.read_state_size(instance)?;
                self.save_point_state(instance, 0)?;
            }
            (Phase::Stepping, Event::Step { step, .. }) => {
                let inputs = self.pending.take().ok_or_else(|| unexpected(&event))?;
                self.sub_steps.push(SubStep { inputs, step });
                if self.policy == StatePolicy::All && self.derivatives.is_some() {
                    let k = self.steps.len();
                    self.sub_step_states.resize_with(k + 1, Vec::new);
                    self.sub_step_states[k].push(Some(instance.get_fmu_state()?));
                }
            }
            (Phase::Stepping, Event::Observed { values, .. }) => {
                let end = self.pending.take().ok_or_else(|| unexpected(&event))?;
                let tag = self.observations.len();
                self.observations.push(values.to_vec());
                let sub_steps = std::mem::take(&mut self.sub_steps);
                self.steps.push(MacroStep {
                    sub_steps,
                    end,
                    tag,
                });
                let point = self.steps.len();
                let keep = match self.policy {
                    StatePolicy::Nothing => false,
                    StatePolicy::Checkpoints(n) => point.is_multiple_of(n),
                    StatePolicy::All => true,
                };
                if keep {
                    self.save_point_state(instance, point)?;
                }
            }
            _ => return Err(unexpected(&event)),
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
        instance.get_real(&layout.inputs, &mut start_inputs)?;
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
        let provider = instance.step_derivatives().ok_or_else(|| Error::InvalidValue {
            item: format!("instance {name}"),
            message: "provided step derivatives during initialization but not after it".into(),
        })?;
        derivatives.state_size = provider.state_size()?;
        Ok(())
    }

    /// Stores the instance's state as that of macro point `point`.
    pub fn save_point_state(&mut self, instance: &mut dyn FmuInstance, point: usize) -> Result<()> {
        if self.derivatives.is_none() {
            return Ok(());
        }
        if self.point_states.len() <= point {
            self.point_states.resize_with(point + 1, || None);
        }
        if self.point_states[point].is_none() {
            self.point_states[point] = Some(instance.get_fmu_state()?);
        }
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
    fn record(&mut self, instance: &mut dyn FmuInstance, event: Event<'_>) -> Result<()> {
        self.tape
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record(instance, event)
    }
}
