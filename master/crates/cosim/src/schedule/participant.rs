//! A component taking part in a co-simulation: its FMU instance and how it advances (a
//! Co-Simulation FMU steps itself, a Model Exchange FMU is integrated by the master, the
//! master activates the model partitions of a Scheduled Execution FMU at its clocks' ticks), the
//! inputs it takes from other participants, and the variables the master reads from it at
//! communication points. Every FMU call goes through here and is counted, and reported to
//! the participant's recorder, if it has one.

use std::ops::Range;

use nalgebra::DMatrix;

use super::activations::Activations;
use super::feedthrough::Feedthrough;
use super::history::{Histories, Hold, Source};
use super::integration::Integration;
use super::partitions::Partitions;
use super::rates::Rates;
use super::recording::{Event, Recorder};
use super::sub_step_tangents::SubStepTangents;
use crate::coupling::Extrapolation;
use crate::error::{Error, Result};
use crate::system::{Component, Connection, Port, System, Transform, ValueMap};
use fmi_host::call_status::CallStatus;
use fmi_host::float_text::format_float;
use fmi_host::instance::{Fmu3Instance, FmuInstance, FmuState, StepDerivatives};
use fmi_host::model_description::{FmiVersion, InterfaceType, Values, Variability, VariableType};
use tandem_ode::model_exchange::{MeStepper, Reached, StepperSnapshot};
use tandem_ode::solver::Auto;

/// A connected input.
struct Input {
    source: Source,
    /// Index of the input variable in the model description.
    variable: usize,
    /// Continuous floats follow the extrapolation polynomial; other inputs hold the latest value.
    continuous: bool,
    /// What the connection does to the source's value on the way.
    transform: Transform,
    /// The value map of a connection of booleans or integers.
    mapping: Option<ValueMap>,
    /// Added to the value sent (the energy correction of the effort a power bond carries).
    offset: f64,
}

impl Input {
    /// The value sent at `time` on `curve`.
    fn value(&self, histories: &Histories, time: f64, curve: Curve) -> f64 {
        let value = match curve {
            Curve::Polynomial(degree) => histories.value_at(self.source, time, self.degree(degree)),
            Curve::Hermite if self.continuous => histories.hermite_at(self.source, time),
            Curve::Hermite => histories.value_at(self.source, time, 0),
        };
        let sent = self.transform.apply(value);
        match &self.mapping {
            Some(mapping) => mapping.apply(sent) + self.offset,
            None => sent + self.offset,
        }
    }

    /// How [`Input::value`] combines the source's samples (the transformation's factor
    /// included; its offset and the correction do not depend on the samples).
    fn hold(&self, histories: &Histories, time: f64, degree: usize) -> Hold {
        histories
            .hold_at(self.source, time, self.degree(degree))
            .scaled(self.transform.factor)
    }

    /// The weight of the source's latest sample in the value sent at `time` on the polynomial
    /// of `degree` (none for an input that is no continuous float).
    fn latest_weight(&self, histories: &Histories, time: f64, degree: usize) -> f64 {
        if !self.continuous {
            return 0.0;
        }
        let tag = histories.latest_tag(self.source);
        self.hold(histories, time, degree)
            .terms()
            .iter()
            .filter(|(t, _)| Some(*t) == tag)
            .map(|(_, weight)| weight)
            .sum()
    }

    /// Continuous floats follow the extrapolation polynomial; other inputs hold the latest value.
    fn degree(&self, degree: usize) -> usize {
        if self.continuous {
            degree
        } else {
            0
        }
    }
}

/// A variable read at every communication point.
struct Observed {
    name: String,
    ty: VariableType,
}

/// Consecutive variables of one type, read or written with one call. An FMI 3.0 array takes
/// one reference and as many values as it has elements.
struct Batch {
    ty: VariableType,
    references: Vec<u32>,
    range: Range<usize>,
}

/// An FMI 3.0 array input some of whose elements are connected: FMI writes an array whole, so
/// the connected elements are written into a copy of its values, and the copy into the FMU.
struct ArrayInput {
    ty: VariableType,
    reference: u32,
    /// The array's values: empty until first read from the FMU (which keeps the elements
    /// no connection feeds), then as last written.
    values: Vec<f64>,
    count: usize,
    /// Per connected element: its index among the participant's inputs, and its position.
    elements: Vec<(usize, usize)>,
}

/// Which values of the inputs' holds a participant's steps take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Holds {
    /// Explicit coupling: the polynomial of this degree (or the component's own) through the
    /// latest samples; a Co-Simulation FMU's (sub-)step holds the value at its start.
    Extrapolated(usize),
    /// Implicit coupling, the latest sample being the iterate at the end of the macro step:
    /// the line between the samples at its start and end; a Co-Simulation FMU's (sub-)step
    /// holds the line's value at its start.
    Interpolated,
    /// As [`Holds::Interpolated`] on the cubic through the values and their rates at both ends
    /// (a Hermite waveform); a participant that gives rates computes them at the end.
    Hermite,
}

/// The curve a participant's inputs follow.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Curve {
    /// The polynomial of this degree through the latest samples.
    Polynomial(usize),
    /// The Hermite cubic through the latest two samples and their rates.
    Hermite,
}

/// A participant's own state at a macro point: its FMU's, and for a Model Exchange FMU the
/// master's integrator's.
pub struct SavedState {
    fmu: FmuState,
    stepper: Option<StepperSnapshot>,
}

/// How a participant's macro step ended.
pub enum Advance {
    /// The participant reached the end of the macro step; its observed values there are
    /// [`Participant::observed`].
    Reached,
    /// The FMU asked to end the simulation at this time.
    Terminated(f64),
}

/// How a participant advances.
enum Engine {
    /// A Co-Simulation FMU, stepping itself `sub_steps` times per macro step with its inputs
    /// held at their values at the start of each step.
    CoSimulation {
        instance: Box<dyn FmuInstance>,
        sub_steps: usize,
    },
    /// A Model Exchange FMU integrated by the master, its inputs set to their holds at every
    /// time the integrator evaluates it.
    ModelExchange(Box<MeStepper<Box<dyn FmuInstance>, Auto>>),
    /// A Scheduled Execution FMU whose partitions the master activates at the ticks of each
    /// macro step, its inputs held at their values at the step's start.
    ScheduledExecution(Box<Partitions>),
}

impl Engine {
    fn instance(&mut self) -> &mut dyn FmuInstance {
        match self {
            Engine::CoSimulation { instance, .. } => instance.as_mut(),
            Engine::ModelExchange(stepper) => stepper.instance(),
            Engine::ScheduledExecution(partitions) => partitions.instance(),
        }
    }
}

/// The instance a participant drives.
pub enum Instance {
    /// An instance the master steps or integrates: Co-Simulation, Model Exchange, or a
    /// stand-in that presents itself as either.
    Stepped(Box<dyn FmuInstance>),
    /// An FMI 3.0 Scheduled Execution instance, whose partitions the master activates through
    /// calls only FMI 3.0 has.
    Scheduled(Fmu3Instance),
}

/// The participant's connections to the others: the inputs it writes and the variables it
/// observes, the FMI calls made for them and for its set-up, and its recorder.
struct Ports {
    name: String,
    fmi_version: FmiVersion,
    inputs: Vec<Input>,
    /// The scalar inputs, which [`connections_into`] lists first.
    input_batches: Vec<Batch>,
    /// The inputs that are elements of arrays, by array.
    array_inputs: Vec<ArrayInput>,
    observed: Vec<Observed>,
    observed_batches: Vec<Batch>,
    calls: usize,
    recorder: Option<Box<dyn Recorder>>,
    /// The values last written to the inputs, in connection order (kept, so that a step
    /// allocates nothing).
    input_values: Vec<f64>,
    /// The values last read of the observed variables.
    observed_values: Vec<f64>,
    /// Their time derivatives (NaN where none), valid when `rates_fresh` says the latest
    /// advance computed them, and the rates of the connected inputs they were computed with.
    observed_rates: Vec<f64>,
    rates_fresh: bool,
    input_rates: Vec<f64>,
}

/// One component's instance and ports.
pub struct Participant {
    engine: Engine,
    ports: Ports,
    /// The degree of the component's own input extrapolation, replacing the schedule's.
    degree: Option<usize>,
    /// Relative tolerance given to the FMU (Model Exchange: also the integrator's).
    tolerance: Option<f64>,
    /// The derivatives of the observed variables by the inputs, where the FMU gives them.
    feedthrough: Option<Feedthrough>,
    /// The time derivatives of the observed variables, where the master can take them.
    rates: Option<Rates>,
    /// The tangents of a macro step of sub-steps, where the FMU gives their derivatives.
    sub_step_tangents: Option<SubStepTangents>,
}

impl Participant {
    /// Takes `instance` (of the component's interface) as component `index` of `system` and
    /// sets its parameter and start values. It observes `observed_ports` (the outputs it feeds
    /// to connections and the recorded variables); `slots_of` gives the observed slots of every
    /// component, for the input sources; the recorder, if any, hears of everything it does
    /// from here on.
    pub fn instantiate(
        system: &System,
        index: usize,
        mut instance: Instance,
        observed_ports: &[Port],
        slots_of: &dyn Fn(Port) -> Source,
        recorder: Option<Box<dyn Recorder>>,
    ) -> Result<Self> {
        let component = &system.components[index];
        let md = component.fmu.model_description();
        let connected: Vec<_> = connections_into(system, index).collect();
        let inputs = connected
            .iter()
            .map(|c| {
                let variable = c.to.variable(&system.components);
                Input {
                    source: slots_of(c.from),
                    variable: c.to.variable,
                    continuous: variable.ty.is_float()
                        && variable.variability == Variability::Continuous,
                    transform: c.transform,
                    mapping: c.mapping.clone(),
                    offset: 0.0,
                }
            })
            .collect();
        let input_batches = batches(
            connected
                .iter()
                .filter(|c| c.to.element.is_none())
                .map(|c| c.to.variable(&system.components))
                .map(|v| (v.ty, v.value_reference, None)),
        );
        let array_inputs = array_inputs(component, &connected)?;
        let observed_variables: Vec<_> = observed_ports
            .iter()
            .map(|p| (&md.variables[p.variable], p.element))
            .collect();
        let mut ports = Ports {
            name: component.name.clone(),
            fmi_version: md.fmi_version,
            inputs,
            input_batches,
            array_inputs,
            observed: observed_ports
                .iter()
                .map(|p| {
                    // The variable's (or element's) name, without the component's.
                    let port = p.display(&system.components).to_string();
                    Observed {
                        name: port[component.name.len() + 1..].to_string(),
                        ty: p.variable(&system.components).ty,
                    }
                })
                .collect(),
            observed_batches: batches(
                observed_variables
                    .iter()
                    .map(|(v, element)| (v.ty, v.value_reference, *element)),
            ),
            calls: 0,
            recorder,
            input_values: Vec::with_capacity(connected.len()),
            observed_values: vec![0.0; observed_ports.len()],
            observed_rates: vec![f64::NAN; observed_ports.len()],
            rates_fresh: false,
            input_rates: Vec::with_capacity(connected.len()),
        };
        ports.calls += component.start_values.len();
        let interface = match &instance {
            Instance::Stepped(instance) => instance.interface(),
            Instance::Scheduled(_) => InterfaceType::ScheduledExecution,
        };
        let feedthrough = Feedthrough::new(system, index, interface, observed_ports);
        let rates = Rates::new(system, index, interface, observed_ports);
        let sub_step_tangents = match &mut instance {
            Instance::Stepped(instance)
                if interface == InterfaceType::CoSimulation && component.sub_steps > 1 =>
            {
                let layout = instance.step_derivatives().map(|d| d.layout());
                layout.and_then(|l| SubStepTangents::new(system, index, &l, observed_ports))
            }
            _ => None,
        };
        let (engine, tolerance) = match instance {
            Instance::Scheduled(mut instance) => {
                crate::start_values::apply(&mut instance, &component.start_values)?;
                let clocks = component.clocks.clone().ok_or_else(|| {
                    Error::invalid_value(
                        format!("component {}", component.name),
                        "a Scheduled Execution instance for a component loaded with another \
                         interface",
                    )
                })?;
                let partitions = Partitions::new(instance, clocks);
                (Engine::ScheduledExecution(Box::new(partitions)), None)
            }
            Instance::Stepped(instance) => stepped(component, instance)?,
        };
        Ok(Participant {
            engine,
            ports,
            degree: component.extrapolation.map(Extrapolation::degree),
            tolerance,
            feedthrough,
            rates,
            sub_step_tangents,
        })
    }

    /// The component name.
    pub fn name(&self) -> &str {
        &self.ports.name
    }

    /// For a Model Exchange participant, what the master's integrator did so far, up to `end`.
    pub fn integration(&self, end: f64) -> Option<Integration> {
        let Engine::ModelExchange(stepper) = &self.engine else {
            return None;
        };
        let solver = stepper.solver();
        Some(Integration {
            component: self.ports.name.clone(),
            method: solver.method(),
            spans: solver.spans().to_vec(),
            statistics: stepper.statistics(),
            end,
        })
    }

    /// For a Scheduled Execution participant, the partitions the master activated so far.
    pub fn activations(&self) -> Option<Activations> {
        let Engine::ScheduledExecution(partitions) = &self.engine else {
            return None;
        };
        Some(Activations {
            component: self.ports.name.clone(),
            partitions: partitions.activations(),
        })
    }

    /// FMI calls made so far.
    pub fn calls(&self) -> usize {
        let integration = match &self.engine {
            Engine::CoSimulation { .. } => 0,
            Engine::ModelExchange(stepper) => stepper.statistics().calls,
            Engine::ScheduledExecution(partitions) => partitions.calls(),
        };
        self.ports.calls + integration
    }

    /// Number of observed variables.
    pub fn observed_count(&self) -> usize {
        self.ports.observed.len()
    }

    /// Enters initialization mode for the experiment from `start` to `stop`.
    pub fn enter_initialization_mode(&mut self, start: f64, stop: f64) -> Result<()> {
        self.ports.calls += 1;
        self.engine
            .instance()
            .enter_initialization_mode(self.tolerance, start, Some(stop))
            .map_err(|e| at(start, e))
    }

    /// Leaves initialization mode; a Scheduled Execution participant first schedules its
    /// first ticks, a Model Exchange participant then settles its discrete states (with its
    /// inputs from `histories`) and starts integrating at `start`.
    pub fn exit_initialization_mode(&mut self, histories: &Histories, start: f64) -> Result<()> {
        if let Engine::ScheduledExecution(partitions) = &mut self.engine {
            partitions.schedule_first(start).map_err(|e| at(start, e))?;
        }
        self.ports.calls += 1;
        let instance = self.engine.instance();
        instance
            .exit_initialization_mode()
            .map_err(|e| at(start, e))?;
        self.ports.record(instance, start, Event::Initialized)?;
        let Engine::ModelExchange(stepper) = &mut self.engine else {
            return Ok(());
        };
        let ports = &mut self.ports;
        let mut inputs = |instance: &mut dyn FmuInstance, t: f64, _event: bool| {
            Ok(ports.set_inputs(instance, histories, t, Curve::Polynomial(0))?)
        };
        if stepper
            .start(start, &mut inputs)
            .map_err(|e| at(start, e))?
        {
            return Err(Error::Simulation {
                time: start,
                message: format!(
                    "instance {}: the FMU asked to terminate when leaving initialization",
                    ports.name
                ),
            });
        }
        Ok(())
    }

    /// The instance, for a caller that replays or differentiates steps after the run.
    pub fn instance_mut(&mut self) -> &mut dyn FmuInstance {
        self.engine.instance()
    }

    /// Writes `values` to the connected inputs (in connection order) at `time`.
    pub fn write_inputs(&mut self, time: f64, values: &[f64]) -> Result<()> {
        self.ports
            .write_inputs(self.engine.instance(), time, values)
    }

    /// Ends the run.
    pub fn terminate(&mut self) -> Result<()> {
        self.ports.calls += 1;
        Ok(self.engine.instance().terminate()?)
    }

    /// Writes the connected inputs: each source's hold of `degree` at `time`.
    pub fn set_inputs(&mut self, histories: &Histories, time: f64, degree: usize) -> Result<()> {
        let curve = Curve::Polynomial(degree);
        self.ports
            .set_inputs(self.engine.instance(), histories, time, curve)
    }

    /// Reads the observed variables at `time`; a non-finite float is an error.
    pub fn observe(&mut self, time: f64) -> Result<&[f64]> {
        self.ports.observe(self.engine.instance(), time)?;
        Ok(self.observed())
    }

    /// The observed variables' values as last read.
    pub fn observed(&self) -> &[f64] {
        &self.ports.observed_values
    }

    /// Whether the time derivative of observed slot `slot` can be had (a [`Holds::Hermite`]
    /// advance computes it): the FMU is a Model Exchange FMU with directional derivatives and
    /// the slot a scalar float output or state.
    pub fn gives_rate(&self, slot: usize) -> bool {
        self.rates.as_ref().is_some_and(|rates| rates.gives(slot))
    }

    /// The time derivatives of the observed variables at the end of the latest advance, where
    /// it computed them ([`Holds::Hermite`]).
    pub fn observed_rates(&self) -> Option<&[f64]> {
        let ports = &self.ports;
        ports.rates_fresh.then_some(ports.observed_rates.as_slice())
    }

    /// Whether the derivatives of the observed variables by the connected inputs can be had
    /// ([`Self::observed_tangents`]): the FMU gives directional derivatives.
    pub fn has_feedthrough_derivatives(&self) -> bool {
        self.feedthrough.is_some()
    }

    /// Into `out`, per connected input, the tangent of the value it receives at `time` (by
    /// `holds`) when the latest sample of each source has the tangent `latest` gives (the
    /// earlier samples none).
    pub fn input_tangents(
        &self,
        histories: &Histories,
        time: f64,
        holds: Holds,
        latest: &dyn Fn(Source) -> f64,
        out: &mut Vec<f64>,
    ) {
        // At the end of the step, where the exact Jacobian takes them, the cubic's value is the
        // latest sample's, as the line's.
        let degree = match self.curve(holds) {
            Curve::Polynomial(degree) => degree,
            Curve::Hermite => 1,
        };
        out.clear();
        out.extend(
            self.ports
                .inputs
                .iter()
                .map(|input| input.latest_weight(histories, time, degree) * latest(input.source)),
        );
    }

    /// The tangents of the observed variables (into `observed`, by slot) that the tangents of
    /// the connected inputs (`inputs`, in connection order) cause at the current point (none
    /// without inputs). Otherwise without [`Self::has_feedthrough_derivatives`] an error.
    pub fn observed_tangents(&mut self, inputs: &[f64], observed: &mut [f64]) -> Result<()> {
        if self.ports.inputs.is_empty() {
            observed.fill(0.0);
            return Ok(());
        }
        let Some(feedthrough) = &mut self.feedthrough else {
            return Err(Error::invalid_value(
                format!("component {}", self.ports.name),
                "its FMU gives no directional derivatives",
            ));
        };
        self.ports.calls += 1;
        feedthrough.jvp(self.engine.instance(), inputs, observed)
    }

    /// Whether the tangents of its observed variables at the end of an implicit macro step by
    /// those of the values iterated there can be had: it has no inputs, or is a Co-Simulation
    /// FMU taking one step per macro step with directional derivatives
    /// ([`Self::observed_tangents`]) or several with the adjoint extension's step derivatives
    /// ([`Self::sub_step_tangents`]).
    pub fn differentiates_macro_step(&self) -> bool {
        self.ports.inputs.is_empty()
            || (self.steps_once_per_macro_step() && self.feedthrough.is_some())
            || self.sub_step_tangents.is_some()
    }

    /// Whether it takes several steps per macro step with their derivatives: its tangents at the
    /// end of an implicit macro step come from [`Self::sub_step_tangents`].
    pub fn differentiates_sub_steps(&self) -> bool {
        self.sub_step_tangents.is_some()
    }

    /// Retakes the implicit macro step `[from, to]` from its state at `from` (restored by the
    /// caller), its inputs on the line to the latest samples, and writes into `out` (observed
    /// slots by columns) the tangents of the observed variables at `to` when the latest sample
    /// of each source has the tangents `latest(source, column)`. It ends at `to` as the step
    /// did. Without [`Self::differentiates_sub_steps`] an error.
    pub fn sub_step_tangents(
        &mut self,
        histories: &Histories,
        (from, to): (f64, f64),
        latest: &dyn Fn(Source, usize) -> f64,
        out: &mut DMatrix<f64>,
    ) -> Result<()> {
        let ports = &mut self.ports;
        let (
            Engine::CoSimulation {
                instance,
                sub_steps,
            },
            Some(tangents),
        ) = (&mut self.engine, &mut self.sub_step_tangents)
        else {
            return Err(no_step_derivatives(&ports.name));
        };
        let curve = Curve::Polynomial(1);
        tangents.start(
            step_derivatives(instance.as_mut(), &ports.name)?,
            out.ncols(),
        )?;
        let n = *sub_steps;
        for j in 0..n {
            let (t, next) = sub_step(from, to, n, j);
            ports.set_inputs(instance.as_mut(), histories, t, curve)?;
            let input = on_line(&ports.inputs, histories, t, latest);
            tangents.step(
                step_derivatives(instance.as_mut(), &ports.name)?,
                next - t,
                &input,
            )?;
            ports.calls += 1;
            let outcome = instance.do_step(t, next - t).map_err(|e| at(t, e))?;
            if outcome.terminate || outcome.partial {
                return Err(Error::simulation(
                    t,
                    format!(
                        "instance {}: retaking a sub-step for its derivatives, the FMU ended \
                         it early at t = {}",
                        ports.name,
                        format_float(outcome.last_time)
                    ),
                ));
            }
        }
        ports.set_inputs(instance.as_mut(), histories, to, curve)?;
        let input = on_line(&ports.inputs, histories, to, latest);
        tangents.finish(
            step_derivatives(instance.as_mut(), &ports.name)?,
            &input,
            out,
        )
    }

    /// Adds `offset` to every value sent to the connected input variable `variable` from now
    /// on; false when that variable is no connected continuous float input.
    pub fn set_input_offset(&mut self, variable: usize, offset: f64) -> bool {
        match self
            .ports
            .inputs
            .iter_mut()
            .find(|input| input.variable == variable && input.continuous)
        {
            Some(input) => {
                input.offset = offset;
                true
            }
            None => false,
        }
    }

    /// The offsets of the connected inputs, in connection order.
    pub fn input_offsets(&self) -> Vec<f64> {
        self.ports.inputs.iter().map(|input| input.offset).collect()
    }

    /// Sets the offsets of the connected inputs, in connection order.
    pub fn set_input_offsets(&mut self, offsets: &[f64]) {
        for (input, &offset) in self.ports.inputs.iter_mut().zip(offsets) {
            input.offset = offset;
        }
    }

    /// Reads the numeric variables `variables` (type, value reference) at `time` after setting
    /// every connected input to its value communicated at `time`, so that outputs with direct
    /// feedthrough are consistent with the other participants' values there (not with
    /// extrapolated ones).
    pub fn read_consistent(
        &mut self,
        histories: &Histories,
        time: f64,
        variables: &[(VariableType, u32)],
    ) -> Result<Vec<f64>> {
        let instance = self.engine.instance();
        self.ports
            .set_inputs(instance, histories, time, Curve::Polynomial(0))?;
        let mut values = vec![f64::NAN; variables.len()];
        for batch in batches(
            variables
                .iter()
                .map(|&(ty, reference)| (ty, reference, None)),
        ) {
            self.ports.calls += 1;
            let read = instance
                .get_values(batch.ty, &batch.references)
                .map_err(|e| at(time, e))?;
            for (i, slot) in batch.range.enumerate() {
                values[slot] = read.f64_at(i).unwrap_or(f64::NAN);
            }
        }
        Ok(values)
    }

    /// The curve its inputs follow under `holds`.
    fn curve(&self, holds: Holds) -> Curve {
        match holds {
            Holds::Extrapolated(degree) => Curve::Polynomial(self.degree.unwrap_or(degree)),
            Holds::Interpolated => Curve::Polynomial(1),
            Holds::Hermite => Curve::Hermite,
        }
    }

    /// The relative tolerance of the master's integrator of a Model Exchange FMU (none for
    /// the others): the size of the noise the adaptive steps put on its values.
    pub fn integrator_tolerance(&self) -> Option<f64> {
        match self.engine {
            Engine::ModelExchange(_) => self.tolerance,
            _ => None,
        }
    }

    /// Whether it is a Co-Simulation FMU taking one step per macro step.
    fn steps_once_per_macro_step(&self) -> bool {
        matches!(self.engine, Engine::CoSimulation { sub_steps: 1, .. })
    }

    /// Saves its state at `time`, to come back to it ([`Self::restore_state`]).
    pub fn save_state(&mut self, time: f64) -> Result<SavedState> {
        self.ports.calls += 1;
        let stepper = match &self.engine {
            Engine::ModelExchange(stepper) => Some(stepper.snapshot()),
            _ => None,
        };
        let fmu = self
            .engine
            .instance()
            .get_fmu_state()
            .map_err(|e| at(time, e))?;
        Ok(SavedState { fmu, stepper })
    }

    /// Goes back to `saved`, a state it saved at `time`.
    pub fn restore_state(&mut self, saved: &SavedState, time: f64) -> Result<()> {
        self.ports.calls += 1;
        if let (Engine::ModelExchange(stepper), Some(snapshot)) = (&mut self.engine, &saved.stepper)
        {
            stepper.restore(snapshot);
        }
        self.engine
            .instance()
            .set_fmu_state(&saved.fmu)
            .map_err(|e| at(time, e))
    }

    /// Frees `saved`, a state it saved.
    pub fn free_state(&mut self, saved: SavedState) -> Result<()> {
        self.ports.calls += 1;
        Ok(self.engine.instance().free_fmu_state(saved.fmu)?)
    }

    /// Takes its recorder out: until [`Self::put_recorder`] gives it back, what it does is
    /// heard by no one (an implicit coupling's trial iterations are no part of the run).
    pub fn take_recorder(&mut self) -> Option<Box<dyn Recorder>> {
        self.ports.recorder.take()
    }

    /// Gives it `recorder`, the one [`Self::take_recorder`] took.
    pub fn put_recorder(&mut self, recorder: Option<Box<dyn Recorder>>) {
        self.ports.recorder = recorder;
    }

    /// Advances from `from` to `to` with its inputs following `holds`: a Co-Simulation FMU in
    /// its sub-steps, each with its inputs set to their values at the sub-step's start; a
    /// Model Exchange FMU with its inputs
    /// following the holds; a Scheduled Execution FMU by the partitions of the ticks in
    /// `[from, to)`, its inputs set to the holds at `from` before the partitions of each tick
    /// time. At `to` sets the inputs to their holds there (so that outputs with direct
    /// feedthrough see them) and reads the observed variables.
    pub fn advance(
        &mut self,
        histories: &Histories,
        from: f64,
        to: f64,
        holds: Holds,
    ) -> Result<Advance> {
        let curve = self.curve(holds);
        let ports = &mut self.ports;
        match &mut self.engine {
            Engine::CoSimulation {
                instance,
                sub_steps,
            } => {
                let n = *sub_steps;
                for j in 0..n {
                    let (t, next) = sub_step(from, to, n, j);
                    ports.set_inputs(instance.as_mut(), histories, t, curve)?;
                    let step = Event::Step {
                        time: t,
                        step: next - t,
                    };
                    ports.record(instance.as_mut(), t, step)?;
                    ports.calls += 1;
                    let outcome = instance.do_step(t, next - t).map_err(|e| at(t, e))?;
                    if outcome.terminate {
                        return Ok(Advance::Terminated(outcome.last_time));
                    }
                    // An FMU that got part of the way discarded the rest (early return is
                    // never enabled): a master with rollback may take the step shorter.
                    if outcome.partial {
                        return Err(Error::Discarded {
                            time: t,
                            message: format!(
                                "instance {}: the step from t = {t} ended early at t = {} \
                                 without asking to terminate; a co-simulation cannot continue \
                                 from there",
                                ports.name,
                                format_float(outcome.last_time)
                            ),
                        });
                    }
                }
            }
            Engine::ModelExchange(stepper) => {
                let mut inputs = |instance: &mut dyn FmuInstance, t: f64, _event: bool| {
                    Ok(ports.set_inputs(instance, histories, t, curve)?)
                };
                let reached = stepper.advance_to(to, &mut inputs);
                match reached.map_err(|e| at(stepper.time(), e))? {
                    Reached::Target => {}
                    Reached::Terminated(time) => return Ok(Advance::Terminated(time)),
                }
            }
            Engine::ScheduledExecution(partitions) => {
                // The inputs are set again at each tick time, as `tandem simulate` sets its
                // input file's: a partition may consume an input (set it back).
                while let Some(time) = partitions.next_time_before(to) {
                    ports.set_inputs(partitions.instance(), histories, from, curve)?;
                    partitions.run_instant(time).map_err(|e| at(time, e))?;
                }
            }
        }
        let instance = self.engine.instance();
        self.ports.set_inputs(instance, histories, to, curve)?;
        self.ports.observe(instance, to)?;
        self.ports.rates_fresh = false;
        if let (Holds::Hermite, Some(rates)) = (holds, &mut self.rates) {
            self.ports.compute_rates(instance, histories, rates, to)?;
        }
        Ok(Advance::Reached)
    }
}

/// `(k, column)`: the tangent of connected input `k` at `time` on the line to the latest
/// samples, when those have the tangents `latest(source, column)`.
fn on_line<'a>(
    inputs: &'a [Input],
    histories: &'a Histories,
    time: f64,
    latest: &'a dyn Fn(Source, usize) -> f64,
) -> impl Fn(usize, usize) -> f64 + 'a {
    move |k, column| {
        let input = &inputs[k];
        input.latest_weight(histories, time, 1) * latest(input.source, column)
    }
}

/// The derivatives of the steps of participant `name`'s `instance`.
fn step_derivatives<'a>(
    instance: &'a mut dyn FmuInstance,
    name: &str,
) -> Result<&'a mut dyn StepDerivatives> {
    instance
        .step_derivatives()
        .ok_or_else(|| no_step_derivatives(name))
}

/// The error of a participant `name` asked for derivatives of its sub-steps it does not give.
fn no_step_derivatives(name: &str) -> Error {
    Error::invalid_value(
        format!("component {name}"),
        "it gives no derivatives of its sub-steps",
    )
}

/// The start and end of sub-step `j` of `n` equal ones from `from` to `to` (the last ends at
/// `to` exactly).
fn sub_step(from: f64, to: f64, n: usize, j: usize) -> (f64, f64) {
    let point = |j: usize| {
        if j == n {
            to
        } else {
            from + (to - from) * j as f64 / n as f64
        }
    };
    (point(j), point(j + 1))
}

/// The engine of `instance`, with the tolerance it is given, after its start values are set.
/// The instance's interface decides, not the component's: a gradient run integrates a Model
/// Exchange FMU in steps of its own (a held-input step) that present it as Co-Simulation.
fn stepped(
    component: &Component,
    mut instance: Box<dyn FmuInstance>,
) -> Result<(Engine, Option<f64>)> {
    crate::start_values::apply(instance.as_mut(), &component.start_values)?;
    Ok(match instance.interface() {
        InterfaceType::CoSimulation => (
            Engine::CoSimulation {
                instance,
                sub_steps: component.sub_steps,
            },
            None,
        ),
        InterfaceType::ModelExchange => {
            let solver =
                Auto::with_method(instance.number_of_continuous_states(), component.solver);
            let md = component.fmu.model_description();
            let stepper = MeStepper::new(instance, md, component.tolerance, solver);
            (
                Engine::ModelExchange(Box::new(stepper)),
                Some(component.tolerance),
            )
        }
        // Scheduling partitions takes FMI 3.0's own calls, which a boxed instance hides.
        InterfaceType::ScheduledExecution => {
            return Err(Error::invalid_value(
                format!("component {}", component.name),
                "a Scheduled Execution instance must be given as such, not boxed as any FMU \
                 instance",
            ))
        }
    })
}

impl Ports {
    /// Writes the connected inputs into `instance`: each source's value on `curve` at `time`.
    fn set_inputs(
        &mut self,
        instance: &mut dyn FmuInstance,
        histories: &Histories,
        time: f64,
        curve: Curve,
    ) -> Result<()> {
        let mut values = std::mem::take(&mut self.input_values);
        values.clear();
        values.extend(
            self.inputs
                .iter()
                .map(|input| input.value(histories, time, curve)),
        );
        let written = self.write_inputs(instance, time, &values);
        self.input_values = values;
        written?;
        if self.recorder.is_some() {
            let values = &self.input_values;
            let holds: Vec<Hold> = self
                .inputs
                .iter()
                .map(|input| match curve {
                    Curve::Polynomial(degree) => input.hold(histories, time, degree),
                    // A hold names samples and weights, and a cubic through rates is no such
                    // sum: an empty one, which no adjoint reads (a gradient takes differences
                    // on the Hermite waveform; its recorded run only gives the cost).
                    Curve::Hermite => Hold::default(),
                })
                .collect();
            let event = Event::Inputs {
                time,
                values,
                holds: &holds,
            };
            record(&mut self.recorder, instance, time, event)?;
        }
        Ok(())
    }

    /// Writes `values` to the connected inputs of `instance` (in connection order) at `time`.
    fn write_inputs(
        &mut self,
        instance: &mut dyn FmuInstance,
        time: f64,
        values: &[f64],
    ) -> Result<()> {
        for batch in &self.input_batches {
            self.calls += 1;
            let values = &values[batch.range.clone()];
            // Floats, nearly every connection, go straight from the slice.
            let written = match batch.ty {
                VariableType::Float64 => instance.set_real(&batch.references, values),
                ty => instance.set_values(ty, &batch.references, &Values::from_numbers(ty, values)),
            };
            written.map_err(|e| at(time, e))?;
        }
        for array in &mut self.array_inputs {
            let reference = std::slice::from_ref(&array.reference);
            if array.values.is_empty() {
                self.calls += 1;
                let read = instance
                    .get_elements(array.ty, reference, array.count)
                    .map_err(|e| at(time, e))?;
                array
                    .values
                    .extend((0..array.count).map(|i| read.f64_at(i).unwrap_or(f64::NAN)));
            }
            for &(input, element) in &array.elements {
                array.values[element] = values[input];
            }
            self.calls += 1;
            let written = match array.ty {
                VariableType::Float64 => instance.set_real(reference, &array.values),
                ty => instance.set_values(ty, reference, &Values::from_numbers(ty, &array.values)),
            };
            written.map_err(|e| at(time, e))?;
        }
        Ok(())
    }

    /// Computes the time derivatives of the observed variables at `time` by `rates`, from the
    /// rates of the connected inputs there (their sources' latest rates).
    fn compute_rates(
        &mut self,
        instance: &mut dyn FmuInstance,
        histories: &Histories,
        rates: &mut Rates,
        time: f64,
    ) -> Result<()> {
        self.input_rates.clear();
        self.input_rates.extend(self.inputs.iter().map(|input| {
            if input.continuous {
                input.transform.factor * histories.latest_rate(input.source)
            } else {
                0.0
            }
        }));
        self.calls += 2;
        rates
            .compute(instance, &self.input_rates, &mut self.observed_rates)
            .map_err(|e| at(time, e))?;
        self.rates_fresh = true;
        Ok(())
    }

    /// Reads the observed variables of `instance` at `time` into `observed_values`; a
    /// non-finite float is an error.
    fn observe(&mut self, instance: &mut dyn FmuInstance, time: f64) -> Result<()> {
        let values = &mut self.observed_values;
        for batch in &self.observed_batches {
            self.calls += 1;
            let values = &mut values[batch.range.clone()];
            // Floats, nearly every observed variable, are read straight into place.
            if batch.ty == VariableType::Float64 {
                instance
                    .get_real(&batch.references, values)
                    .map_err(|e| at(time, e))?;
                continue;
            }
            let read = instance
                .get_elements(batch.ty, &batch.references, values.len())
                .map_err(|e| at(time, e))?;
            for (i, value) in values.iter_mut().enumerate() {
                *value = read.f64_at(i).unwrap_or(f64::NAN);
            }
        }
        if let Some((observed, value)) = self
            .observed
            .iter()
            .zip(values.iter())
            .find(|(o, v)| o.ty.is_float() && !v.is_finite())
        {
            return Err(Error::Simulation {
                time,
                message: format!(
                    "instance {}: {} returned the non-finite value {} = {value}",
                    self.name,
                    float_getter(self.fmi_version, observed.ty),
                    observed.name,
                ),
            });
        }
        let event = Event::Observed {
            time,
            values: values.as_slice(),
        };
        record(&mut self.recorder, instance, time, event)
    }

    /// Reports `event` at `time`, with `instance`, to the recorder, if there is one.
    fn record(
        &mut self,
        instance: &mut dyn FmuInstance,
        time: f64,
        event: Event<'_>,
    ) -> Result<()> {
        record(&mut self.recorder, instance, time, event)
    }
}

/// Reports `event` at `time`, with `instance`, to `recorder`, if there is one (a function of
/// the recorder alone, so that the event may borrow the other ports' buffers).
fn record(
    recorder: &mut Option<Box<dyn Recorder>>,
    instance: &mut dyn FmuInstance,
    time: f64,
    event: Event<'_>,
) -> Result<()> {
    match recorder {
        Some(recorder) => recorder.record(instance, event).map_err(|e| at(time, e)),
        None => Ok(()),
    }
}

/// The connections feeding component `index` of `system`, in the order its inputs are written:
/// those into scalars, then those into elements of arrays (each in system order), so that the
/// scalars are written in batches of consecutive values.
pub fn connections_into(system: &System, index: usize) -> impl Iterator<Item = &Connection> {
    let into = move |element: bool| {
        system
            .connections
            .iter()
            .filter(move |c| c.to.component == index && c.to.element.is_some() == element)
    };
    into(false).chain(into(true))
}

/// The array inputs of `component` that `connected` (its connections, in the order of
/// [`connections_into`]) feed elements of, each with its connected elements.
fn array_inputs(component: &Component, connected: &[&Connection]) -> Result<Vec<ArrayInput>> {
    let md = component.fmu.model_description();
    let shapes = component.shapes();
    let mut arrays: Vec<ArrayInput> = Vec::new();
    for (input, connection) in connected.iter().enumerate() {
        let Some(element) = connection.to.element else {
            continue;
        };
        let variable = &md.variables[connection.to.variable];
        let position = arrays
            .iter()
            .position(|a| a.reference == variable.value_reference);
        let array = match position {
            Some(position) => &mut arrays[position],
            None => {
                let count = shapes
                    .count(variable)
                    .map_err(|message| Error::InvalidValue {
                        item: format!("component {}", component.name),
                        message,
                    })?;
                arrays.push(ArrayInput {
                    ty: variable.ty,
                    reference: variable.value_reference,
                    values: Vec::with_capacity(count),
                    count,
                    elements: Vec::new(),
                });
                arrays.last_mut().expect("just pushed")
            }
        };
        array.elements.push((input, element));
    }
    Ok(arrays)
}

/// `error` as a failure of the simulation at `time` (the message keeps the instance and call).
fn at(time: f64, error: impl Into<Error>) -> Error {
    match error.into() {
        error @ (Error::Simulation { .. } | Error::Discarded { .. }) => error,
        Error::Fmi(
            error @ fmi_host::Error::Call {
                status: CallStatus::Discard,
                ..
            },
        ) => Error::Discarded {
            time,
            message: error.to_string(),
        },
        other => Error::Simulation {
            time,
            message: other.to_string(),
        },
    }
}

/// The FMI function that reads float variables of type `ty`, for messages.
fn float_getter(version: FmiVersion, ty: VariableType) -> String {
    match version {
        FmiVersion::V2 => "fmi2GetReal".into(),
        FmiVersion::V3 => format!("fmi3Get{}", ty.fmi3_name()),
    }
}

/// Groups consecutive `(type, value reference, element)` values of one type. The elements of
/// an array (in row-major order, all of them, as [`super::observed_ports`] lists them) share
/// its one reference.
fn batches(items: impl Iterator<Item = (VariableType, u32, Option<usize>)>) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (i, (ty, reference, element)) in items.enumerate() {
        match batches.last_mut() {
            Some(batch) if batch.ty == ty => {
                if element.is_none_or(|element| element == 0) {
                    batch.references.push(reference);
                }
                batch.range.end = i + 1;
            }
            _ => batches.push(Batch {
                ty,
                references: vec![reference],
                range: i..i + 1,
            }),
        }
    }
    batches
}
