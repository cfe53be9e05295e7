//! Putting a component back at a point of its recorded run, as the reverse and forward
//! sweeps both do before calling its step derivatives: its FMU state restored (unless the
//! instance is in it already: a sweep visits each macro point twice in a row, for one step's
//! end and the other's start), the inputs it had there written.

use super::tape::{InputRecord, Place, Tape};
use fmi_host::instance::{seed_references, StepDerivatives};
use tandem_cosim::schedule::ComponentMut;
use tandem_cosim::{Error, Result};

/// Puts `component` (named `name`) at `place` of its recorded run `tape` and writes the
/// recorded `inputs`.
pub fn restore(
    component: &mut ComponentMut<'_>,
    name: &str,
    tape: &Tape,
    place: Place,
    inputs: &InputRecord,
) -> Result<()> {
    if tape.at() != Some(place) {
        set_state(component, name, tape, place, inputs.time)?;
    }
    component
        .write_inputs(inputs.time, &inputs.values)
        .map_err(|e| failed(name, inputs.time, e))
}

/// Restores `component`'s FMU state at `place` (at `time`, for messages).
fn set_state(
    component: &mut ComponentMut<'_>,
    name: &str,
    tape: &Tape,
    place: Place,
    time: f64,
) -> Result<()> {
    let state = tape.state(place).ok_or_else(|| Error::Simulation {
        time,
        message: format!(
            "gradient sweep, component {name}: no state kept before sub-step {} of macro step {}",
            place.sub_step, place.step
        ),
    })?;
    tape.set_at(None);
    component
        .instance_mut()
        .set_fmu_state(state)
        .map_err(|e| failed(name, time, e))?;
    tape.set_at(Some(place));
    Ok(())
}

/// Restores `component` to its state at the start time `start` with the inputs it had when
/// it produced initialization sample `tag` (the last ones written, for the values after
/// initialization); returns them, or `None` if they were the inputs' start values.
pub fn restore_initialization<'t>(
    component: &mut ComponentMut<'_>,
    name: &str,
    tape: &'t Tape,
    tag: usize,
    start: f64,
) -> Result<Option<&'t InputRecord>> {
    let inputs = if tag == tape.start_tag {
        let last_sample = || tape.initialization.iter().rev().flatten().next();
        tape.final_inputs.as_ref().or_else(last_sample)
    } else {
        tape.initialization[tag].as_ref()
    };
    set_state(component, name, tape, Place::point(0), start)?;
    match inputs {
        Some(record) => component
            .write_inputs(start, &record.values)
            .map_err(|e| failed(name, start, e))?,
        None => {
            let derivatives = tape.derivatives.as_ref().expect("kept with states");
            component
                .instance_mut()
                .set_real(
                    &seed_references(&derivatives.layout.inputs),
                    &derivatives.start_inputs,
                )
                .map_err(|e| failed(name, start, e))?;
        }
    }
    Ok(inputs)
}

/// The step derivatives of `component`, at `time` (for messages).
pub fn derivatives<'c>(
    component: &'c mut ComponentMut<'_>,
    name: &str,
    time: f64,
) -> Result<&'c mut dyn StepDerivatives> {
    component
        .instance_mut()
        .step_derivatives()
        .ok_or_else(|| Error::Simulation {
            time,
            message: format!("instance {name} no longer provides its step derivatives"),
        })
}

/// A failure of a sweep in component `name` at `time`.
pub fn failed(name: &str, time: f64, error: impl Into<Error>) -> Error {
    let error = error.into();
    Error::Simulation {
        time,
        message: format!("gradient sweep, component {name}: {error}"),
    }
}
