//! FMU state of every model crate in Co-Simulation, through the FMI 2.0 and FMI 3.0 C ABI: get
//! the state, step, set it back and step again, or serialize it and deserialize it into a
//! fresh instance and step there: every real variable must come out bit for bit the same.

mod common;

use common::checked::Checked;
use common::model::{count, start, vrs, Model};
use common::{randoms, Fmi2, Fmi3, Interface};
use tandem::model_description::VariableType;
use tandem_tests::fmus::FmiVersion;

/// Communication steps before the state is taken (so that it is not the initial state).
const WARM_UP_STEPS: usize = 3;

/// Communication steps replayed from the state; with the default communication steps this
/// covers the bouncing ball's first two impacts (at 0.45 s and 1.08 s), so that events inside
/// doStep are replayed too.
const REPLAYED_STEPS: usize = 120;

/// A run of the model: the inputs of each step and what is read after it.
struct Run<'a> {
    model: &'a Model,
    h: f64,
    inputs: Vec<u32>,
    reals: Vec<u32>,
    /// The number of values of `reals` (an array has one per element).
    real_values: usize,
    integers: Vec<u32>,
}

/// What is read after one step: the bits of every real variable and every integer.
#[derive(PartialEq)]
struct Sample {
    reals: Vec<u64>,
    integers: Vec<i32>,
}

impl Run<'_> {
    fn new(model: &Model) -> Run<'_> {
        let h = model
            .description
            .default_experiment
            .as_ref()
            .and_then(|e| e.step_size)
            .unwrap_or_else(|| panic!("{} declares no communication step", model.package));
        Run {
            model,
            h,
            inputs: vrs(&model.inputs()),
            reals: vrs(&model.of_type(VariableType::Float64)),
            real_values: count(&model.of_type(VariableType::Float64)),
            integers: vrs(&model.of_type(VariableType::Int32)),
        }
    }

    /// Deterministic input values for step `k`: each input's start moved by up to 20 % of its
    /// magnitude (or nominal), so that the inputs drive the model while staying in the range
    /// where every model is defined (the crane cylinder's chambers must keep a positive length).
    fn inputs_at(&self, k: usize) -> Vec<f64> {
        let inputs = self.model.inputs();
        inputs
            .iter()
            .zip(randoms(100 + k as u64, inputs.len()))
            .map(|(v, r)| start(v) + 0.2 * r * start(v).abs().max(v.nominal.unwrap_or(1.0)))
            .collect()
    }

    /// Steps `steps` times from step index `first`, setting the inputs before each doStep;
    /// returns what is read after each step.
    fn steps<'m, I: Checked<'m>>(&self, inst: &I, first: usize, steps: usize) -> Vec<Sample> {
        (first..first + steps)
            .map(|k| {
                inst.set_values(&self.inputs, &self.inputs_at(k));
                inst.step(k as f64 * self.h, self.h);
                Sample {
                    reals: inst
                        .values_of(&self.reals, self.real_values)
                        .iter()
                        .map(|v| v.to_bits())
                        .collect(),
                    integers: inst.integers(&self.integers),
                }
            })
            .collect()
    }
}

fn state_replays_bit_identically<'m, I: Checked<'m>>(model: &'m Model) {
    let run = Run::new(model);
    let inst = I::create(model, Interface::CoSimulation);
    inst.initialize_ok();
    run.steps(&inst, 0, WARM_UP_STEPS);
    let state = inst.snapshot();
    let first = run.steps(&inst, WARM_UP_STEPS, REPLAYED_STEPS);
    // Events show in integer outputs (counters, modes); a model whose discrete variables are
    // all real (the steel law's memory) is still checked for a bit-identical replay below.
    if model.description.number_of_event_indicators() > 0 && !run.integers.is_empty() {
        assert!(
            first.first().map(|s| &s.integers) != first.last().map(|s| &s.integers),
            "{}: the replayed steps crossed no event (the integer outputs never changed)",
            model.package
        );
    }

    inst.restore(state);
    let second = run.steps(&inst, WARM_UP_STEPS, REPLAYED_STEPS);
    assert!(
        first == second,
        "{} {}: set back and stepped again, the values differ",
        model.package,
        model.version.folder()
    );

    let bytes = inst.serialize_state(state);
    let fresh = I::create(model, Interface::CoSimulation);
    let copy = fresh.deserialize_state(&bytes);
    fresh.restore(copy);
    let third = run.steps(&fresh, WARM_UP_STEPS, REPLAYED_STEPS);
    assert!(
        first == third,
        "{} {}: deserialized into a fresh instance and stepped, the values differ",
        model.package,
        model.version.folder()
    );
    eprintln!(
        "{} {}: {} real values and {} integer variables bit-identical over {REPLAYED_STEPS} steps of {} s (state {} bytes)",
        model.package,
        model.version.folder(),
        run.real_values,
        run.integers.len(),
        run.h,
        bytes.len()
    );
}

#[test]
fn fmi2_fmu_state_of_every_model_replays_co_simulation_bit_identically() {
    for model in Model::all(FmiVersion::Fmi2) {
        state_replays_bit_identically::<Fmi2>(&model);
    }
}

#[test]
fn fmi3_fmu_state_of_every_model_replays_co_simulation_bit_identically() {
    for model in Model::all(FmiVersion::Fmi3) {
        state_replays_bit_identically::<Fmi3>(&model);
    }
}
