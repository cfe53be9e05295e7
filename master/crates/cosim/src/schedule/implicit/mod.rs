//! Implicit (iterative) coupling: every macro step is repeated from the FMUs' saved states
//! until the values the participants exchange at its end agree with the values their inputs
//! were computed from (waveform relaxation at the macro step, solved by Newton's method).
//!
//! The unknowns `z` are the values at the end of the step `[t, t + H]` of the outputs that
//! feed a participant advancing before them (under Jacobi every connected output; under
//! Gauss-Seidel those of connections against the stepping order: the others take the values
//! of the same iteration). An iteration puts `z` into the histories as the latest samples, at
//! `t + H`, and advances every participant from its state at `t`. Its inputs then follow the
//! line between the values communicated at `t` and `z`: a Model Exchange FMU is integrated
//! along it; a Co-Simulation FMU holds, as FMI's Co-Simulation does, each (sub-)step's input
//! at the line's value at the (sub-)step's start; at `t + H` every input gets `z` before the
//! outputs are read. The outputs read, `Y(z)`, go into the histories in place of `z`. Newton
//! solves `Y(z) = z` with the matrix `I - dY/dz`:
//!
//! - exactly, where every participant with inputs is a Co-Simulation FMU that gives the
//!   derivatives of its macro step (`jacobian = "auto"` or `"directional-derivatives"`),
//!   carried through the participants as an evaluation carries the values. One taking one
//!   step per macro step holds the inputs at `t`, which do not depend on `z`, so its part is
//!   the direct feedthrough at `t + H`, one directional derivative per unknown. One taking
//!   several, whose sub-steps hold the line toward `z`, retakes them with the adjoint
//!   extension's step derivatives (`super::sub_step_tangents`);
//! - else by forward differences, one repetition of the step per unknown;
//! - or (`"broyden"`) by differences once and then Broyden's updates from the iterations.
//!
//! With `waveform = "hermite"` the inputs follow the cubic through the values and their time
//! derivatives at both ends instead of the line, and Newton's unknowns are the values and
//! their derivatives at the end (the derivatives at the start are those the previous step
//! converged to). The line errs by about `(omega H)^2 / 8` of the amplitude of a motion of
//! angular frequency `omega`, the cubic by order `(omega H)^4`: on the double oscillator with
//! a coupling spring of 1e5 N/m at H = 1 ms (`omega H` = 0.32) the energy stays within 1.27 %
//! on the line and within 0.080 % on the cubic (`docs/benchmarks.md`). The derivatives come
//! from the participants (see `super::rates`): every participant whose values feed a
//! continuous input must be a Model Exchange FMU with directional derivatives, so the
//! Jacobian is by differences (or Broyden's updates).
//!
//! Why the start of a step, not the mean of the line over it: the FMUs a co-simulation
//! couples integrate with their inputs held, and the value of the hold must match the time
//! their integrator evaluates the inputs at. Tandem's mechanical FMUs take symplectic Euler
//! steps, which apply the forces at the step's start: the double oscillator of the energy
//! study with a stiff coupling spring (kc = 1e4 N/m, H = 1 ms) keeps its energy within 7 %
//! over 10 s with the start and diverges with the mean or the end.
//!
//! As the solver of algebraic loops does, it keeps the factors from one step to the next and
//! makes them afresh only when an iteration with them fails to cut the residual by ten, or
//! when the step's length has changed by more than 10 % since they were made. The
//! first iterate is the schedule's extrapolation of the histories to `t + H`: the explicit
//! schedule's values. A step converges when no unknown changes by more than the tolerance,
//! relative to its size (absolutely below 1); one that does not in the iterations allowed is
//! an error with the residual.
//!
//! The participants' recorders (a gradient's tapes) hear each macro step once, as under
//! explicit coupling: they are taken out while Newton iterates, and once the step has
//! converged the participants go back to the step's start and take it once more from the
//! converged iterate, which repeats the last iteration's values bit for bit. Only a recorded
//! run pays for that evaluation.

mod report;

pub use report::ImplicitReport;

use nalgebra::{DMatrix, DVector};

use super::algebraic_loops::backward_sources;
use super::history::{Histories, Source};
use super::jacobi::Jacobi;
use super::newton_matrix::Factors;
use super::participant::{Holds, Participant, SavedState};
use super::recording::Recorder;
use super::{gauss_seidel, Progress, Recording};
use crate::coupling::{ImplicitSettings, InterfaceJacobian, ScheduleKind, Waveform};
use crate::error::{Error, Result};
use crate::system::{Port, System};
use fmi_host::model_description::{InterfaceType, Variability};

/// The iteration of an implicit coupling.
pub(super) struct ImplicitCoupling {
    settings: ImplicitSettings,
    /// The unknowns' sources.
    tears: Vec<Source>,
    /// Whether the Jacobian comes from the FMUs' directional derivatives.
    exact: bool,
    /// `I - dY/dz` at an earlier iterate, while Newton converges with it.
    kept: Option<Factors>,
    /// The noise on the values, relative: machine epsilon, or a Model Exchange participant's
    /// integrator tolerance. Below it the values jump where a change of the iterate changes
    /// the integrator's steps, and Newton may find no fixed point closer than that (measured
    /// on the double oscillator with Model Exchange masses at their tolerance of 1e-8, kc =
    /// 1e5 N/m: Broyden's iteration stuck at a residual of 4.9e-9 with H = 1 ms on the Hermite
    /// waveform, Newton's at 5.7e-9 with H = 2 ms on the line), so a step whose residual is
    /// within the noise and has stopped falling has converged as far as it can. The
    /// differences step by its square root.
    noise: f64,
    /// Whether the kept factors were made where the start of the step had rates (Hermite):
    /// the cubic and the quadratic weigh the rates at the end differently.
    kept_cubic: bool,
    /// The length of the macro step the kept factors were made for.
    kept_length: f64,
    /// Per participant, its recorder while the iterations run without it.
    recorders: Vec<Option<Box<dyn Recorder>>>,
    /// The iterate, its image, the Newton step.
    z: DVector<f64>,
    y: DVector<f64>,
    step: DVector<f64>,
    /// Per participant, its state at the start of the step.
    saved: Vec<SavedState>,
    /// Per participant, the extrapolated values of its observed variables at the end of the
    /// step: the first iterate.
    predicted: Vec<Vec<f64>>,
    /// Per participant, the tangents of its observed variables (slots by unknowns) that the
    /// pass of tangents carries, and those of the step's outputs (Jacobi reads the former and
    /// writes the latter); the tangents of one participant's inputs and observed variables.
    tangents: Vec<DMatrix<f64>>,
    outputs: Vec<DMatrix<f64>>,
    inputs: Vec<f64>,
    column: Vec<f64>,
    report: ImplicitReport,
}

/// What an implicit coupling carries from one macro step to the next, the factors it keeps,
/// for a [`super::Snapshot`]: a re-run from there iterates as the run did, to the same values
/// bit for bit (with other factors Newton would take other iterations, and converge to values
/// that differ within the tolerance).
#[derive(Debug, Clone)]
pub(super) struct Carried(Option<Factors>, bool, f64);

/// One macro step's participants and what they share.
pub(super) struct Step<'a> {
    pub participants: &'a mut [Participant],
    pub histories: &'a mut Histories,
    /// The Jacobi layout; none under Gauss-Seidel.
    pub jacobi: Option<&'a mut Jacobi>,
    pub order: &'a [usize],
    pub from: f64,
    pub to: f64,
    /// The degree of the schedule's extrapolation, for the first iterate.
    pub degree: usize,
}

impl ImplicitCoupling {
    /// The iteration for `system` (`settings` its schedule's), whose `participants` observe
    /// `observed`. An error names a participant that cannot go back to a saved state, or
    /// lacks the step derivatives asked for.
    pub(super) fn new(
        system: &System,
        settings: ImplicitSettings,
        participants: &mut [Participant],
        observed: &[Vec<Port>],
    ) -> Result<Self> {
        for component in &system.components {
            let problem = if component.interface == InterfaceType::ScheduledExecution {
                "implicit coupling repeats macro steps, which a Scheduled Execution component \
                 cannot take part in"
            } else if !component.can_get_and_set_state() {
                "implicit coupling repeats every macro step from the FMUs' saved states, and \
                 this FMU cannot get and set its state (canGetAndSetFMUState)"
            } else {
                continue;
            };
            return Err(Error::invalid_value(
                format!("component {}", component.name),
                problem,
            ));
        }
        let jacobi = system.schedule.kind == ScheduleKind::Jacobi;
        let tears = backward_sources(system, observed, jacobi);
        let hermite = settings.waveform == Waveform::Hermite;
        let without_derivatives = participants
            .iter()
            .zip(&system.components)
            .find(|(participant, _)| !participant.differentiates_macro_step())
            .map(|(_, component)| &component.name);
        let jacobian = match (settings.jacobian, without_derivatives) {
            (InterfaceJacobian::DirectionalDerivatives, _) if hermite => {
                return Err(Error::invalid_value(
                    "schedule.implicit.jacobian = \"directional-derivatives\"",
                    "the Hermite waveform iterates the values' time derivatives too, whose \
                     derivatives the FMUs do not give; use \"differences\" or \"broyden\"",
                ))
            }
            (InterfaceJacobian::Auto, _) if hermite => InterfaceJacobian::Differences,
            (InterfaceJacobian::Auto, None) => InterfaceJacobian::DirectionalDerivatives,
            (InterfaceJacobian::Auto, Some(_)) => InterfaceJacobian::Differences,
            (InterfaceJacobian::DirectionalDerivatives, Some(name)) => {
                return Err(Error::invalid_value(
                    "schedule.implicit.jacobian = \"directional-derivatives\"",
                    format!(
                        "component {name} is no Co-Simulation FMU taking one step per macro \
                         step with directional derivatives, nor one taking several with the \
                         derivatives of its steps (the adjoint extension); use \"differences\" \
                         or \"broyden\""
                    ),
                ))
            }
            (asked, _) => asked,
        };
        if hermite {
            check_rates(system, participants, observed)?;
        }
        let exact = jacobian == InterfaceJacobian::DirectionalDerivatives;
        let noise = participants
            .iter()
            .filter_map(Participant::integrator_tolerance)
            .fold(f64::EPSILON, f64::max);
        let n = tears.len() * if hermite { 2 } else { 1 };
        // Only the exact Jacobian carries tangents (slots by unknowns per participant).
        let slots = || {
            if exact {
                observed
                    .iter()
                    .map(|o| DMatrix::zeros(o.len(), n))
                    .collect()
            } else {
                Vec::new()
            }
        };
        Ok(ImplicitCoupling {
            settings,
            exact,
            kept: None,
            kept_cubic: false,
            kept_length: 0.0,
            noise,
            recorders: Vec::with_capacity(participants.len()),
            z: DVector::zeros(n),
            y: DVector::zeros(n),
            step: DVector::zeros(n),
            saved: Vec::with_capacity(participants.len()),
            predicted: observed.iter().map(|o| vec![0.0; o.len()]).collect(),
            tangents: slots(),
            outputs: slots(),
            inputs: Vec::new(),
            column: Vec::new(),
            report: ImplicitReport {
                jacobian,
                unknowns: n,
                steps: 0,
                iterations: 0,
                most_iterations: 0,
                evaluations: 0,
                jacobians: 0,
                updates: 0,
            },
            tears,
        })
    }

    /// Whether the inputs follow the Hermite cubic: the unknowns are then the tears' values
    /// followed by their rates.
    fn hermite(&self) -> bool {
        self.settings.waveform == Waveform::Hermite
    }

    /// What it carries to the next macro step.
    pub(super) fn carried(&self) -> Carried {
        Carried(self.kept.clone(), self.kept_cubic, self.kept_length)
    }

    /// Carries `carried` to the next macro step instead.
    pub(super) fn resume(&mut self, carried: &Carried) {
        self.kept.clone_from(&carried.0);
        self.kept_cubic = carried.1;
        self.kept_length = carried.2;
    }

    /// What it did so far.
    pub(super) fn report(&self) -> &ImplicitReport {
        &self.report
    }

    /// Takes the macro step `step` until the interface converges; on return the histories
    /// hold the values at its end as their latest samples.
    pub(super) fn step(&mut self, mut step: Step<'_>) -> Result<Progress> {
        if self.hermite() {
            // The first iterate of each rate: its value at the start, where known.
            let rates = self.z.rows_mut(self.tears.len(), self.tears.len());
            let mut cubic = true;
            for (z, &tear) in rates.into_iter().zip(&self.tears) {
                let rate = step.histories.latest_rate(tear);
                cubic &= !rate.is_nan();
                *z = if rate.is_nan() { 0.0 } else { rate };
            }
            // Factors made for the other curve would converge only linearly.
            if cubic != self.kept_cubic {
                self.kept = None;
                self.kept_cubic = cubic;
            }
        }
        for (index, participant) in step.participants.iter_mut().enumerate() {
            let saved = participant.save_state(step.from);
            match saved {
                Ok(saved) => self.saved.push(saved),
                Err(e) => {
                    self.free(step.participants)?;
                    return Err(e);
                }
            }
            let predicted = &mut self.predicted[index];
            for (slot, value) in predicted.iter_mut().enumerate() {
                let source = Source {
                    participant: index,
                    slot,
                };
                *value = step.histories.value_at(source, step.to, step.degree);
            }
            step.histories.push(index, step.to, predicted);
        }
        for (z, tear) in self.z.iter_mut().zip(&self.tears) {
            *z = self.predicted[tear.participant][tear.slot];
        }
        let participants = step.participants.iter_mut();
        self.recorders
            .extend(participants.map(Participant::take_recorder));
        let recorded = self.recorders.iter().any(Option::is_some);
        let mut iterated = self.iterate(&mut step);
        let participants = step.participants.iter_mut();
        for (participant, recorder) in participants.zip(self.recorders.drain(..)) {
            participant.put_recorder(recorder);
        }
        // A step that failed or that a participant ended is not repeated: the run stops there.
        if recorded && matches!(iterated, Ok(Progress::Reached)) {
            iterated = self.repeat_converged(&mut step);
        }
        let freed = self.free(step.participants);
        let progress = iterated?;
        freed?;
        Ok(progress)
    }

    /// Frees the states saved at the start of the step.
    fn free(&mut self, participants: &mut [Participant]) -> Result<()> {
        let mut freed = Ok(());
        for (participant, saved) in participants.iter_mut().zip(self.saved.drain(..)) {
            let result = participant.free_state(saved);
            if freed.is_ok() {
                freed = result;
            }
        }
        freed
    }

    /// Newton's iteration on the unknowns from the first iterate in `z`.
    fn iterate(&mut self, step: &mut Step<'_>) -> Result<Progress> {
        let mut residual = f64::INFINITY;
        // The change of the iterate and of the residual `z - Y(z)` by the latest iteration.
        let mut previous: Option<(DVector<f64>, DVector<f64>)> = None;
        for iteration in 0..=self.settings.max_iterations {
            if iteration > 0 {
                self.restore(step)?;
            }
            if let terminated @ Progress::Terminated { .. } = self.evaluate(step)? {
                return Ok(terminated);
            }
            let last = residual;
            residual = 0.0;
            let (mut converged, mut within_noise) = (true, true);
            let (tears, length) = (self.tears.len(), step.to - step.from);
            for (k, (&image, &value)) in self.y.iter().zip(self.z.iter()).enumerate() {
                // A rate (Hermite) has converged when the waveform it shapes has: that moves
                // by less than H times the rate's change, judged against its value's size (a
                // rate of size 1e7 passing through zero carries rounding far above 1e-10).
                let (change, size) = if k < tears {
                    ((image - value).abs(), image.abs())
                } else {
                    ((image - value).abs() * length, self.y[k - tears].abs())
                };
                residual = residual.max(change);
                converged &= change <= self.settings.tolerance * size.max(1.0);
                within_noise &= change <= self.noise * size.max(1.0);
            }
            let stalled = iteration > 0 && residual > 0.5 * last;
            if converged || (within_noise && stalled) {
                self.report.steps += 1;
                self.report.iterations += iteration;
                self.report.most_iterations = self.report.most_iterations.max(iteration);
                return Ok(Progress::Reached);
            }
            if iteration == self.settings.max_iterations {
                break;
            }
            let broyden = self.report.jacobian == InterfaceJacobian::Broyden;
            if let (true, Some(kept), Some((dz, dg))) = (broyden, &mut self.kept, &mut previous) {
                *dz += &self.z;
                *dg += &self.z - &self.y;
                kept.update(dz, dg);
                self.report.updates += 1;
            }
            // Broyden's matrix is made afresh only when the residual grew.
            let enough = if broyden { last } else { 0.1 * last };
            // `dY/dz` changes with the step's length (adaptive steps), and factors made for
            // another converge only linearly: 4 to 5 iterations per step under adaptive steps.
            // Made afresh where the length changed by more than 10 %: on the double
            // oscillator under adaptive steps (Model Exchange masses on the Hermite waveform,
            // differences; ten sub-steps, the step derivatives) 10 % and 15 % fewer
            // instructions than never, where 2 % took 36 % and 14 % more, and every change
            // 1.9 times as many with the step derivatives.
            let resized = (length / self.kept_length).max(self.kept_length / length) > 1.1;
            let fresh = self.kept.is_none() || residual > enough || (iteration == 0 && resized);
            if fresh {
                self.kept = Some(self.factors(step)?);
                self.kept_length = length;
            }
            self.step.copy_from(&self.y);
            self.step -= &self.z;
            let factors = self.kept.as_ref().expect("made above");
            if !factors.solve_mut(&mut self.step) {
                return Err(Error::simulation(
                    step.from,
                    format!(
                        "implicit coupling: the interface equations of the macro step to t = \
                         {} have no unique solution (singular Jacobian; residual {residual:.3e} \
                         after {iteration} Newton iterations)",
                        step.to
                    ),
                ));
            }
            if broyden {
                previous = Some((-&self.z, &self.y - &self.z));
            }
            self.z += &self.step;
        }
        Err(Error::simulation(
            step.from,
            format!(
                "implicit coupling: the macro step to t = {} did not converge, residual \
                 {residual:.3e} after {} Newton iterations (schedule.implicit.max-iterations); \
                 a smaller macro step converges faster",
                step.to, self.settings.max_iterations
            ),
        ))
    }

    /// Takes the converged step once more, from the participants' states at its start and the
    /// converged iterate, for the recorders given back to them. The values must be those of
    /// the last iteration, bit for bit: otherwise the recorders would hear a run the
    /// co-simulation did not take.
    fn repeat_converged(&mut self, step: &mut Step<'_>) -> Result<Progress> {
        self.step.copy_from(&self.y);
        self.restore(step)?;
        let progress = self.evaluate(step)?;
        if progress == Progress::Reached && self.y != self.step {
            let change = (&self.y - &self.step).amax();
            return Err(Error::simulation(
                step.from,
                format!(
                    "implicit coupling: repeating the converged macro step to t = {} from the \
                     saved states changed the values exchanged by up to {change:.3e}: a \
                     component does not come back to its saved FMU state exactly, so the \
                     run cannot be recorded",
                    step.to
                ),
            ));
        }
        Ok(progress)
    }

    /// Puts every participant back at the start of the step.
    fn restore(&mut self, step: &mut Step<'_>) -> Result<()> {
        for (participant, saved) in step.participants.iter_mut().zip(&self.saved) {
            participant.restore_state(saved, step.from)?;
        }
        Ok(())
    }

    /// Advances every participant over the step from the iterate `z` (the participants at the
    /// step's start) and reads the unknowns' images into `y`.
    fn evaluate(&mut self, step: &mut Step<'_>) -> Result<Progress> {
        self.report.evaluations += 1;
        let tears = self.tears.len();
        for (&tear, &value) in self.tears.iter().zip(self.z.iter()) {
            step.histories.set_latest(tear, value);
        }
        for (&tear, &rate) in self.tears.iter().zip(self.z.iter().skip(tears)) {
            step.histories.set_latest_rate(tear, rate);
        }
        let span = (step.from, step.to);
        let holds = if self.hermite() {
            Holds::Hermite
        } else {
            Holds::Interpolated
        };
        let replace = Recording::Replace;
        let (participants, histories) = (&mut *step.participants, &mut *step.histories);
        let progress = match &mut step.jacobi {
            Some(jacobi) => jacobi.step(participants, histories, span, holds, replace)?,
            None => gauss_seidel::step(participants, histories, step.order, span, holds, replace)?,
        };
        for (y, &tear) in self.y.iter_mut().zip(&self.tears) {
            *y = step.histories.latest(tear);
        }
        for (y, &tear) in self.y.iter_mut().skip(tears).zip(&self.tears) {
            *y = step.histories.latest_rate(tear);
        }
        Ok(progress)
    }

    /// The factors of `I - dY/dz` at the iterate `z`, whose image `y` the latest evaluation
    /// computed.
    fn factors(&mut self, step: &mut Step<'_>) -> Result<Factors> {
        self.report.jacobians += 1;
        let matrix = if self.exact {
            self.exact_matrix(step)?
        } else {
            self.difference_matrix(step)?
        };
        Ok(Factors::new(matrix))
    }

    /// `I - dY/dz` by forward differences: one evaluation per unknown.
    fn difference_matrix(&mut self, step: &mut Step<'_>) -> Result<DMatrix<f64>> {
        let n = self.z.len();
        let mut matrix = DMatrix::identity(n, n);
        let (z, y) = (self.z.clone(), self.y.clone());
        for j in 0..n {
            // The square root of the noise on the values balances that noise against the
            // differences' truncation. Measured on the double oscillator with Model Exchange
            // masses (tolerance 1e-8, kc = 1e4 N/m, the line): 2.99 Newton iterations per step
            // with the square root of machine epsilon, 1.10 with that of the tolerance.
            let h = self.noise.sqrt() * z[j].abs().max(1.0);
            self.z[j] = z[j] + h;
            self.restore(step)?;
            self.evaluate(step)?;
            for i in 0..n {
                matrix[(i, j)] -= (self.y[i] - y[i]) / h;
            }
            self.z[j] = z[j];
        }
        self.y.copy_from(&y);
        Ok(matrix)
    }

    /// `I - dY/dz` from the derivatives of every participant's macro step, the tangents of all
    /// unknowns carried through the participants as an evaluation carries the values. A
    /// participant taking one step per macro step held its inputs at the step's start, so its
    /// tangents are the directional derivatives of its outputs by its inputs at the end, where
    /// the latest evaluation (of the iterate) left it; one taking several retakes them from the
    /// step's start with their derivatives (`super::sub_step_tangents`).
    fn exact_matrix(&mut self, step: &mut Step<'_>) -> Result<DMatrix<f64>> {
        let n = self.z.len();
        let jacobi = step.jacobi.is_some();
        for tangents in &mut self.tangents {
            tangents.fill(0.0);
        }
        for (j, tear) in self.tears.iter().enumerate() {
            self.tangents[tear.participant][(tear.slot, j)] = 1.0;
        }
        for &i in step.order {
            let tangents = &self.tangents;
            let latest = |source: Source, j: usize| tangents[source.participant][(source.slot, j)];
            let participant = &mut step.participants[i];
            let outputs = &mut self.outputs[i];
            if participant.differentiates_sub_steps() {
                participant.restore_state(&self.saved[i], step.from)?;
                let span = (step.from, step.to);
                participant.sub_step_tangents(step.histories, span, &latest, outputs)?;
            } else {
                self.column.resize(outputs.nrows(), 0.0);
                for j in 0..n {
                    let (to, holds) = (step.to, Holds::Interpolated);
                    let latest = |source: Source| latest(source, j);
                    let inputs = &mut self.inputs;
                    participant.input_tangents(step.histories, to, holds, &latest, inputs);
                    participant.observed_tangents(&self.inputs, &mut self.column)?;
                    outputs.column_mut(j).copy_from_slice(&self.column);
                }
            }
            // Under Gauss-Seidel the next participants read these outputs; under Jacobi
            // every participant reads the iterate's tangents.
            if !jacobi {
                self.tangents[i].copy_from(&self.outputs[i]);
            }
        }
        let mut matrix = DMatrix::identity(n, n);
        for (row, &tear) in self.tears.iter().enumerate() {
            for j in 0..n {
                matrix[(row, j)] -= self.outputs[tear.participant][(tear.slot, j)];
            }
        }
        Ok(matrix)
    }
}

/// Checks that every participant whose values feed a continuous input gives their time
/// derivatives, which the Hermite waveform needs; the error names the first that does not.
fn check_rates(
    system: &System,
    participants: &[Participant],
    observed: &[Vec<Port>],
) -> Result<()> {
    for connection in &system.connections {
        let to = connection.to.variable(&system.components);
        let continuous = to.ty.is_float() && to.variability == Variability::Continuous;
        let from = connection.from;
        let source = Source::of(observed, from).expect("every connection source is observed");
        if continuous && !participants[from.component].gives_rate(source.slot) {
            return Err(Error::invalid_value(
                format!(
                    "connection {} -> {}",
                    from.display(&system.components),
                    connection.to.display(&system.components)
                ),
                format!(
                    "schedule.implicit.waveform = \"hermite\" needs the time derivative of {}, \
                     which the master takes from a Model Exchange FMU's directional derivatives \
                     of a scalar float output or state (set interface = \"me\" on component {}, \
                     or waveform = \"line\")",
                    from.display(&system.components),
                    system.components[from.component].name
                ),
            ));
        }
    }
    Ok(())
}
