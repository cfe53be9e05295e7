//! The record of one communication step: every accepted internal step and every reset, with
//! the states a linearization needs. Discrete adjoints treat the recorded step sizes as fixed
//! (the standard choice for error-controlled methods); only the lengths that the step's
//! structure ties to the state are variable: a step that ends at a located event, and a step
//! that ends at a fixed time after an event has shifted its start.

use crate::ode::{Crossing, Event};
use crate::system::StepInputs;

/// How an internal step's length is determined.
#[derive(Clone, Debug, PartialEq)]
pub enum StepEnd {
    /// Chosen by the method (fixed grid or step-size control): the length is held fixed.
    Free,
    /// Ends at a fixed time (the communication point or a time event): the end time is held.
    Stop,
    /// Ends at a located state event: the end time is where the crossing indicator vanishes.
    Event(Vec<Crossing>),
}

impl StepEnd {
    /// The first indicator that crossed zero at a located event.
    pub fn crossing_indicator(&self) -> Option<usize> {
        match self {
            StepEnd::Event(crossings) => crossings.iter().position(|&c| c != Crossing::None),
            _ => None,
        }
    }
}

/// What triggered a reset.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordedEvent {
    /// State event, with how each indicator crossed.
    State(Vec<Crossing>),
    /// Time event.
    Time,
}

impl RecordedEvent {
    /// The event as the model's reset map receives it.
    pub fn as_event(&self) -> Event<'_> {
        match self {
            RecordedEvent::State(crossings) => Event::State(crossings),
            RecordedEvent::Time => Event::Time,
        }
    }
}

/// One piece of a communication step.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// An accepted internal step of length `h` from `t`, `F(w_next, w_prev, u, p) = 0`.
    Step {
        /// Start time.
        t: f64,
        /// Length.
        h: f64,
        /// Method state at the start (the method's `w`, without event signs).
        w_prev: Vec<f64>,
        /// Method state at the end.
        w_next: Vec<f64>,
        /// Discrete variables during the step.
        d: Vec<f64>,
        /// How the length is determined.
        end: StepEnd,
    },
    /// The model's reset map at time `t`, followed by a restart of the method.
    Reset {
        /// Event time.
        t: f64,
        /// The trigger.
        event: RecordedEvent,
        /// Method state before the event (its continuous state is the reset's argument).
        w_prev: Vec<f64>,
        /// Discrete variables before the event.
        d_prev: Vec<f64>,
        /// Method state after the restart.
        w_next: Vec<f64>,
        /// Discrete variables after the event.
        d_next: Vec<f64>,
    },
}

/// Everything that happened in one communication step from `t` to `t + h`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tape {
    /// Communication point the step starts from.
    pub t: f64,
    /// Communication step size.
    pub h: f64,
    /// The step's input polynomial.
    pub inputs: StepInputs<f64>,
    /// Parameters.
    pub params: Vec<f64>,
    /// Method state at the communication point (without event signs).
    pub w_start: Vec<f64>,
    /// Discrete variables at the communication point.
    pub d_start: Vec<f64>,
    /// Internal steps and resets, in order.
    pub segments: Vec<Segment>,
}

impl Tape {
    /// The method state at the end of the step.
    pub fn w_end(&self) -> &[f64] {
        match self.segments.last() {
            Some(Segment::Step { w_next, .. }) | Some(Segment::Reset { w_next, .. }) => w_next,
            None => &self.w_start,
        }
    }

    /// The discrete variables at the end of the step.
    pub fn d_end(&self) -> &[f64] {
        self.segments
            .iter()
            .rev()
            .find_map(|s| match s {
                Segment::Reset { d_next, .. } => Some(d_next.as_slice()),
                Segment::Step { .. } => None,
            })
            .unwrap_or(&self.d_start)
    }
}
