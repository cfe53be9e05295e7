//! Forward sensitivities of a recorded co-simulation: the tangents of every communicated value
//! along each parameter, carried from initialization to the last macro step in the order the
//! schedule produced the values (the exact mirror of the reverse pass, [`super::reverse`]).
//!
//! The adjoint extension has a forward mode for the step map only (`tandemStepJvp`); the
//! output and initialization maps are differentiated through their Jacobians, assembled row by
//! row from their VJPs, one per observed output (and, for initialization, per state entry): few,
//! and independent of the number of parameters. The cost is therefore one step JVP per
//! parameter for every step of every component, against one step VJP in all for the adjoint:
//! this sweep exists to compare the two, and as an independent check of the adjoint.
//!
//! Coupling stages ([`super::stage`], the energy correction) give, at each macro point, the
//! tangents of the offsets they add to inputs over the next macro step.
//!
//! Under implicit coupling the values at the end of a macro step are those of a fixed point,
//! whose tangents are solved together ([`interface`]), with those of the states of components
//! whose sub-steps hold the line toward them.

mod interface;

use super::checkpoints::{self, Stages};
use super::replay;
use super::reverse::{CostAdjoints, Recording};
use super::samples::Samples;
use super::stage::{Communicated, SampleTangents, Tangents};
use super::tape::{initialization_samples, InputRecord, Place, Tape};
use super::wiring::{SeedMap, Wiring};
use tandem_cosim::schedule::CoSimulation;
use tandem_cosim::Result;

/// Samples a hold can read at once: the latest three (second-order hold), one more under
/// Gauss-Seidel.
const HELD_SAMPLES: usize = 4;

/// Runs the forward sweep for `directions`, each a component and the index of one of its
/// parameters in seed order (`None`: a parameter the sweep does not reach, all tangents zero),
/// and returns the derivative of the cost along each: the tangent of every communicated value
/// times the cost's `dJ/dy` of it (`cost`).
pub fn sweep(
    recording: Recording<'_>,
    directions: &[Option<(usize, usize)>],
    cost: CostAdjoints<'_>,
) -> Result<Vec<f64>> {
    let Recording {
        cosimulation,
        system,
        stages,
        differentiate_stages,
        tapes,
        shared,
        checkpoints,
        wiring,
        seeds,
        order,
        names,
        start,
    } = recording;
    let count = directions.len();
    let mut sweep = Sweep {
        cosimulation,
        wiring,
        seeds,
        names,
        start,
        directions,
        cost,
        gradient: vec![0.0; count],
        samples: Samples::new(tapes.len()),
        states: seeds
            .iter()
            .map(|s| vec![vec![0.0; s.state_size]; count])
            .collect(),
        offsets: wiring
            .iter()
            .map(|w| vec![vec![0.0; count]; w.inputs.len()])
            .collect(),
    };
    let steps = checkpoints.steps();
    // Each step takes one JVP per direction: one linearization kept from the re-run serves
    // them all (components without a state take none).
    let linearize = |i: usize| seeds[i].state_size > 0;
    if steps > 0 {
        // The start state comes with the first segment.
        checkpoints.ensure_step(
            sweep.cosimulation,
            system,
            stages,
            shared,
            tapes,
            0,
            &linearize,
        )?;
    }
    sweep.initialization(tapes, order)?;
    if differentiate_stages {
        sweep.stages(stages, tapes, 0)?;
    }
    for k in 0..steps {
        checkpoints.ensure_step(
            sweep.cosimulation,
            system,
            stages,
            shared,
            tapes,
            k,
            &linearize,
        )?;
        for (i, tape) in tapes.iter().enumerate() {
            let oldest = tape.point_tag(k).saturating_sub(HELD_SAMPLES);
            sweep.samples.forget_before(i, oldest);
        }
        if system.schedule.implicit.is_some() {
            for &i in order {
                sweep.sub_steps(i, tapes, k, true)?;
            }
            sweep.interface(tapes, k)?;
        } else {
            for &i in order {
                sweep.sub_steps(i, tapes, k, false)?;
                sweep.end(i, &tapes[i], k)?;
            }
        }
        for &i in order {
            let done = tapes[i].take_states_before(k);
            checkpoints::free(sweep.cosimulation, i, done)?;
        }
        if differentiate_stages {
            sweep.stages(stages, tapes, k + 1)?;
        }
    }
    Ok(sweep.gradient)
}

/// The forward sweep in progress.
struct Sweep<'a> {
    cosimulation: &'a mut CoSimulation,
    wiring: &'a [Wiring],
    seeds: &'a [SeedMap],
    names: &'a [String],
    start: f64,
    directions: &'a [Option<(usize, usize)>],
    cost: CostAdjoints<'a>,
    /// The cost's derivative along each direction, so far.
    gradient: Vec<f64>,
    /// Per component and sample tag (the latest few): the tangents of the observed values.
    samples: Samples<Tangents>,
    /// Per component: the tangents of its discrete state.
    states: Vec<Tangents>,
    /// Per component and connected input: the tangents of the offset a coupling stage adds to
    /// it over the current macro step.
    offsets: Vec<Tangents>,
}

/// The Jacobian of a map with respect to its arguments `(w, u, p)`, one row per result entry
/// (a zero row is empty).
#[derive(Default)]
struct Rows {
    state: Vec<Vec<f64>>,
    inputs: Vec<Vec<f64>>,
    parameters: Vec<Vec<f64>>,
}

impl Rows {
    fn push(&mut self, state: Vec<f64>, inputs: Vec<f64>, parameters: Vec<f64>) {
        self.state.push(state);
        self.inputs.push(inputs);
        self.parameters.push(parameters);
    }

    /// Row `row` times the tangents `(d_state, d_inputs, d_parameters)`.
    fn apply(&self, row: usize, d_state: &[f64], d_inputs: &[f64], d_parameters: &[f64]) -> f64 {
        dot(&self.state[row], d_state)
            + dot(&self.inputs[row], d_inputs)
            + dot(&self.parameters[row], d_parameters)
    }
}

impl Sweep<'_> {
    /// Lets every coupling stage set its offsets' tangents at macro point `point`.
    fn stages(&mut self, stages: &mut Stages, tapes: &[Tape], point: usize) -> Result<()> {
        let mut view = SampleTangents {
            communicated: Communicated { tapes },
            tangents: &self.samples,
            offsets: &mut self.offsets,
            directions: self.directions.len(),
        };
        stages
            .iter_mut()
            .try_for_each(|stage| stage.tangents(point, &mut view))
    }

    /// Initialization: its samples in the order they were read, then the start values and
    /// state through the initialization map.
    fn initialization(&mut self, tapes: &[Tape], order: &[usize]) -> Result<()> {
        for (i, tag) in initialization_samples(tapes) {
            self.initialization_map(i, &tapes[i], tag)?;
        }
        for &i in order {
            self.initialization_map(i, &tapes[i], tapes[i].start_tag)?;
        }
        Ok(())
    }

    /// The tangents of component `i`'s initialization sample `tag` (and, at the start tag, of
    /// its state after initialization).
    fn initialization_map(&mut self, i: usize, tape: &Tape, tag: usize) -> Result<()> {
        let (name, map, start) = (&self.names[i], &self.seeds[i], self.start);
        let mut component = self.cosimulation.component(i);
        let inputs = replay::restore_initialization(&mut component, name, tape, tag, start)?;
        let with_state = tag == tape.start_tag;
        // Rows: the outputs', then the state's.
        let seeded = map.output_count + if with_state { map.state_size } else { 0 };
        let mut component = self.cosimulation.component(i);
        let derivatives = replay::derivatives(&mut component, name, start)?;
        let mut rows = Rows::default();
        for row in 0..seeded {
            let mut outputs = vec![0.0; map.output_count];
            let mut state = vec![0.0; map.state_size];
            match row.checked_sub(map.output_count) {
                None if !map.outputs.contains(&Some(row)) => {
                    rows.push(Vec::new(), Vec::new(), Vec::new());
                    continue;
                }
                None => outputs[row] = 1.0,
                Some(entry) => state[entry] = 1.0,
            }
            let mut bar_inputs = vec![0.0; map.input_count];
            let mut bar_parameters = vec![0.0; map.parameter_count];
            derivatives
                .initialization_vjp(&state, &outputs, &mut bar_inputs, &mut bar_parameters)
                .map_err(|e| replay::failed(name, start, e))?;
            rows.push(Vec::new(), bar_inputs, bar_parameters);
        }
        // The start values of inputs are constants: they carry no tangent.
        let d_inputs = match inputs {
            Some(record) => self.input_tangents(i, record),
            None => vec![vec![0.0; map.input_count]; self.directions.len()],
        };
        let mut tangents = Vec::with_capacity(d_inputs.len());
        for (j, d_inputs) in d_inputs.iter().enumerate() {
            let d_parameters = unit(self.directions, i, j, map.parameter_count);
            let apply = |row: usize| rows.apply(row, &[], d_inputs, &d_parameters);
            let outputs: Vec<f64> = (0..map.output_count).map(apply).collect();
            tangents.push(observed(map, &outputs));
            if with_state {
                self.states[i][j] = (map.output_count..seeded).map(apply).collect();
            }
        }
        self.sample(i, tape, tag, tangents);
        Ok(())
    }

    /// Carries component `i`'s state tangents through the (sub-)steps of its macro step `k`
    /// (from point `k` to `k + 1`); `implicit`: without what the steps' holds read of the
    /// samples at point `k + 1`, whose tangents the interface solves for (and adds to the
    /// state's afterwards).
    fn sub_steps(&mut self, i: usize, tapes: &[Tape], k: usize, implicit: bool) -> Result<()> {
        let tape = &tapes[i];
        let step = tape.step(k);
        let (name, map) = (&self.names[i], &self.seeds[i]);
        let mut solved =
            |term: HoldTerm| implicit && term.tag == tapes[term.participant].step(k).tag;
        for (j, sub_step) in step.sub_steps.iter().enumerate() {
            let time = sub_step.inputs.time;
            let place = Place {
                step: k,
                sub_step: j,
            };
            let mut component = self.cosimulation.component(i);
            replay::restore(&mut component, name, tape, place, &sub_step.inputs)?;
            let d_inputs = self.held_input_tangents(i, &sub_step.inputs, &mut solved);
            let mut component = self.cosimulation.component(i);
            let derivatives = replay::derivatives(&mut component, name, time)?;
            let mut outputs = vec![0.0; map.output_count];
            for (direction, d_state) in self.states[i].iter_mut().enumerate() {
                let d_parameters = unit(self.directions, i, direction, map.parameter_count);
                let d_inputs = &d_inputs[direction];
                if [d_state.as_slice(), d_inputs, &d_parameters]
                    .iter()
                    .all(|d| d.iter().all(|&x| x == 0.0))
                {
                    // The JVP is linear in its tangents: zero in, zero out.
                    continue;
                }
                let mut next = vec![0.0; map.state_size];
                derivatives
                    .step_jvp(
                        sub_step.step,
                        d_state,
                        d_inputs,
                        &d_parameters,
                        &mut next,
                        &mut outputs,
                    )
                    .map_err(|e| replay::failed(name, time, e))?;
                *d_state = next;
            }
        }
        Ok(())
    }

    /// The tangents of component `i`'s values at the end of its macro step `k`, through its
    /// output map at point `k + 1`.
    fn end(&mut self, i: usize, tape: &Tape, k: usize) -> Result<()> {
        let step = tape.step(k);
        let (name, map) = (&self.names[i], &self.seeds[i]);
        let mut component = self.cosimulation.component(i);
        replay::restore(&mut component, name, tape, Place::point(k + 1), &step.end)?;
        let rows = self.output_rows(i, step.end.time)?;
        let d_inputs = self.input_tangents(i, &step.end);
        let tangents = d_inputs
            .iter()
            .enumerate()
            .map(|(j, d_inputs)| observed(map, &self.output_tangents(i, &rows, d_inputs, j)))
            .collect();
        self.sample(i, tape, step.tag, tangents);
        Ok(())
    }

    /// Component `i`'s output tangents (in seed order) along `direction`, through its output
    /// Jacobian `rows`, from its state's tangents and its inputs' `d_inputs`.
    fn output_tangents(
        &self,
        i: usize,
        rows: &Rows,
        d_inputs: &[f64],
        direction: usize,
    ) -> Vec<f64> {
        let map = &self.seeds[i];
        let d_parameters = unit(self.directions, i, direction, map.parameter_count);
        let d_state = &self.states[i][direction];
        (0..map.output_count)
            .map(|row| rows.apply(row, d_state, d_inputs, &d_parameters))
            .collect()
    }

    /// Keeps `tangents` of component `i`'s sample `tag` (recorded in `tape`) for the holds
    /// that read it, and adds what they contribute to the cost's derivative.
    fn sample(&mut self, i: usize, tape: &Tape, tag: usize, tangents: Tangents) {
        let mut adjoints = vec![0.0; self.wiring[i].observed.len()];
        (self.cost)(tape, i, tag, &mut adjoints);
        for (derivative, tangent) in self.gradient.iter_mut().zip(&tangents) {
            *derivative += dot(&adjoints, tangent);
        }
        *self.samples.entry(i, tag, Vec::new) = tangents;
    }

    /// The Jacobian of component `i`'s output map at its current point, by output VJPs (rows
    /// of outputs that are not observed stay empty).
    fn output_rows(&mut self, i: usize, time: f64) -> Result<Rows> {
        let (name, map) = (&self.names[i], &self.seeds[i]);
        let mut component = self.cosimulation.component(i);
        let derivatives = replay::derivatives(&mut component, name, time)?;
        let mut rows = Rows::default();
        for row in 0..map.output_count {
            if !map.outputs.contains(&Some(row)) {
                rows.push(Vec::new(), Vec::new(), Vec::new());
                continue;
            }
            let mut seed = vec![0.0; map.output_count];
            seed[row] = 1.0;
            let mut bar_state = vec![0.0; map.state_size];
            let mut bar_inputs = vec![0.0; map.input_count];
            let mut bar_parameters = vec![0.0; map.parameter_count];
            derivatives
                .output_vjp(&seed, &mut bar_state, &mut bar_inputs, &mut bar_parameters)
                .map_err(|e| replay::failed(name, time, e))?;
            rows.push(bar_state, bar_inputs, bar_parameters);
        }
        Ok(rows)
    }

    /// The tangents, per direction, of component `i`'s inputs in seed order, from those of the
    /// samples `inputs` were computed from.
    fn input_tangents(&self, i: usize, inputs: &InputRecord) -> Tangents {
        self.held_input_tangents(i, inputs, &mut |_| false)
    }

    /// [`Self::input_tangents`] without the hold terms `defer` takes (it returns true for the
    /// samples whose tangents are not known yet, and keeps them).
    fn held_input_tangents(
        &self,
        i: usize,
        inputs: &InputRecord,
        defer: &mut dyn FnMut(HoldTerm) -> bool,
    ) -> Tangents {
        let map = &self.seeds[i];
        let mut tangents = vec![vec![0.0; map.input_count]; self.directions.len()];
        let wires = self.wiring[i].inputs.iter().zip(&inputs.holds);
        for (input, (wire, hold)) in wires.enumerate() {
            let Some(index) = map.inputs[input] else {
                continue;
            };
            if !wire.differentiable {
                continue;
            }
            for (tangent, offset) in tangents.iter_mut().zip(&self.offsets[i][input]) {
                tangent[index] += offset;
            }
            for &(tag, weight) in hold.terms() {
                let term = HoldTerm {
                    seed: index,
                    participant: wire.participant,
                    slot: wire.slot,
                    tag,
                    weight,
                };
                // A zero weight reads nothing: the sample may not be taken yet (the line of
                // an implicit coupling at a step's start).
                if weight == 0.0 || defer(term) {
                    continue;
                }
                let sample = self
                    .samples
                    .get(wire.participant, tag)
                    .expect("a hold reads samples taken before it");
                for (tangent, direction) in tangents.iter_mut().zip(sample) {
                    tangent[index] += weight * direction[wire.slot];
                }
            }
        }
        tangents
    }
}

/// One term of an input's hold: the input (its index in seed order) takes `weight` times the
/// value of a participant's observed `slot` in its sample `tag`.
#[derive(Debug, Clone, Copy)]
struct HoldTerm {
    seed: usize,
    participant: usize,
    slot: usize,
    tag: usize,
    weight: f64,
}

/// Outputs in seed order, by observed slot of `map` (zero where not among the seeds).
fn observed(map: &SeedMap, outputs: &[f64]) -> Vec<f64> {
    map.outputs
        .iter()
        .map(|index| index.map_or(0.0, |index| outputs[index]))
        .collect()
}

/// The parameter tangent of component `i` along direction `j`: a unit vector if the direction
/// is one of its parameters, zero otherwise.
fn unit(directions: &[Option<(usize, usize)>], i: usize, j: usize, count: usize) -> Vec<f64> {
    let mut tangent = vec![0.0; count];
    if let Some((component, index)) = directions[j] {
        if component == i {
            tangent[index] = 1.0;
        }
    }
    tangent
}

/// `a . b` (zero for an empty `a`).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
