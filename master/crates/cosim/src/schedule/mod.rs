//! Co-simulation schedules: the macro-step loop over the participants of a system.
//!
//! - **Jacobi**: every participant advances over the macro step from the values communicated
//!   up to the start of the step, in parallel on a pool of threads or in turn on the calling
//!   thread, whichever is faster (`[schedule] threads`); the numbers are the same either way.
//! - **Gauss-Seidel**: participants advance one after another in a given order; a participant
//!   sees the values of those that already reached the end of the macro step.
//!
//! A connected input gets, at any time `t`, the polynomial of degree 0, 1 or 2 (ZOH, FOH,
//! SOH) through the latest 1, 2 or 3 values its source communicated, evaluated at `t`: beyond
//! the latest value this extrapolates, between values (a Gauss-Seidel source that already
//! stepped) it interpolates. Co-Simulation FMUs hold an input over a step, so a participant
//! stepping from `t` gets the value at `t`; a Model Exchange FMU, integrated by the master,
//! gets the polynomial's value at every time the integrator evaluates it. Multi-rate: a
//! Co-Simulation participant may take several equal sub-steps per macro step, each with its
//! inputs from the same polynomials. A Scheduled Execution participant runs the model
//! partitions of the clock ticks in `[t, t + H)`, its inputs held at their values at `t`.
//! At the end of the
//! macro step the inputs are set to their values there before the outputs are read, so an
//! output with direct feedthrough uses the extrapolated (or, in Gauss-Seidel, current) inputs.
//!
//! A caller may hook into a run ([`Hooks`]): create the instances itself and give every
//! participant a [`Recorder`] that hears of each input written, step taken and value read.

mod activations;
mod algebraic_loops;
mod directional_product;
mod feedthrough;
mod gauss_seidel;
mod history;
mod implicit;
mod initialization;
mod integration;
mod jacobi;
mod layout;
mod loop_report;
mod newton_matrix;
mod participant;
mod partitions;
mod propagation;
mod rates;
mod recording;
mod rollback;
mod snapshot;
mod sub_step_tangents;

pub use activations::Activations;
pub use history::Hold;
pub use implicit::ImplicitReport;
pub use initialization::observed_ports;
pub use integration::Integration;
pub use loop_report::{LoopJacobian, LoopReport};
pub use participant::connections_into;
pub use recording::{Event, Recorder};
pub use rollback::SavedPoint;
pub use snapshot::Snapshot;

use history::{Histories, Source};
use participant::{Advance, Holds, Participant};

use crate::coupling::{ScheduleKind, ScheduleSettings};
use crate::error::Result;
use crate::system::{Component, Port, System};
use fmi_host::instance::{FmuInstance, LogSettings};

/// Creates a component's instance in place of its FMU's (an in-process stand-in, say).
pub type Instantiate<'a> = &'a dyn Fn(&Component, &LogSettings) -> Result<Box<dyn FmuInstance>>;

/// What a caller adds to a co-simulation.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Creates the instances (default: each component's FMU, with its interface) of the
    /// components that are not Scheduled Execution: those always run their FMU's instance.
    pub instantiate: Option<Instantiate<'a>>,
    /// One recorder per component, in component order, or none.
    pub recorders: Vec<Box<dyn Recorder>>,
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
    /// In component order.
    participants: Vec<Participant>,
    /// The layout of the macro steps under Jacobi; none under Gauss-Seidel.
    jacobi: Option<jacobi::Jacobi>,
    histories: Histories,
    /// Per component, the ports it observes, in the order of its history slots.
    observed: Vec<Vec<Port>>,
    /// Under Gauss-Seidel, the solver of the system's algebraic loops, if it has any (under
    /// implicit coupling it solves them at the start only).
    loops: Option<algebraic_loops::LoopSolver>,
    /// The iteration of an implicit coupling; none for explicit coupling.
    implicit: Option<implicit::ImplicitCoupling>,
    schedule: ScheduleSettings,
    time: f64,
    macro_steps: usize,
    /// The length of the next macro step, when a step-size control chose it (else the grid's).
    next_step: Option<f64>,
}

impl CoSimulation {
    /// Instantiates every component of `system`, initializes them and propagates the outputs
    /// to the inputs at the start time.
    pub fn initialize(system: &System, log: &LogSettings) -> Result<Self> {
        Self::initialize_with(system, log, Hooks::default())
    }

    /// [`CoSimulation::initialize`] with the caller's `hooks`.
    pub fn initialize_with(system: &System, log: &LogSettings, hooks: Hooks<'_>) -> Result<Self> {
        let initialization::Initialized {
            mut participants,
            histories,
            observed,
            loops,
        } = initialization::run(system, log, hooks)?;
        let implicit = match system.schedule.implicit {
            Some(settings) => Some(implicit::ImplicitCoupling::new(
                system,
                settings,
                &mut participants,
                &observed,
            )?),
            None => None,
        };
        let jacobi = match system.schedule.kind {
            ScheduleKind::Jacobi => Some(jacobi::Jacobi::new(
                system.schedule.threads,
                participants.len(),
                system.start,
            )?),
            ScheduleKind::GaussSeidel => None,
        };
        Ok(CoSimulation {
            participants,
            jacobi,
            histories,
            observed,
            loops,
            implicit,
            schedule: system.schedule.clone(),
            time: system.start,
            macro_steps: 0,
            next_step: None,
        })
    }

    /// Advances every participant by one macro step, to `to`.
    pub fn step(&mut self, to: f64) -> Result<Progress> {
        let (from, degree) = (self.time, self.schedule.extrapolation.degree());
        let (participants, histories) = (&mut self.participants, &mut self.histories);
        let order = &self.schedule.order;
        let (holds, push) = (Holds::Extrapolated(degree), Recording::Push);
        let progress = match (&mut self.implicit, &mut self.jacobi) {
            // The converged interface satisfies the algebraic loops too.
            (Some(implicit), jacobi) => {
                return implicit
                    .step(implicit::Step {
                        participants,
                        histories,
                        jacobi: jacobi.as_mut(),
                        order,
                        from,
                        to,
                        degree,
                    })
                    .inspect(|progress| self.reached(progress, to))
            }
            (None, Some(jacobi)) => {
                jacobi.step(participants, histories, (from, to), holds, push)?
            }
            (None, None) => {
                gauss_seidel::step(participants, histories, order, (from, to), holds, push)?
            }
        };
        if let (Progress::Reached, Some(loops)) = (&progress, &mut self.loops) {
            loops.solve(participants, histories, order, to, degree)?;
        }
        self.reached(&progress, to);
        Ok(progress)
    }

    /// Counts a macro step to `to` that ended with `progress`.
    fn reached(&mut self, progress: &Progress, to: f64) {
        if *progress == Progress::Reached {
            self.time = to;
            self.macro_steps += 1;
        }
    }

    /// The latest communicated value of a recorded or connected variable.
    pub fn value(&self, port: Port) -> f64 {
        self.source(port)
            .map_or(f64::NAN, |source| self.histories.latest(source))
    }

    /// The time derivative of [`Self::value`] where the latest step computed one (implicit
    /// coupling on the Hermite waveform), else NaN.
    pub fn rate(&self, port: Port) -> f64 {
        self.source(port)
            .map_or(f64::NAN, |source| self.histories.latest_rate(source))
    }

    /// Where the histories keep a recorded or connected variable.
    fn source(&self, port: Port) -> Option<Source> {
        Source::of(&self.observed, port)
    }

    /// The length of the macro step that starts at the time reached, when a step-size control
    /// chose it ([`CoSimulation::plan_step`]); `None` on the grid.
    pub fn next_step(&self) -> Option<f64> {
        self.next_step
    }

    /// Tells what acts at the point reached (an energy correction) that the next macro step
    /// is `step` long.
    pub fn plan_step(&mut self, step: f64) {
        self.next_step = Some(step);
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
        let mut requests = vec![Vec::new(); system.components.len()];
        let mut slots = vec![Vec::new(); system.components.len()];
        for (slot, port) in ports.iter().enumerate() {
            let variable = port.variable(&system.components);
            requests[port.component].push((variable.ty, variable.value_reference));
            slots[port.component].push(slot);
        }
        let time = self.time;
        let read = self
            .participants
            .iter_mut()
            .zip(&requests)
            .map(|(participant, variables)| {
                if variables.is_empty() {
                    Ok(Vec::new())
                } else {
                    participant.read_consistent(&self.histories, time, variables)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let mut values = vec![f64::NAN; ports.len()];
        for (slots, read) in slots.iter().zip(read) {
            for (&slot, value) in slots.iter().zip(read) {
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

    /// For each Model Exchange participant, in component order, what the master's integrator
    /// did so far.
    pub fn integrations(&self) -> Vec<Integration> {
        self.participants
            .iter()
            .filter_map(|participant| participant.integration(self.time))
            .collect()
    }

    /// Under implicit coupling, what its iteration did so far.
    pub fn implicit_report(&self) -> Option<ImplicitReport> {
        self.implicit
            .as_ref()
            .map(|implicit| implicit.report().clone())
    }

    /// Under Gauss-Seidel with algebraic loops, what their solver did so far.
    pub fn loop_report(&self) -> Option<LoopReport> {
        self.loops.as_ref().map(|loops| loops.report().clone())
    }

    /// For each Scheduled Execution participant, in component order, the partitions the
    /// master activated so far.
    pub fn activations(&self) -> Vec<Activations> {
        self.participants
            .iter()
            .filter_map(Participant::activations)
            .collect()
    }

    /// FMI calls made so far, over all participants.
    pub fn fmu_calls(&self) -> usize {
        self.participants.iter().map(Participant::calls).sum()
    }

    /// The instance of component `index`, to replay or differentiate its steps after a run.
    pub fn instance_mut(&mut self, index: usize) -> Result<&mut dyn FmuInstance> {
        Ok(self.participants[index].instance_mut())
    }

    /// Component `index`, to replay or differentiate its steps after a run.
    pub fn component(&mut self, index: usize) -> ComponentMut<'_> {
        ComponentMut(&mut self.participants[index])
    }

    /// Runs `work` once for every component, with its index and its item of `items` (one per
    /// component, in component order), for work after the run in which the components do not
    /// depend on each other (a gradient's reverse sweep under Jacobi). Under Jacobi it runs
    /// on the macro steps' threads when there are several, in turn or in parallel as timed
    /// (with `threads = "auto"`); under Gauss-Seidel in turn.
    pub fn for_each_component<I>(
        &mut self,
        items: I,
        work: impl Fn(usize, ComponentMut<'_>, I::Item) + Sync,
    ) where
        I: ExactSizeIterator + Send,
        I::Item: Send,
    {
        assert_eq!(
            items.len(),
            self.participants.len(),
            "one item per component"
        );
        let work = |index: usize, participant: &mut Participant, item: I::Item| {
            work(index, ComponentMut(participant), item);
        };
        match &mut self.jacobi {
            Some(jacobi) => jacobi.for_each(&mut self.participants, items, work),
            None => self
                .participants
                .iter_mut()
                .zip(items)
                .enumerate()
                .for_each(|(index, (participant, item))| work(index, participant, item)),
        }
    }

    /// Terminates every participant.
    pub fn terminate(&mut self) -> Result<()> {
        self.participants
            .iter_mut()
            .try_for_each(Participant::terminate)
    }
}

/// One component of a co-simulation after its run: its instance and its connected inputs.
pub struct ComponentMut<'a>(&'a mut Participant);

impl ComponentMut<'_> {
    /// The instance, to replay or differentiate its steps.
    pub fn instance_mut(&mut self) -> &mut dyn FmuInstance {
        self.0.instance_mut()
    }

    /// Writes `values` to the connected inputs (in the order of [`connections_into`]), as of
    /// `time` (for messages).
    pub fn write_inputs(&mut self, time: f64, values: &[f64]) -> Result<()> {
        self.0.write_inputs(time, values)
    }
}

/// How a macro step's values at its end enter the histories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recording {
    /// As new samples.
    Push,
    /// In place of the latest samples (an implicit coupling's iterate).
    Replace,
}

/// Records the advance of `participant`, component `index`: its values enter the histories
/// (as `recording` says), or it ended the run.
fn settle(
    histories: &mut Histories,
    participant: &Participant,
    index: usize,
    to: f64,
    advance: Advance,
    recording: Recording,
) -> Progress {
    match advance {
        Advance::Reached => {
            match recording {
                Recording::Push => histories.push(index, to, participant.observed()),
                Recording::Replace => histories.replace_latest(index, participant.observed()),
            }
            if let Some(rates) = participant.observed_rates() {
                histories.replace_latest_rates(index, rates);
            }
            Progress::Reached
        }
        Advance::Terminated(time) => Progress::Terminated {
            component: participant.name().to_string(),
            time,
        },
    }
}
