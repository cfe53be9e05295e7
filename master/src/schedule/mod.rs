//! Co-simulation schedules: the macro-step loop over the participants of a system.
//!
//! - **Jacobi**: every participant advances over the macro step at once, each on its own
//!   thread, from the values communicated up to the start of the step.
//! - **Gauss-Seidel**: participants advance one after another in a given order; a participant
//!   sees the values of those that already reached the end of the macro step.
//!
//! A connected input gets, at any time `t`, the polynomial of degree 0, 1 or 2 (ZOH, FOH,
//! SOH) through the latest 1, 2 or 3 values its source communicated, evaluated at `t`: beyond
//! the latest value this extrapolates, between values (a Gauss-Seidel source that already
//! stepped) it interpolates. Co-Simulation FMUs hold an input over a step, so a participant
//! stepping from `t` gets the value at `t`. Multi-rate: a participant may take several equal
//! sub-steps per macro step, each with its inputs from the same polynomials. At the end of the
//! macro step the inputs are set to their values there before the outputs are read, so an
//! output with direct feedthrough uses the extrapolated (or, in Gauss-Seidel, current) inputs.

mod gauss_seidel;
mod history;
mod initialization;
mod jacobi;
mod participant;

use history::{Histories, Source};
use participant::{Advance, Participant};

use std::fmt;

use serde::Deserialize;

use crate::error::Result;
use crate::instance::LogSettings;
use crate::system::{Port, Schedule, System};

/// The order in which components advance over a macro step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScheduleKind {
    /// All at once, in parallel.
    #[default]
    Jacobi,
    /// One after another.
    GaussSeidel,
}

impl fmt::Display for ScheduleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleKind::Jacobi => "Jacobi",
            ScheduleKind::GaussSeidel => "Gauss-Seidel",
        })
    }
}

/// How inputs are extrapolated from the communicated values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extrapolation {
    /// Zero-order hold: the latest value.
    #[default]
    Zoh,
    /// First-order hold: the line through the latest two values.
    Foh,
    /// Second-order hold: the parabola through the latest three values.
    Soh,
}

impl Extrapolation {
    /// The degree of the hold polynomial.
    pub fn degree(self) -> usize {
        match self {
            Extrapolation::Zoh => 0,
            Extrapolation::Foh => 1,
            Extrapolation::Soh => 2,
        }
    }
}

impl fmt::Display for Extrapolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Extrapolation::Zoh => "ZOH",
            Extrapolation::Foh => "FOH",
            Extrapolation::Soh => "SOH",
        })
    }
}

/// Whether the run goes on after a macro step.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Every participant reached the end of the macro step.
    Reached,
    /// A participant's FMU asked to end the simulation.
    Terminated {
        /// The component.
        component: String,
        /// The time it reached.
        time: f64,
    },
}

/// A running co-simulation: the participants and what they communicated.
pub struct CoSimulation {
    participants: Vec<Participant>,
    histories: Histories,
    schedule: Schedule,
    time: f64,
    macro_steps: usize,
}

impl CoSimulation {
    /// Instantiates every component of `system`, initializes them and propagates the outputs
    /// to the inputs at the start time.
    pub fn initialize(system: &System, log: &LogSettings) -> Result<Self> {
        let (participants, histories) = initialization::run(system, log)?;
        Ok(CoSimulation {
            participants,
            histories,
            schedule: system.schedule.clone(),
            time: system.start,
            macro_steps: 0,
        })
    }

    /// Advances every participant by one macro step, to `to`.
    pub fn step(&mut self, to: f64) -> Result<Progress> {
        let (from, degree) = (self.time, self.schedule.extrapolation.degree());
        let progress = match self.schedule.kind {
            ScheduleKind::Jacobi => jacobi::step(
                &mut self.participants,
                &mut self.histories,
                from,
                to,
                degree,
            )?,
            ScheduleKind::GaussSeidel => gauss_seidel::step(
                &mut self.participants,
                &mut self.histories,
                &self.schedule.order,
                from,
                to,
                degree,
            )?,
        };
        if progress == Progress::Reached {
            self.time = to;
            self.macro_steps += 1;
        }
        Ok(progress)
    }

    /// The latest communicated value of a recorded or connected variable.
    pub fn value(&self, port: Port) -> f64 {
        let participant = &self.participants[port.component];
        participant.slot(port.variable).map_or(f64::NAN, |slot| {
            self.histories.latest(Source {
                participant: port.component,
                slot,
            })
        })
    }

    /// Adds `offset` to every value the connected input `input` receives from now on (the
    /// energy correction of a power bond's effort). Returns false, changing nothing, when
    /// `input` is no connected continuous float input.
    pub fn set_input_offset(&mut self, input: Port, offset: f64) -> bool {
        self.participants[input.component].set_input_offset(input.variable, offset)
    }

    /// The values of `ports` of `system` at the time reached, each read from its FMU after
    /// setting that FMU's connected inputs to their values communicated then: an output with
    /// direct feedthrough (a subsystem's energy) is then consistent with the other components'
    /// current values rather than with the extrapolated inputs the schedule read it with.
    pub fn read_consistent(&mut self, system: &System, ports: &[Port]) -> Result<Vec<f64>> {
        let mut values = vec![f64::NAN; ports.len()];
        for (index, participant) in self.participants.iter_mut().enumerate() {
            let (slots, variables): (Vec<usize>, Vec<_>) = ports
                .iter()
                .enumerate()
                .filter(|(_, port)| port.component == index)
                .map(|(slot, port)| {
                    let variable = port.variable(&system.components);
                    (slot, (variable.ty, variable.value_reference))
                })
                .unzip();
            if slots.is_empty() {
                continue;
            }
            let read = participant.read_consistent(&self.histories, self.time, &variables)?;
            for (slot, value) in slots.into_iter().zip(read) {
                values[slot] = value;
            }
        }
        Ok(values)
    }

    /// The time reached.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Macro steps taken.
    pub fn macro_steps(&self) -> usize {
        self.macro_steps
    }

    /// FMI calls made so far, over all participants.
    pub fn fmu_calls(&self) -> usize {
        self.participants.iter().map(Participant::calls).sum()
    }

    /// Terminates every participant.
    pub fn terminate(&mut self) -> Result<()> {
        self.participants
            .iter_mut()
            .try_for_each(Participant::terminate)
    }
}

/// Records a participant's advance: its values join the histories, or it ended the run.
fn settle(
    histories: &mut Histories,
    participant: &Participant,
    index: usize,
    to: f64,
    advance: Advance,
) -> Progress {
    match advance {
        Advance::Reached(values) => {
            histories.push(index, to, &values);
            Progress::Reached
        }
        Advance::Terminated(time) => Progress::Terminated {
            component: participant.name().to_string(),
            time,
        },
    }
}
