//! FMU states for the reverse pass: a macro step needs its component's state before each of
//! its steps and at its end. The forward run keeps them all, or only checkpoints (the start
//! and every n-th macro point); the steps in between are then recomputed, one segment of n
//! macro steps at a time, by replaying exactly the calls of the forward run (same inputs,
//! same steps) from the checkpoint, so the states are the same as if all had been kept.
//! Memory: about N / n + n states per component (N macro steps), least for n near sqrt(N).

use super::tape::Tape;
use crate::error::{Error, Result};
use crate::instance::FmuState;
use crate::schedule::CoSimulation;

/// Makes sure `tape` holds the states macro step `k` of component `index` needs, recomputing
/// its checkpoint segment if it does not.
pub fn ensure_step_states(
    cosimulation: &mut CoSimulation,
    index: usize,
    tape: &mut Tape,
    k: usize,
) -> Result<()> {
    let steps = tape.steps.len();
    tape.sub_step_states.resize_with(steps, Vec::new);
    if tape.point_states.len() <= steps {
        tape.point_states.resize_with(steps + 1, || None);
    }
    let complete = |tape: &Tape| {
        let kept = &tape.sub_step_states[k];
        kept.len() == tape.steps[k].sub_steps.len()
            && kept.iter().all(Option::is_some)
            && tape.point_states[k + 1].is_some()
    };
    if complete(tape) {
        return Ok(());
    }
    let interval = tape.checkpoint_interval();
    let first = k / interval * interval;
    let end = (first + interval).min(steps);
    let time = tape.steps[first]
        .sub_steps
        .first()
        .map_or(tape.steps[first].end.time, |s| s.inputs.time);
    let checkpoint = tape.point_states[first]
        .as_ref()
        .ok_or_else(|| Error::Simulation {
            time,
            message: format!("reverse pass: no checkpoint kept at macro point {first}"),
        })?;
    cosimulation.instance_mut(index)?.set_fmu_state(checkpoint)?;
    for m in first..end {
        let sub_steps = tape.steps[m].sub_steps.len();
        tape.sub_step_states[m].resize_with(sub_steps, || None);
        for j in 0..sub_steps {
            let (inputs, step) = {
                let sub_step = &tape.steps[m].sub_steps[j];
                (sub_step.inputs.clone(), sub_step.step)
            };
            cosimulation.write_inputs(index, inputs.time, &inputs.values)?;
            let instance = cosimulation.instance_mut(index)?;
            if tape.sub_step_states[m][j].is_none() {
                tape.sub_step_states[m][j] = Some(instance.get_fmu_state()?);
            }
            let outcome = instance.do_step(inputs.time, step)?;
            if outcome.terminate || outcome.partial {
                return Err(Error::Simulation {
                    time: outcome.last_time,
                    message: format!(
                        "reverse pass: instance {} did not repeat its step from t = {} \
                         (it ended the step early)",
                        instance.name(),
                        inputs.time
                    ),
                });
            }
        }
        let end_inputs = &tape.steps[m].end;
        cosimulation.write_inputs(index, end_inputs.time, &end_inputs.values)?;
        if tape.point_states[m + 1].is_none() {
            tape.point_states[m + 1] = Some(cosimulation.instance_mut(index)?.get_fmu_state()?);
        }
    }
    Ok(())
}

/// Frees the states of macro step `k` (before its steps and at its end): the pass is done
/// with them.
pub fn free_step_states(
    cosimulation: &mut CoSimulation,
    index: usize,
    tape: &mut Tape,
    k: usize,
) -> Result<()> {
    let mut states: Vec<FmuState> = tape.sub_step_states[k]
        .iter_mut()
        .filter_map(Option::take)
        .collect();
    states.extend(tape.point_states[k + 1].take());
    free(cosimulation, index, states)
}

/// Frees the states macro step `k` started from (before its steps, and at its start point): a
/// forward sweep is done with them. The state at its end stays, as the next step's checkpoint.
pub fn free_states_before(
    cosimulation: &mut CoSimulation,
    index: usize,
    tape: &mut Tape,
    k: usize,
) -> Result<()> {
    let mut states: Vec<FmuState> = tape.sub_step_states[k]
        .iter_mut()
        .filter_map(Option::take)
        .collect();
    states.extend(tape.point_states[k].take());
    free(cosimulation, index, states)
}

/// Frees `states` of component `index`.
pub fn free(cosimulation: &mut CoSimulation, index: usize, states: Vec<FmuState>) -> Result<()> {
    let instance = cosimulation.instance_mut(index)?;
    states
        .into_iter()
        .try_for_each(|state| instance.free_fmu_state(state))
}
