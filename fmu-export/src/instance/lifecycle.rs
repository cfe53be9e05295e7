//! The instance state machine shared by FMI 2.0 and FMI 3.0: which mode an instance is in,
//! which calls each mode admits, and the transitions between modes.

use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::{Integrator, StepInputs, System};

/// The interface an instance was created for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Model Exchange: the host integrates.
    ModelExchange,
    /// Co-Simulation: `doStep` integrates with the embedded integrator.
    CoSimulation,
}

impl Kind {
    /// Human-readable name for log messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ModelExchange => "Model Exchange",
            Kind::CoSimulation => "Co-Simulation",
        }
    }
}

/// The modes of the FMI state machines (FMI 2.0 "stepComplete" is [`Mode::Step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// After instantiation or reset: start values and parameters may be set.
    Instantiated,
    /// Between enter- and exitInitializationMode.
    Initialization,
    /// Model Exchange (or FMI 3.0 Co-Simulation with event mode): discrete states are updated.
    Event,
    /// Model Exchange: the host integrates the continuous states.
    ContinuousTime,
    /// Co-Simulation: the host calls doStep.
    Step,
    /// After terminate: values may be read.
    Terminated,
    /// A call left the instance inconsistent; only reset, FMU-state restore or free help.
    Failed,
}

/// Every mode, in the order of [`Mode::code`].
const MODES: [Mode; 7] = [
    Mode::Instantiated,
    Mode::Initialization,
    Mode::Event,
    Mode::ContinuousTime,
    Mode::Step,
    Mode::Terminated,
    Mode::Failed,
];

impl Mode {
    /// Human-readable name for log messages.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Instantiated => "instantiated",
            Mode::Initialization => "initialization mode",
            Mode::Event => "event mode",
            Mode::ContinuousTime => "continuous-time mode",
            Mode::Step => "step mode",
            Mode::Terminated => "terminated",
            Mode::Failed => "error (after a failed call)",
        }
    }

    /// The mode's code in serialized FMU states.
    pub fn code(self) -> u8 {
        MODES
            .iter()
            .position(|m| *m == self)
            .expect("every mode is listed") as u8
    }

    /// The mode with serialized code `code`.
    pub fn from_code(code: u8) -> Option<Mode> {
        MODES.get(usize::from(code)).copied()
    }
}

/// The experiment the host announced (setupExperiment / enterInitializationMode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExperimentSetup {
    /// Start time.
    pub start: f64,
    /// Stop time, if the host defined one: co-simulation steps must not pass it.
    pub stop: Option<f64>,
    /// Relative tolerance, if the host defined one (informational).
    pub tolerance: Option<f64>,
}

impl<S: System> Instance<S> {
    /// Fails with a log line unless the instance is in one of `allowed`.
    pub(crate) fn expect_mode(&self, allowed: &[Mode]) -> Outcome {
        if allowed.contains(&self.state.mode) {
            return Ok(());
        }
        let names: Vec<_> = allowed.iter().map(|m| m.name()).collect();
        Err(Problem::error(format!(
            "not allowed in {} (allowed in: {})",
            self.state.mode.name(),
            names.join(", ")
        )))
    }

    /// Fails with a log line unless the instance was created for `kind`.
    pub(crate) fn expect_kind(&self, kind: Kind) -> Outcome {
        if self.kind == kind {
            return Ok(());
        }
        Err(Problem::error(format!(
            "is a {} function, but this instance was instantiated for {}",
            kind.name(),
            self.kind.name()
        )))
    }

    /// FMI 2.0 setupExperiment (and the first half of FMI 3.0 enterInitializationMode).
    pub fn setup_experiment(
        &mut self,
        tolerance: Option<f64>,
        start: f64,
        stop: Option<f64>,
    ) -> Outcome {
        self.expect_mode(&[Mode::Instantiated])?;
        if !start.is_finite() {
            return Err(Problem::error(format!("start time {start} is not finite")));
        }
        if let Some(stop) = stop {
            if stop.is_nan() || stop < start {
                return Err(Problem::error(format!(
                    "stop time {stop} is before the start time {start}"
                )));
            }
        }
        if let Some(tol) = tolerance {
            if tol.is_nan() || tol <= 0.0 {
                return Err(Problem::error(format!("tolerance {tol} is not positive")));
            }
        }
        self.state.experiment = ExperimentSetup {
            start,
            stop,
            tolerance,
        };
        self.state.t = start;
        self.state.last_successful_time = start;
        self.touch();
        Ok(())
    }

    /// Enters initialization mode.
    pub fn enter_initialization_mode(&mut self) -> Outcome {
        self.expect_mode(&[Mode::Instantiated])?;
        self.state.mode = Mode::Initialization;
        Ok(())
    }

    /// Leaves initialization mode: Model Exchange goes to event mode; Co-Simulation
    /// initializes the embedded integrator and goes to step mode (event mode if the FMI 3.0
    /// host asked for it).
    pub fn exit_initialization_mode(&mut self) -> Outcome {
        self.expect_mode(&[Mode::Initialization])?;
        match self.kind {
            Kind::ModelExchange => {
                self.derivatives()
                    .map_err(|p| Problem::failure(p.message))?;
                self.state.z_ref = self
                    .indicator_sides()
                    .map_err(|p| Problem::failure(p.message))?;
                self.state.next_time_event =
                    self.sys
                        .next_time_event(self.state.t, &self.state.p, &self.state.d);
                self.state.mode = Mode::Event;
            }
            Kind::CoSimulation => {
                let s = &self.state;
                let inputs = StepInputs::held(s.t, &s.u);
                self.integrator = self.sys.integrator();
                self.integrator
                    .initialize(&self.sys, s.t, &s.x, &inputs, &s.p, &s.d)
                    .map_err(|e| {
                        Problem::failure(format!(
                            "the co-simulation integrator could not start: {e}"
                        ))
                    })?;
                self.state.integrator_ready = true;
                self.sync_states_from_integrator();
                self.check_state_finite()
                    .map_err(|p| Problem::failure(p.message))?;
                self.start_sensitivities()
                    .map_err(|p| Problem::failure(p.message))?;
                self.state.mode = if self.event_mode_used {
                    Mode::Event
                } else {
                    Mode::Step
                };
            }
        }
        self.touch();
        Ok(())
    }

    /// Model Exchange: continuous-time mode to event mode; FMI 3.0 Co-Simulation with event
    /// mode: step mode to event mode.
    pub fn enter_event_mode(&mut self) -> Outcome {
        match self.kind {
            Kind::ModelExchange => self.expect_mode(&[Mode::ContinuousTime])?,
            Kind::CoSimulation if self.event_mode_used => self.expect_mode(&[Mode::Step])?,
            Kind::CoSimulation => return Err(Problem::error(
                "event mode is not available: the instance was created with eventModeUsed = false",
            )),
        }
        self.state.mode = Mode::Event;
        Ok(())
    }

    /// Model Exchange: event mode to continuous-time mode.
    pub fn enter_continuous_time_mode(&mut self) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_mode(&[Mode::Event])?;
        self.state.mode = Mode::ContinuousTime;
        Ok(())
    }

    /// FMI 3.0 Co-Simulation with event mode: event mode to step mode.
    pub fn enter_step_mode(&mut self) -> Outcome {
        self.expect_kind(Kind::CoSimulation)?;
        self.expect_mode(&[Mode::Event])?;
        self.state.mode = Mode::Step;
        Ok(())
    }

    /// Ends the simulation; values stay readable.
    pub fn terminate(&mut self) -> Outcome {
        self.expect_mode(&[Mode::Event, Mode::ContinuousTime, Mode::Step])?;
        self.state.mode = Mode::Terminated;
        Ok(())
    }

    /// Returns to the state right after instantiation (start values, fresh integrator);
    /// FMU states taken earlier stay valid.
    pub fn reset(&mut self) {
        self.state =
            crate::instance::dynamic::DynamicState::from_declaration(self.sys.declaration());
        self.integrator = self.sys.integrator();
        self.touch();
    }

    /// Marks the instance as failed (after a panic or an inconsistent result).
    pub fn fail(&mut self, reason: &str) {
        self.state.mode = Mode::Failed;
        self.log_problem(&Problem::failure(reason));
    }

    /// Whether a failed call left the instance unusable.
    pub fn has_failed(&self) -> bool {
        self.state.mode == Mode::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_codes_round_trip() {
        for mode in MODES {
            assert_eq!(Mode::from_code(mode.code()), Some(mode));
        }
        assert_eq!(Mode::from_code(MODES.len() as u8), None);
    }
}
