//! Putting a component back at a point of its recorded run, as the reverse and forward
//! sweeps both do before calling its step derivatives: its FMU state restored, the inputs it
//! had there written.

use super::tape::{InputRecord, Tape};
use crate::error::{Error, Result};
use crate::gradient::StepDerivatives;
use crate::instance::FmuState;
use crate::schedule::CoSimulation;

/// Restores component `i` (named `name`) to `state` and writes the recorded `inputs`.
pub fn restore(
    cosimulation: &mut CoSimulation,
    i: usize,
    name: &str,
    state: &FmuState,
    inputs: &InputRecord,
) -> Result<()> {
    cosimulation
        .instance_mut(i)?
        .set_fmu_state(state)
        .map_err(|e| failed(name, inputs.time, e))?;
    cosimulation
        .write_inputs(i, inputs.time, &inputs.values)
        .map_err(|e| failed(name, inputs.time, e))
}

/// Restores component `i` to its state at the start time `start` with the inputs it had when
/// it produced initialization sample `tag` (the last ones written, for the values after
/// initialization); returns them, or `None` if they were the inputs' start values.
pub fn restore_initialization<'t>(
    cosimulation: &mut CoSimulation,
    i: usize,
    name: &str,
    tape: &'t Tape,
    tag: usize,
    start: f64,
) -> Result<Option<&'t InputRecord>> {
    let state = tape.point_states[0]
        .as_ref()
        .expect("the start state is kept");
    let inputs = if tag == tape.start_tag {
        tape.initialization.iter().rev().flatten().next()
    } else {
        tape.initialization[tag].as_ref()
    };
    cosimulation
        .instance_mut(i)?
        .set_fmu_state(state)
        .map_err(|e| failed(name, start, e))?;
    match inputs {
        Some(record) => cosimulation
            .write_inputs(i, start, &record.values)
            .map_err(|e| failed(name, start, e))?,
        None => {
            let derivatives = tape.derivatives.as_ref().expect("kept with states");
            cosimulation
                .instance_mut(i)?
                .set_real(&derivatives.layout.inputs, &derivatives.start_inputs)
                .map_err(|e| failed(name, start, e))?;
        }
    }
    Ok(inputs)
}

/// The step derivatives of component `i`, at `time` (for messages).
pub fn derivatives<'c>(
    cosimulation: &'c mut CoSimulation,
    i: usize,
    name: &str,
    time: f64,
) -> Result<&'c mut dyn StepDerivatives> {
    cosimulation
        .instance_mut(i)?
        .step_derivatives()
        .ok_or_else(|| Error::Simulation {
            time,
            message: format!("instance {name} no longer provides its step derivatives"),
        })
}

/// A failure of a sweep in component `name` at `time`.
pub fn failed(name: &str, time: f64, error: Error) -> Error {
    Error::Simulation {
        time,
        message: format!("gradient sweep, component {name}: {error}"),
    }
}
