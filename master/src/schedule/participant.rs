//! A component taking part in a co-simulation: its FMU instance, the inputs it takes from
//! other participants, the variables the master reads from it at communication points, and
//! its sub-steps within a macro step. Every FMU call goes through here and is counted.

use std::collections::HashMap;
use std::ops::Range;

use super::history::{Histories, Source};
use super::Extrapolation;
use crate::error::{Error, Result};
use crate::instance::{FmuInstance, LogSettings};
use crate::model_description::{FmiVersion, InterfaceType, Values, Variability, VariableType};
use crate::system::{Port, System};

/// A connected input.
struct Input {
    source: Source,
    /// Index of the input variable in the model description.
    variable: usize,
    /// Continuous floats follow the extrapolation polynomial; other inputs hold the latest value.
    continuous: bool,
    /// Added to the value sent (the energy correction of the effort a power bond carries).
    offset: f64,
}

/// A variable read at every communication point.
struct Observed {
    name: String,
    ty: VariableType,
}

/// Consecutive variables of one type, read or written with one call.
struct Batch {
    ty: VariableType,
    references: Vec<u32>,
    range: Range<usize>,
}

/// How a participant's macro step ended.
pub enum Advance {
    /// The participant reached the end of the macro step; its observed values there.
    Reached(Vec<f64>),
    /// The FMU asked to end the simulation at this time.
    Terminated(f64),
}

/// One component's instance and ports.
pub struct Participant {
    name: String,
    instance: Box<dyn FmuInstance>,
    fmi_version: FmiVersion,
    sub_steps: usize,
    /// The degree of the component's own input extrapolation, replacing the schedule's.
    degree: Option<usize>,
    inputs: Vec<Input>,
    input_batches: Vec<Batch>,
    observed: Vec<Observed>,
    observed_batches: Vec<Batch>,
    /// Slot of each observed variable, by variable index.
    slots: HashMap<usize, usize>,
    calls: usize,
}

impl Participant {
    /// Instantiates component `index` of `system` (Co-Simulation) and sets its parameter and
    /// start values. It observes the outputs it feeds to connections and the recorded variables;
    /// `slots_of` gives the observed slots of every component, for the input sources.
    pub fn instantiate(
        system: &System,
        index: usize,
        observed_ports: &[Port],
        slots_of: &dyn Fn(Port) -> Source,
        log: &LogSettings,
    ) -> Result<Self> {
        let component = &system.components[index];
        let md = component.fmu.model_description();
        let instance =
            component
                .fmu
                .instantiate(InterfaceType::CoSimulation, &component.name, log.clone())?;
        let connected: Vec<_> = system
            .connections
            .iter()
            .filter(|c| c.to.component == index)
            .collect();
        let inputs = connected
            .iter()
            .map(|c| {
                let variable = c.to.variable(&system.components);
                Input {
                    source: slots_of(c.from),
                    variable: c.to.variable,
                    continuous: variable.ty.is_float()
                        && variable.variability == Variability::Continuous,
                    offset: 0.0,
                }
            })
            .collect();
        let input_batches = batches(
            connected
                .iter()
                .map(|c| c.to.variable(&system.components))
                .map(|v| (v.ty, v.value_reference)),
        );
        let observed_variables: Vec<_> = observed_ports
            .iter()
            .map(|p| &md.variables[p.variable])
            .collect();
        let mut participant = Participant {
            name: component.name.clone(),
            instance,
            fmi_version: md.fmi_version,
            sub_steps: component.sub_steps,
            degree: component.extrapolation.map(Extrapolation::degree),
            inputs,
            input_batches,
            observed: observed_variables
                .iter()
                .map(|v| Observed {
                    name: v.name.clone(),
                    ty: v.ty,
                })
                .collect(),
            observed_batches: batches(observed_variables.iter().map(|v| (v.ty, v.value_reference))),
            slots: observed_ports
                .iter()
                .enumerate()
                .map(|(slot, p)| (p.variable, slot))
                .collect(),
            calls: 0,
        };
        for start in &component.start_values {
            participant.calls += 1;
            participant
                .instance
                .set_values(start.ty, &[start.value_reference], &start.value)?;
        }
        Ok(participant)
    }

    /// The component name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// FMI calls made so far.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Number of observed variables.
    pub fn observed_count(&self) -> usize {
        self.observed.len()
    }

    /// The observed slot of variable index `variable`.
    pub fn slot(&self, variable: usize) -> Option<usize> {
        self.slots.get(&variable).copied()
    }

    /// Enters initialization mode for the experiment from `start` to `stop`.
    pub fn enter_initialization_mode(&mut self, start: f64, stop: f64) -> Result<()> {
        self.calls += 1;
        self.instance
            .enter_initialization_mode(None, start, Some(stop))
            .map_err(|e| at(start, e))
    }

    /// Leaves initialization mode.
    pub fn exit_initialization_mode(&mut self, start: f64) -> Result<()> {
        self.calls += 1;
        self.instance
            .exit_initialization_mode()
            .map_err(|e| at(start, e))
    }

    /// Ends the run.
    pub fn terminate(&mut self) -> Result<()> {
        self.calls += 1;
        self.instance.terminate()
    }

    /// Writes the connected inputs: each source's hold of `degree` at `time`.
    pub fn set_inputs(&mut self, histories: &Histories, time: f64, degree: usize) -> Result<()> {
        let values: Vec<f64> = self
            .inputs
            .iter()
            .map(|input| {
                let degree = if input.continuous { degree } else { 0 };
                histories.value_at(input.source, time, degree) + input.offset
            })
            .collect();
        for batch in &self.input_batches {
            self.calls += 1;
            let batch_values = Values::from_numbers(batch.ty, &values[batch.range.clone()]);
            self.instance
                .set_values(batch.ty, &batch.references, &batch_values)
                .map_err(|e| at(time, e))?;
        }
        Ok(())
    }

    /// Adds `offset` to every value sent to the connected input variable `variable` from now
    /// on; false when that variable is no connected continuous float input.
    pub fn set_input_offset(&mut self, variable: usize, offset: f64) -> bool {
        match self
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
        self.set_inputs(histories, time, 0)?;
        let mut values = vec![f64::NAN; variables.len()];
        for batch in batches(variables.iter().copied()) {
            self.calls += 1;
            let read = self
                .instance
                .get_values(batch.ty, &batch.references)
                .map_err(|e| at(time, e))?;
            for (i, slot) in batch.range.enumerate() {
                values[slot] = read.f64_at(i).unwrap_or(f64::NAN);
            }
        }
        Ok(values)
    }

    /// Reads the observed variables at `time`; a non-finite float is an error.
    pub fn observe(&mut self, time: f64) -> Result<Vec<f64>> {
        let mut values = vec![0.0; self.observed.len()];
        for batch in &self.observed_batches {
            self.calls += 1;
            let read = self
                .instance
                .get_values(batch.ty, &batch.references)
                .map_err(|e| at(time, e))?;
            for (i, slot) in batch.range.clone().enumerate() {
                values[slot] = read.f64_at(i).unwrap_or(f64::NAN);
            }
        }
        if let Some((observed, value)) = self
            .observed
            .iter()
            .zip(&values)
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
        Ok(values)
    }

    /// Advances from `from` to `to` in the participant's sub-steps, each with its inputs set
    /// to the holds at the sub-step's start; at `to` sets the inputs to their holds there (so
    /// that outputs with direct feedthrough see them) and reads the observed variables. The
    /// holds are of degree `degree` unless the component has its own extrapolation.
    pub fn advance(
        &mut self,
        histories: &Histories,
        from: f64,
        to: f64,
        degree: usize,
    ) -> Result<Advance> {
        let degree = self.degree.unwrap_or(degree);
        let n = self.sub_steps;
        let point = |j: usize| {
            if j == n {
                to
            } else {
                from + (to - from) * j as f64 / n as f64
            }
        };
        for j in 0..n {
            let (t, next) = (point(j), point(j + 1));
            self.set_inputs(histories, t, degree)?;
            self.calls += 1;
            let outcome = self.instance.do_step(t, next - t).map_err(|e| at(t, e))?;
            if outcome.terminate {
                return Ok(Advance::Terminated(outcome.last_time));
            }
            if outcome.partial {
                return Err(Error::Simulation {
                    time: outcome.last_time,
                    message: format!(
                        "instance {}: the step from t = {t} ended early without asking to \
                         terminate; a co-simulation cannot continue from there",
                        self.name
                    ),
                });
            }
        }
        self.set_inputs(histories, to, degree)?;
        self.observe(to).map(Advance::Reached)
    }
}

/// `error` as a failure of the simulation at `time` (the message keeps the instance and call).
fn at(time: f64, error: Error) -> Error {
    match error {
        Error::Simulation { .. } => error,
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

/// Groups consecutive `(type, value reference)` pairs of one type.
fn batches(items: impl Iterator<Item = (VariableType, u32)>) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (i, (ty, reference)) in items.enumerate() {
        match batches.last_mut() {
            Some(batch) if batch.ty == ty => {
                batch.references.push(reference);
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
