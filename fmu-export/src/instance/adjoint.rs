//! The adjoint extension `org.tandem.adjoint` (docs/adjoint-extension.md) on an instance:
//! the derivatives of one co-simulation step, of the initialization and of the outputs at
//! the current point, with seeds in the manifest's order.
//!
//! The manifest lists the inputs, real parameters and continuous outputs in declaration order
//! (entry `i` of a seed array is input `u[i]`, parameter `p[i]`, output `y[i]`); the discrete
//! state is the integrator's [`DiscreteAdjoint::adjoint_state`]. Inputs are held over a step:
//! their seeds are the polynomial's zeroth-order coefficients, the higher ones (FMI 2.0 input
//! derivatives) held fixed. A step VJP takes its step on the instance's own integrator and puts
//! the integrator's state back bit for bit; everything else is computed on copies, so the
//! instance is unchanged.

use std::borrow::Cow;

use crate::adjoint::{
    AdjointError, Cotangents, DiscreteAdjoint, EndOutputs, LinearizedOutputs, LinearizedStep,
    StepScratch, VjpBuffers,
};
use crate::instance::lifecycle::{Kind, Mode};
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::{time_tolerance, Instance};
use crate::system::{Integrator, StepInputs, System};

/// Tangents or adjoints of a step's arguments `(w_k, u_k, p)`, in manifest order.
#[derive(Debug)]
pub struct StepArguments<T> {
    /// Of the discrete state (nState entries).
    pub state: T,
    /// Of the inputs (nInputs entries).
    pub inputs: T,
    /// Of the parameters (nParams entries).
    pub params: T,
}

/// Tangents or adjoints of a step's results `(w_k+1, y_k+1)`, in manifest order.
#[derive(Debug)]
pub struct StepResults<T> {
    /// Of the discrete state (nState entries).
    pub state: T,
    /// Of the outputs (nOutputs entries).
    pub outputs: T,
}

/// What an instance's step and output VJPs reuse from one call to the next (linearizations,
/// working space, results), so that they allocate nothing once each has run.
#[derive(Default)]
pub struct AdjointScratch {
    step: StepScratch,
    outputs: Option<LinearizedOutputs>,
    buffers: VjpBuffers,
    cotangents: Cotangents,
}

/// The lengths of the extension's arrays for this model.
struct Sizes {
    state: usize,
    inputs: usize,
    params: usize,
    outputs: usize,
}

impl<S: System> Instance<S> {
    /// tandemGetStateSize: the number of entries of the discrete state `w` (the manifest's
    /// nState).
    pub fn adjoint_state_size(&self) -> Outcome<usize> {
        Ok(self.discrete_adjoint()?.adjoint_state().len())
    }

    /// tandemGetState: writes the discrete state `w`.
    pub fn adjoint_state(&self, state: &mut [f64]) -> Outcome {
        let w = self.discrete_adjoint()?.adjoint_state();
        expect_len("nState", state.len(), w.len())?;
        state.copy_from_slice(w);
        Ok(())
    }

    /// tandemStepJvp: the tangents of `(w_k+1, y_k+1)` of a step of size `h` from the current
    /// point, for tangents of `(w_k, u_k, p)`.
    /// The step's linearization is kept for the next JVPs from the same point.
    pub fn step_jvp(
        &mut self,
        h: f64,
        tangents: StepArguments<&[f64]>,
        out: StepResults<&mut [f64]>,
    ) -> Outcome {
        let adjoint = self.discrete_adjoint()?;
        let sizes = self.sizes(adjoint);
        sizes.check_arguments(&tangents)?;
        sizes.check_results(&out)?;
        let inputs = self.step_inputs();
        let step = self.linearize_step(adjoint, h, &inputs, EndOutputs::Linearized)?;
        let du = padded_inputs(tangents.inputs, &inputs);
        let (dw, dy) = step.jvp(tangents.state, &du, tangents.params);
        if let Cow::Owned(step) = step {
            self.keep_jvp_step(h, &inputs, step);
        }
        deliver("dStateNext", out.state, &dw)?;
        deliver("dOutputsNext", out.outputs, &dy)
    }

    /// tandemStepVjp: the adjoints of `(w_k, u_k, p)` of a step of size `h` from the current
    /// point, for adjoint seeds on `(w_k+1, y_k+1)`. Linearized into the instance's scratch
    /// (or taken from the kept linearizations), so that it allocates nothing once it has run.
    pub fn step_vjp(
        &mut self,
        h: f64,
        seeds: StepResults<&[f64]>,
        out: StepArguments<&mut [f64]>,
    ) -> Outcome {
        let adjoint = self.discrete_adjoint()?;
        let sizes = self.sizes(adjoint);
        sizes.check_results(&seeds)?;
        sizes.check_arguments(&out)?;
        self.check_step(self.state.t, h)?;
        // A host that seeds only the state (the outputs' adjoints going through the output
        // map instead) spares the linearization of the outputs at the step's end.
        let outputs = if seeds.outputs.iter().any(|&v| v != 0.0) {
            EndOutputs::Linearized
        } else {
            EndOutputs::Skipped
        };
        let inputs = self.take_step_inputs();
        let result = self.step_vjp_with(h, &inputs, outputs, &seeds);
        self.inputs = inputs;
        result?;
        deliver_arguments(&self.adjoint_scratch.cotangents, out)
    }

    /// The step VJP of [`Instance::step_vjp`] with the step's `inputs`, into the scratch's
    /// cotangents.
    fn step_vjp_with(
        &mut self,
        h: f64,
        inputs: &StepInputs<f64>,
        outputs: EndOutputs,
        seeds: &StepResults<&[f64]>,
    ) -> Outcome {
        let Instance {
            sys,
            state: s,
            integrator,
            kept,
            adjoint_scratch: scratch,
            ..
        } = self;
        let (cotangents, buffers) = (&mut scratch.cotangents, &mut scratch.buffers);
        if let Some(step) = kept.find(s.t, h, integrator.state(), inputs, &s.p, &s.d) {
            step.vjp_into(seeds.state, seeds.outputs, cotangents, buffers);
            return Ok(());
        }
        let adjoint = integrator.discrete_adjoint_mut().ok_or_else(|| {
            Problem::error("the model's co-simulation integrator has no discrete adjoint")
        })?;
        let linearized = &mut scratch.step;
        adjoint
            .relinearize_step(sys, s.t, h, inputs, &s.p, &s.d, outputs, linearized)
            .map_err(|e| problem(format!("the step from t = {} over {h}", s.t), e))?;
        let step = linearized.step.as_ref().expect("linearized just now");
        step.vjp_into(seeds.state, seeds.outputs, cotangents, buffers);
        Ok(())
    }

    /// tandemInitializationVjp: at the start time, the adjoints of the inputs and parameters
    /// for adjoint seeds on `(w_0, y_0)`, linearized at the current inputs (those set during
    /// initialization unless the host changed them since).
    pub fn initialization_vjp(
        &self,
        seeds: StepResults<&[f64]>,
        inputs_bar: &mut [f64],
        params_bar: &mut [f64],
    ) -> Outcome {
        let adjoint = self.discrete_adjoint()?;
        let sizes = self.sizes(adjoint);
        sizes.check_results(&seeds)?;
        expect_len("nInputs", inputs_bar.len(), sizes.inputs)?;
        expect_len("nParams", params_bar.len(), sizes.params)?;
        let s = &self.state;
        let start = s.experiment.start;
        if (s.t - start).abs() > time_tolerance(start) {
            return Err(Problem::error(format!(
                "the initialization map is only defined at the start time {start}, but the instance is at t = {}",
                s.t
            )));
        }
        // Exactly the inputs exitInitializationMode starts the integrator with.
        let inputs = StepInputs::held(s.t, &s.u);
        let linearized = adjoint
            .linearize_start(&self.sys, s.t, &inputs, &s.p, &s.d)
            .map_err(|e| problem(format!("the start at t = {}", s.t), e))?;
        let cotangents = linearized.vjp(seeds.state, seeds.outputs);
        deliver("barInputs", inputs_bar, &cotangents.inputs[..sizes.inputs])?;
        deliver("barParams", params_bar, &cotangents.params)
    }

    /// tandemOutputVjp: the adjoints of `(w, u, p)` of the outputs at the current point,
    /// `y = g(w, u, p)`, for the adjoint seed on `y` (linearized into the instance's scratch).
    pub fn output_vjp(&mut self, outputs_bar: &[f64], out: StepArguments<&mut [f64]>) -> Outcome {
        let adjoint = self.discrete_adjoint()?;
        let sizes = self.sizes(adjoint);
        expect_len("nOutputs", outputs_bar.len(), sizes.outputs)?;
        sizes.check_arguments(&out)?;
        let inputs = self.take_step_inputs();
        let Instance {
            sys,
            state: s,
            integrator,
            adjoint_scratch: scratch,
            ..
        } = self;
        let adjoint = integrator.discrete_adjoint().expect("checked above");
        adjoint.relinearize_outputs(sys, s.t, &inputs, &s.p, &s.d, &mut scratch.outputs);
        let outputs = scratch.outputs.as_ref().expect("linearized just now");
        outputs.vjp_into(outputs_bar, &mut scratch.cotangents);
        self.inputs = inputs;
        deliver_arguments(&self.adjoint_scratch.cotangents, out)
    }

    /// The input polynomial of a step from the current point, in the allocation the instance
    /// keeps for it (to be put back into `self.inputs`).
    fn take_step_inputs(&mut self) -> StepInputs<f64> {
        let empty = StepInputs {
            t0: self.state.t,
            coefficients: Vec::new(),
        };
        let mut inputs = std::mem::replace(&mut self.inputs, empty);
        self.fill_step_inputs(&mut inputs);
        inputs
    }

    /// The integrator's discrete adjoint, or an Error outside Co-Simulation step mode or when
    /// the integrator has none.
    fn discrete_adjoint(&self) -> Outcome<&dyn DiscreteAdjoint<S>> {
        self.expect_kind(Kind::CoSimulation)?;
        self.expect_mode(&[Mode::Step])?;
        self.integrator.discrete_adjoint().ok_or_else(|| {
            Problem::error("the model's co-simulation integrator has no discrete adjoint")
        })
    }

    fn sizes(&self, adjoint: &dyn DiscreteAdjoint<S>) -> Sizes {
        let decl = self.declaration();
        Sizes {
            state: adjoint.adjoint_state().len(),
            inputs: decl.inputs.len(),
            params: decl.parameters.len(),
            outputs: decl.outputs.len(),
        }
    }

    /// The step of size `h` from the current point with `inputs`, linearized (its end outputs
    /// as `outputs` says, or kept from doStep with them); an Error where doStep would not take
    /// it.
    fn linearize_step(
        &self,
        adjoint: &dyn DiscreteAdjoint<S>,
        h: f64,
        inputs: &StepInputs<f64>,
        outputs: EndOutputs,
    ) -> Outcome<Cow<'_, LinearizedStep>> {
        let s = &self.state;
        self.check_step(s.t, h)?;
        if let Some(kept) = self.kept_step(h, inputs) {
            return Ok(Cow::Borrowed(kept));
        }
        adjoint
            .linearize_step(&self.sys, s.t, h, inputs, &s.p, &s.d, outputs)
            .map(Cow::Owned)
            .map_err(|e| problem(format!("the step from t = {} over {h}", s.t), e))
    }
}

impl Sizes {
    fn check_arguments<T: AsRef<[f64]>>(&self, a: &StepArguments<T>) -> Outcome {
        expect_len("nState", a.state.as_ref().len(), self.state)?;
        expect_len("nInputs", a.inputs.as_ref().len(), self.inputs)?;
        expect_len("nParams", a.params.as_ref().len(), self.params)
    }

    fn check_results<T: AsRef<[f64]>>(&self, r: &StepResults<T>) -> Outcome {
        expect_len("nState", r.state.as_ref().len(), self.state)?;
        expect_len("nOutputs", r.outputs.as_ref().len(), self.outputs)
    }
}

/// An Error naming the argument unless `given == expected`.
fn expect_len(name: &str, given: usize, expected: usize) -> Outcome {
    if given == expected {
        Ok(())
    } else {
        Err(Problem::error(format!(
            "{name} = {given}, but the model's adjoint manifest declares {expected}"
        )))
    }
}

/// The tangent of the flat input coefficients of `inputs` whose zeroth-order block is `du`
/// (higher orders held).
fn padded_inputs(du: &[f64], inputs: &StepInputs<f64>) -> Vec<f64> {
    let mut flat = vec![0.0; inputs.coefficients.len() * du.len()];
    flat[..du.len()].copy_from_slice(du);
    flat
}

/// Writes the state, zeroth-order input and parameter adjoints into `out`.
fn deliver_arguments(cotangents: &Cotangents, out: StepArguments<&mut [f64]>) -> Outcome {
    let held = out.inputs.len();
    deliver("barState", out.state, &cotangents.state)?;
    deliver("barInputs", out.inputs, &cotangents.inputs[..held])?;
    deliver("barParams", out.params, &cotangents.params)
}

/// Copies `values` into the host's array `name`; non-finite derivatives are an Error.
fn deliver(name: &str, out: &mut [f64], values: &[f64]) -> Outcome {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Problem::error(format!(
            "{name}[{i}] = {} is not finite",
            values[i]
        )));
    }
    out.copy_from_slice(values);
    Ok(())
}

/// The Problem of a linearization of `what` that failed: Discard at a grazing event (no
/// derivative there), Error otherwise.
fn problem(what: String, error: AdjointError) -> Problem {
    let message = format!("{what} cannot be linearized: {error}");
    match error {
        AdjointError::Grazing { .. } => Problem::discard(message),
        _ => Problem::error(message),
    }
}
