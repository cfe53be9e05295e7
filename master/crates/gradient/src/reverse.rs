//! The reverse (adjoint) pass over a recorded co-simulation: the discrete adjoint of the
//! whole run, from the last macro step back to initialization, built from each component's
//! step, output and initialization VJPs.
//!
//! Every value a participant communicates is a sample with a tag; every input it was given is
//! a known linear combination of samples (the hold: ZOH, FOH, SOH extrapolation or, under
//! Gauss-Seidel, interpolation), recorded with its weights. The pass keeps an adjoint per
//! sample and per component state, and walks the run backwards in the order the schedule
//! produced the samples: macro steps last to first; within one, components in reverse
//! stepping order (so that under Gauss-Seidel the components that read a value of the same
//! macro step are done before the one that produced it). For a component's macro step from
//! `t_k` to `t_{k+1}`:
//!
//! 1. the adjoints of its values at `t_{k+1}` go through its output map (state restored at
//!    `t_{k+1}`, the end-of-step inputs written), adding to its state adjoint and to the
//!    adjoints of the samples those inputs came from;
//! 2. its steps, last first, each restored with the inputs it used: the step VJP maps the state
//!    adjoint back one step and sends the input adjoints to their samples.
//!
//! A macro step of one step whose end inputs are those it stepped with (Jacobi with zero-order
//! hold) takes both at once: one step VJP seeded on the state and on the outputs at its end.
//!
//! Under implicit coupling the end inputs read the values of the same macro point, which the
//! macro steps converged to together, and so do the sub-steps of a component taking several
//! per macro step (their holds follow the line toward those values): their adjoints are
//! solved for at once ([`interface`]) before step 1, and steps 1 and 2 send nothing more to
//! them.
//!
//! With checkpoints, the macro steps of one segment are re-run from the checkpoint before it
//! when the pass reaches them ([`checkpoints`]). A sample's adjoint starts as the cost's
//! `dJ/dy` when the pass first touches it and is dropped once its output map is reversed, so
//! the pass holds a few samples per component, not the whole run's.
//!
//! Parameter adjoints add up along the way. Initialization is reversed last: the values at the
//! start time and the state after initialization through the initialization map, then each
//! initialization pass, newest first.
//!
//! Coupling stages ([`super::stage`], the energy correction) are reversed at each macro point
//! before the components' macro steps that end there (once the segment holding those steps is
//! re-run): an input's adjoint also goes to the offset a stage added to it over its macro step.

mod interface;

use super::checkpoints::{self, Checkpoints, Stages};
use super::replay;
use super::samples::Samples;
use super::stage::{Communicated, SampleAdjoints};
use super::tape::{initialization_samples, InputRecord, Place, SharedTapes, SubStep, Tape};
use super::wiring::{SeedMap, Wiring};
use tandem_cosim::coupling::ScheduleKind;
use tandem_cosim::schedule::{CoSimulation, ComponentMut};
use tandem_cosim::system::System;
use tandem_cosim::Result;

/// A recorded run and what the reverse pass knows of its components.
pub struct Recording<'a> {
    /// The co-simulation, after its last macro step.
    pub cosimulation: &'a mut CoSimulation,
    /// Its system.
    pub system: &'a System,
    /// The coupling stages that act on it, which also act in re-runs of segments.
    pub stages: &'a mut Stages,
    /// Whether the sweeps differentiate the stages (otherwise their offsets are constants).
    pub differentiate_stages: bool,
    /// One tape per component, each with its derivatives.
    pub tapes: &'a mut [Tape],
    /// The tapes the recorders fill when a segment is re-run.
    pub shared: &'a SharedTapes,
    /// The run's checkpoints.
    pub checkpoints: &'a mut Checkpoints,
    /// The components' wiring.
    pub wiring: &'a [Wiring],
    /// Where each component's inputs and outputs sit in its seeds.
    pub seeds: &'a [SeedMap],
    /// The stepping order.
    pub order: &'a [usize],
    /// The component names, for messages.
    pub names: &'a [String],
    /// The start time.
    pub start: f64,
}

/// `dJ/dy` of one sample: adds, for component `component`'s sample `tag` recorded in `tape`,
/// the cost's derivative by each observed slot.
pub type CostAdjoints<'a> = &'a dyn Fn(&Tape, usize, usize, &mut [f64]);

/// The adjoints the pass carries besides the components' own.
struct Adjoints {
    /// Per component and sample tag, per observed slot.
    samples: Samples<Vec<f64>>,
    /// Per component, of its parameters in seed order.
    parameters: Vec<Vec<f64>>,
    /// Per component and connected input, of an offset added to the input over the macro step
    /// being reversed (see [`super::stage`]).
    offsets: Vec<Vec<f64>>,
}

/// Runs the reverse pass from the cost's adjoints `cost` (dJ/dy for every communicated value)
/// and returns the parameter adjoints of every component, in its seed order.
pub fn sweep(recording: Recording<'_>, cost: CostAdjoints<'_>) -> Result<Vec<Vec<f64>>> {
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
    let mut adjoints = Adjoints {
        samples: Samples::new(tapes.len()),
        parameters: seeds.iter().map(|s| vec![0.0; s.parameter_count]).collect(),
        offsets: wiring.iter().map(|w| vec![0.0; w.inputs.len()]).collect(),
    };
    let mut pass = Pass {
        cosimulation,
        wiring,
        seeds,
        names,
        start,
        cost,
        adjoints: &mut adjoints,
        components: seeds.iter().map(Reversal::new).collect(),
        independent: system.schedule.kind == ScheduleKind::Jacobi,
        implicit: system.schedule.implicit.is_some(),
    };
    for k in (0..checkpoints.steps()).rev() {
        // No component keeps its steps' linearizations from a re-run: measured, linearizing
        // every step of a segment (its outputs included) costs as much as the step VJPs save
        // (docs/benchmarks.md, "Gradients").
        let linearize = |_: usize| false;
        checkpoints.ensure_step(
            pass.cosimulation,
            system,
            stages,
            shared,
            tapes,
            k,
            &linearize,
        )?;
        if differentiate_stages {
            pass.stages_reverse(stages, tapes, k + 1)?;
        }
        pass.macro_step(tapes, order, k)?;
        for &i in order.iter().rev() {
            let done = tapes[i].take_step_states(k);
            checkpoints::free(pass.cosimulation, i, done)?;
        }
    }
    if differentiate_stages {
        pass.stages_reverse(stages, tapes, 0)?;
    }
    pass.initialization(tapes, order)?;
    for (i, tape) in tapes.iter_mut().enumerate() {
        checkpoints::free(pass.cosimulation, i, tape.take_states())?;
    }
    Ok(adjoints.parameters)
}

/// The reverse pass in progress.
struct Pass<'a> {
    cosimulation: &'a mut CoSimulation,
    wiring: &'a [Wiring],
    seeds: &'a [SeedMap],
    names: &'a [String],
    start: f64,
    cost: CostAdjoints<'a>,
    adjoints: &'a mut Adjoints,
    /// Per component, its state's adjoint and the VJPs of the macro step being reversed.
    components: Vec<Reversal>,
    /// Whether the components' VJPs of one macro step do not depend on each other (Jacobi:
    /// every input of a macro step was communicated before it), so that they may run on
    /// several threads.
    independent: bool,
    /// Whether the macro steps couple implicitly: the values at a macro point are then solved
    /// together ([`interface`]) before the components' macro steps ending there are reversed.
    implicit: bool,
}

/// One component in the reverse pass: the adjoint of its discrete state and the reversal of
/// the macro step at hand, which reads only the component's own tape and instance and so may
/// run on another thread than the pass; the pass settles its results (the adjoints it sends to
/// parameters and samples) afterwards, in the order a reversal in turn would.
struct Reversal {
    /// The adjoint of the discrete state.
    state: Vec<f64>,
    /// Zero output adjoints (a step's outputs get theirs from the output map).
    no_outputs: Vec<f64>,
    /// The adjoints of the outputs at the end of the macro step, in seed order.
    output_seeds: Vec<f64>,
    /// The macro step's VJPs in the order they ran, each with the inputs it was taken with.
    results: Vec<(Returned, Taken)>,
    /// Arrays of settled results, for the next VJPs (a sweep makes one or two VJP calls per
    /// component and macro step; allocating their arrays each time showed up).
    spares: Vec<Returned>,
    /// How the macro step's reversal ended.
    outcome: Result<()>,
}

/// Which inputs of a macro step's record a VJP was taken with.
#[derive(Clone, Copy)]
enum Taken {
    /// Those at the macro step's end (the output map there).
    End,
    /// Those of its sub-step with this index.
    SubStep(usize),
}

/// The adjoints one VJP returns.
#[derive(Default)]
struct Returned {
    state: Vec<f64>,
    inputs: Vec<f64>,
    parameters: Vec<f64>,
}

impl Pass<'_> {
    /// Reverses every coupling stage at macro point `point`, with the offsets' adjoints of the
    /// macro step starting there, then clears those for the step before.
    fn stages_reverse(&mut self, stages: &mut Stages, tapes: &[Tape], point: usize) -> Result<()> {
        if !stages.is_empty() {
            let (wiring, cost) = (self.wiring, self.cost);
            let fresh = |participant: usize, tag: usize| {
                fresh(wiring, cost, &tapes[participant], participant, tag)
            };
            let mut view = SampleAdjoints {
                communicated: Communicated { tapes },
                adjoints: &mut self.adjoints.samples,
                fresh: &fresh,
                offsets: &self.adjoints.offsets,
            };
            for stage in stages.iter_mut() {
                stage.reverse(point, &mut view)?;
            }
        }
        for offsets in &mut self.adjoints.offsets {
            offsets.fill(0.0);
        }
        Ok(())
    }

    /// Reverses every component's macro step `k` (from point `k` to `k + 1`), last in the
    /// stepping `order` first: when they are independent, each component's VJPs at once (on
    /// the schedule's threads when it has several), then their results in that order.
    fn macro_step(&mut self, tapes: &mut [Tape], order: &[usize], k: usize) -> Result<()> {
        if self.implicit {
            self.interface(tapes, k)?;
        }
        if !self.independent {
            for &i in order.iter().rev() {
                if !self.implicit {
                    self.take_output_seeds(i, &tapes[i], tapes[i].step(k).tag);
                }
                let mut component = self.cosimulation.component(i);
                let (map, name) = (&self.seeds[i], &self.names[i]);
                let reversal = &mut self.components[i];
                reversal.outcome = reversal.reverse(&mut component, &tapes[i], k, map, name);
                self.settle(i, tapes, k)?;
            }
            return Ok(());
        }
        if !self.implicit {
            for &i in order.iter().rev() {
                self.take_output_seeds(i, &tapes[i], tapes[i].step(k).tag);
            }
        }
        let (seeds, names) = (self.seeds, self.names);
        // Each reversal reads its own component's tape only.
        let items = self.components.iter_mut().zip(tapes.iter_mut());
        self.cosimulation
            .for_each_component(items, |i, mut component, (reversal, tape)| {
                reversal.outcome = reversal.reverse(&mut component, tape, k, &seeds[i], &names[i]);
            });
        order
            .iter()
            .rev()
            .try_for_each(|&i| self.settle(i, tapes, k))
    }

    /// Settles component `i`'s reversal of macro step `k`: its first failure, or its VJPs'
    /// parameter and input adjoints, in the order they ran.
    fn settle(&mut self, i: usize, tapes: &[Tape], k: usize) -> Result<()> {
        std::mem::replace(&mut self.components[i].outcome, Ok(()))?;
        let step = tapes[i].step(k);
        // Under implicit coupling the samples of the step's end are solved already: the share
        // of the end inputs and of the sub-steps' holds along the line is in their adjoints.
        let solved = self.implicit.then_some(k);
        let mut results = std::mem::take(&mut self.components[i].results);
        for (returned, taken) in results.drain(..) {
            let inputs = match taken {
                Taken::End => &step.end,
                Taken::SubStep(j) => &step.sub_steps[j].inputs,
            };
            self.finish(i, tapes, &returned, inputs, solved);
            self.components[i].spares.push(returned);
        }
        self.components[i].results = results;
        Ok(())
    }

    /// Reverses initialization: the start values and state through the initialization map,
    /// then the initialization samples, newest first across all components.
    fn initialization(&mut self, tapes: &[Tape], order: &[usize]) -> Result<()> {
        for &i in order.iter().rev() {
            let tape = &tapes[i];
            let state_seeds = std::mem::take(&mut self.components[i].state);
            self.take_output_seeds(i, tape, tape.start_tag);
            let output_seeds = std::mem::take(&mut self.components[i].output_seeds);
            if nonzero(&state_seeds) || nonzero(&output_seeds) {
                self.initialization_map(i, tapes, tape.start_tag, &state_seeds, &output_seeds)?;
            }
        }
        for (i, tag) in initialization_samples(tapes).into_iter().rev() {
            self.take_output_seeds(i, &tapes[i], tag);
            let output_seeds = std::mem::take(&mut self.components[i].output_seeds);
            if nonzero(&output_seeds) {
                let no_state = vec![0.0; self.seeds[i].state_size];
                self.initialization_map(i, tapes, tag, &no_state, &output_seeds)?;
            }
        }
        Ok(())
    }

    /// The initialization map of component `i` at the inputs it had when it produced sample
    /// `tag` (the last ones written for the start values).
    fn initialization_map(
        &mut self,
        i: usize,
        tapes: &[Tape],
        tag: usize,
        state_seeds: &[f64],
        output_seeds: &[f64],
    ) -> Result<()> {
        let (time, tape, name) = (self.start, &tapes[i], &self.names[i]);
        let mut component = self.cosimulation.component(i);
        let inputs = replay::restore_initialization(&mut component, name, tape, tag, time)?;
        let mut returned = self.components[i].returned(&self.seeds[i]);
        replay::derivatives(&mut component, name, time)?
            .initialization_vjp(
                state_seeds,
                output_seeds,
                &mut returned.inputs,
                &mut returned.parameters,
            )
            .map_err(|e| replay::failed(name, time, e))?;
        match inputs {
            Some(record) => self.finish(i, tapes, &returned, record, None),
            // The start values of inputs are constants: only the parameters get adjoints.
            None => add(&mut self.adjoints.parameters[i], &returned.parameters),
        }
        Ok(())
    }

    /// Makes component `i`'s output seeds those of its sample `tag` (recorded in `tape`), in
    /// seed order; the pass is done with the sample's adjoints then.
    fn take_output_seeds(&mut self, i: usize, tape: &Tape, tag: usize) {
        let adjoints = self
            .adjoints
            .samples
            .remove(i, tag)
            .unwrap_or_else(|| fresh(self.wiring, self.cost, tape, i, tag));
        self.seed_outputs(i, &adjoints);
    }

    /// Makes component `i`'s output seeds `adjoints` (by observed slot), in seed order.
    fn seed_outputs(&mut self, i: usize, adjoints: &[f64]) {
        let map = &self.seeds[i];
        let seeds = &mut self.components[i].output_seeds;
        seeds.clear();
        seeds.resize(map.output_count, 0.0);
        for (slot, &adjoint) in adjoints.iter().enumerate() {
            if let Some(index) = map.outputs[slot] {
                seeds[index] += adjoint;
            }
        }
    }

    /// Adds a VJP's parameter adjoints and sends its input adjoints to the samples `inputs`
    /// were computed from, except the samples at the end of macro step `solved`, if given
    /// (those of an implicit coupling, whose adjoints are solved for).
    fn finish(
        &mut self,
        i: usize,
        tapes: &[Tape],
        returned: &Returned,
        inputs: &InputRecord,
        solved: Option<usize>,
    ) {
        add(&mut self.adjoints.parameters[i], &returned.parameters);
        let (wiring, cost) = (self.wiring, self.cost);
        for (input, (wire, hold)) in self.wiring[i].inputs.iter().zip(&inputs.holds).enumerate() {
            let Some(index) = self.seeds[i].inputs[input] else {
                continue;
            };
            let adjoint = returned.inputs[index];
            if adjoint == 0.0 || !wire.differentiable {
                continue;
            }
            self.adjoints.offsets[i][input] += adjoint;
            let source = wire.participant;
            let skipped = solved.map(|k| tapes[source].step(k).tag);
            for &(tag, weight) in hold.terms() {
                if Some(tag) == skipped {
                    continue;
                }
                let fresh = || fresh(wiring, cost, &tapes[source], source, tag);
                self.adjoints.samples.entry(source, tag, fresh)[wire.slot] += weight * adjoint;
            }
        }
    }
}

impl Reversal {
    /// Nothing reversed yet for a component seeded as `map` says.
    fn new(map: &SeedMap) -> Self {
        Reversal {
            state: vec![0.0; map.state_size],
            no_outputs: vec![0.0; map.output_count],
            output_seeds: Vec::new(),
            results: Vec::new(),
            spares: Vec::new(),
            outcome: Ok(()),
        }
    }

    /// Runs the VJPs of macro step `k` of `component` (named `name`, seeded as `map` says,
    /// recorded in `tape`) from the output seeds taken for it, last first, and keeps their
    /// results for the pass to settle.
    fn reverse(
        &mut self,
        component: &mut ComponentMut<'_>,
        tape: &Tape,
        k: usize,
        map: &SeedMap,
        name: &str,
    ) -> Result<()> {
        let step = tape.step(k);
        if let [only] = step.sub_steps.as_slice() {
            // Folded only where the step VJP is due anyway: where the state's adjoint is zero,
            // an output VJP alone may be all the macro step needs.
            let due = nonzero(&self.state);
            if due && only.inputs.values == step.end.values && only.inputs.holds == step.end.holds {
                // One step whose end inputs are the ones it stepped with (Jacobi with
                // zero-order hold): the outputs read at its end are the step map's own
                // `y_{k+1}`, so one step VJP seeded with the output seeds and the state's
                // adjoint does what the output VJP at `t_{k+1}` and the step VJP do in turn
                // (the same derivative; the input and parameter adjoints are summed in the FMU
                // before they are added here, a different rounding order).
                replay::restore(component, name, tape, Place::point(k), &only.inputs)?;
                return self.step_vjp(component, map, name, only, 0, true);
            }
        }
        if nonzero(&self.output_seeds) {
            replay::restore(component, name, tape, Place::point(k + 1), &step.end)?;
            let time = step.end.time;
            let mut returned = self.returned(map);
            replay::derivatives(component, name, time)?
                .output_vjp(
                    &self.output_seeds,
                    &mut returned.state,
                    &mut returned.inputs,
                    &mut returned.parameters,
                )
                .map_err(|e| replay::failed(name, time, e))?;
            add(&mut self.state, &returned.state);
            self.results.push((returned, Taken::End));
        }
        for (j, sub_step) in step.sub_steps.iter().enumerate().rev() {
            if !nonzero(&self.state) {
                // Every adjoint of this step would be zero (the VJP is linear in its seeds).
                continue;
            }
            let place = Place {
                step: k,
                sub_step: j,
            };
            replay::restore(component, name, tape, place, &sub_step.inputs)?;
            self.step_vjp(component, map, name, sub_step, j, false)?;
        }
        Ok(())
    }

    /// The VJP of sub-step `j`, `sub_step`, seeded with the state's adjoint and, if
    /// `with_outputs`, the output seeds: the state's adjoint becomes the one at its start.
    fn step_vjp(
        &mut self,
        component: &mut ComponentMut<'_>,
        map: &SeedMap,
        name: &str,
        sub_step: &SubStep,
        j: usize,
        with_outputs: bool,
    ) -> Result<()> {
        let time = sub_step.inputs.time;
        let mut returned = self.returned(map);
        let output_seeds = if with_outputs {
            &self.output_seeds
        } else {
            &self.no_outputs
        };
        replay::derivatives(component, name, time)?
            .step_vjp(
                sub_step.step,
                &self.state,
                output_seeds,
                &mut returned.state,
                &mut returned.inputs,
                &mut returned.parameters,
            )
            .map_err(|e| replay::failed(name, time, e))?;
        std::mem::swap(&mut self.state, &mut returned.state);
        self.results.push((returned, Taken::SubStep(j)));
        Ok(())
    }

    /// Zeroed result arrays for one VJP of a component seeded as `map` says.
    fn returned(&mut self, map: &SeedMap) -> Returned {
        let mut returned = self.spares.pop().unwrap_or_default();
        for (values, len) in [
            (&mut returned.state, map.state_size),
            (&mut returned.inputs, map.input_count),
            (&mut returned.parameters, map.parameter_count),
        ] {
            values.clear();
            values.resize(len, 0.0);
        }
        returned
    }
}

/// The adjoints of component `i`'s sample `tag` (recorded in `tape`) before the pass adds to
/// them: the cost's `dJ/dy`.
fn fresh(wiring: &[Wiring], cost: CostAdjoints<'_>, tape: &Tape, i: usize, tag: usize) -> Vec<f64> {
    let mut adjoints = vec![0.0; wiring[i].observed.len()];
    cost(tape, i, tag, &mut adjoints);
    adjoints
}

/// Whether any entry is non-zero (a VJP with zero seeds returns zeros and is skipped).
fn nonzero(values: &[f64]) -> bool {
    values.iter().any(|&v| v != 0.0)
}

/// `total += part`, element-wise.
fn add(total: &mut [f64], part: &[f64]) {
    for (t, p) in total.iter_mut().zip(part) {
        *t += p;
    }
}
