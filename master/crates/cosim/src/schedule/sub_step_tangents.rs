//! The tangents of a sub-stepped Co-Simulation participant's macro step, from the adjoint
//! extension (`org.tandem.adjoint`, `docs/adjoint-extension.md`): an implicit coupling's exact
//! Jacobian where the master steps a Tandem FMU several times per macro step.
//!
//! Each sub-step holds the inputs at the line's value at its start, which moves with the
//! iterate at the macro step's end, so the state at the end depends on the iterate: the
//! tangent of the state is carried through the sub-steps by the step JVPs
//! (`tandemStepJvp`, `dw_{j+1} = Phi_w dw_j + Phi_u du_j`), and the outputs read at the end,
//! with the inputs set to the iterate, by the output map's rows (`tandemOutputVjp` seeded with
//! one output: `dy = g_w dw_N + g_u du_N`). The directional derivatives of FMI give neither:
//! they differentiate the outputs by the inputs at the current state, not the state by the
//! inputs of earlier steps.
//!
//! Every column (a tangent of the iterate) is carried at once, so the participant retakes its
//! sub-steps once per Jacobian: per sub-step one step JVP per column, at the end one output
//! VJP per observed output.

use nalgebra::DMatrix;

use crate::error::Result;
use crate::system::{Port, System};
use fmi_host::instance::{DerivativeLayout, Seed, StepDerivatives};
use fmi_host::model_description::{Causality, Variability, VariableType};

/// Where a participant's connected inputs and observed variables sit in its FMU's derivative
/// seeds, and the tangents being carried through a macro step.
pub struct SubStepTangents {
    /// Per connected input, its index among the layout's inputs (`None`: a discrete input).
    input_seeds: Vec<Option<usize>>,
    /// Per observed slot, its index among the layout's outputs (`None`: no tangent).
    output_seeds: Vec<Option<usize>>,
    /// The length of the discrete state, once asked.
    state_size: Option<usize>,
    /// Per column, the tangent of the discrete state.
    d_state: Vec<Vec<f64>>,
    /// The seeds and results of one product (kept for their capacity).
    d_inputs: Vec<f64>,
    d_parameters: Vec<f64>,
    d_state_next: Vec<f64>,
    d_outputs_next: Vec<f64>,
    bar_outputs: Vec<f64>,
    bar_state: Vec<f64>,
    bar_inputs: Vec<f64>,
    bar_parameters: Vec<f64>,
}

impl SubStepTangents {
    /// The tangents of component `index` of `system`, observed at `observed`, whose FMU's
    /// derivative seeds are `layout`; `None` where a connected continuous input, or an
    /// observed float that feeds a connection, is not among them (its tangent would be lost).
    pub fn new(
        system: &System,
        index: usize,
        layout: &DerivativeLayout,
        observed: &[Port],
    ) -> Option<Self> {
        let components = &system.components;
        let position = |seeds: &[Seed], port: Port| {
            let seed = port.seed(components);
            seeds.iter().position(|&s| s == seed)
        };
        let mut input_seeds = Vec::new();
        for connection in super::participant::connections_into(system, index) {
            let variable = connection.to.variable(&system.components);
            if !(variable.ty.is_float() && variable.variability == Variability::Continuous) {
                input_seeds.push(None);
                continue;
            }
            input_seeds.push(Some(position(&layout.inputs, connection.to)?));
        }
        let mut output_seeds = Vec::new();
        for &port in observed {
            let variable = port.variable(&system.components);
            let output =
                variable.causality == Causality::Output && variable.ty == VariableType::Float64;
            let seed = output.then(|| position(&layout.outputs, port)).flatten();
            let feeds = system.connections.iter().any(|c| c.from == port);
            if seed.is_none() && feeds && variable.ty.is_float() {
                return None;
            }
            output_seeds.push(seed);
        }
        Some(SubStepTangents {
            input_seeds,
            output_seeds,
            state_size: None,
            d_state: Vec::new(),
            d_inputs: vec![0.0; layout.inputs.len()],
            d_parameters: vec![0.0; layout.parameters.len()],
            d_state_next: Vec::new(),
            d_outputs_next: vec![0.0; layout.outputs.len()],
            bar_outputs: vec![0.0; layout.outputs.len()],
            bar_state: Vec::new(),
            bar_inputs: vec![0.0; layout.inputs.len()],
            bar_parameters: vec![0.0; layout.parameters.len()],
        })
    }

    /// Starts carrying `columns` tangents from the macro step's start, where the state has
    /// none (it does not depend on the iterate).
    pub fn start(&mut self, derivatives: &mut dyn StepDerivatives, columns: usize) -> Result<()> {
        let size = match self.state_size {
            Some(size) => size,
            None => {
                let size = derivatives.state_size()?;
                self.d_state_next = vec![0.0; size];
                self.bar_state = vec![0.0; size];
                *self.state_size.insert(size)
            }
        };
        self.d_state.resize_with(columns, Vec::new);
        for column in &mut self.d_state {
            column.clear();
            column.resize(size, 0.0);
        }
        Ok(())
    }

    /// Carries the tangents through a sub-step of length `step` from the FMU's current point;
    /// `input(k, column)` is the tangent of connected input `k` it holds.
    pub fn step(
        &mut self,
        derivatives: &mut dyn StepDerivatives,
        step: f64,
        input: &dyn Fn(usize, usize) -> f64,
    ) -> Result<()> {
        for column in 0..self.d_state.len() {
            self.scatter_inputs(input, column);
            let idle = self.d_inputs.iter().all(|&d| d == 0.0)
                && self.d_state[column].iter().all(|&d| d == 0.0);
            // The first sub-step holds the values at the macro step's start: nothing moves.
            if idle {
                continue;
            }
            derivatives.step_jvp(
                step,
                &self.d_state[column],
                &self.d_inputs,
                &self.d_parameters,
                &mut self.d_state_next,
                &mut self.d_outputs_next,
            )?;
            std::mem::swap(&mut self.d_state[column], &mut self.d_state_next);
        }
        Ok(())
    }

    /// Into `out` (observed slots by columns), the tangents of the observed variables at the
    /// FMU's current point, the macro step's end, whose inputs have the tangents `input` gives.
    pub fn finish(
        &mut self,
        derivatives: &mut dyn StepDerivatives,
        input: &dyn Fn(usize, usize) -> f64,
        out: &mut DMatrix<f64>,
    ) -> Result<()> {
        out.fill(0.0);
        for (slot, seed) in self.output_seeds.iter().enumerate() {
            let Some(seed) = *seed else { continue };
            // One row of the output map: its derivatives by the state and by the inputs.
            self.bar_outputs.fill(0.0);
            self.bar_outputs[seed] = 1.0;
            derivatives.output_vjp(
                &self.bar_outputs,
                &mut self.bar_state,
                &mut self.bar_inputs,
                &mut self.bar_parameters,
            )?;
            for column in 0..self.d_state.len() {
                let by_state = dot(&self.bar_state, &self.d_state[column]);
                let by_inputs: f64 = (self.input_seeds.iter().enumerate())
                    .filter_map(|(k, seed)| seed.map(|s| self.bar_inputs[s] * input(k, column)))
                    .sum();
                out[(slot, column)] = by_state + by_inputs;
            }
        }
        Ok(())
    }

    /// Writes the inputs' tangents of `column` into their places among the seeds.
    fn scatter_inputs(&mut self, input: &dyn Fn(usize, usize) -> f64, column: usize) {
        self.d_inputs.fill(0.0);
        for (k, seed) in self.input_seeds.iter().enumerate() {
            if let Some(seed) = *seed {
                self.d_inputs[seed] += input(k, column);
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}
