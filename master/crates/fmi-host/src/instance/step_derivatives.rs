//! The derivatives of one component's co-simulation step, as the adjoint extension
//! (`org.tandem.adjoint`, `docs/adjoint-extension.md`) defines them: the forward and reverse
//! modes of the step map `(w_{k+1}, y_{k+1}) = Phi(w_k, u_k, p)`, the reverse modes of the
//! output map `y = g(w, u, p)` and of the initialization map `(w_0, y_0) = Psi(u_0, p)`, at
//! the instance's current point.
//!
//! An FMU instance hands these out through [`super::PartialDerivatives::step_derivatives`] when its
//! FMU provides the extension; in-process stand-ins implement the same trait. The gradient
//! computation consumes them; they live here because the instances provide them.

use crate::error::Result;

/// What one entry of a seed refers to: a Float64 scalar, or one element of an FMI 3.0 array
/// (whose elements each have an entry of their own, as the sizes of FMI 3.0 seeds count them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed {
    /// The variable's value reference.
    pub value_reference: u32,
    /// The row-major position of the element in its array; `None` for a scalar.
    pub element: Option<usize>,
}

impl Seed {
    /// The entry of a scalar variable.
    pub fn scalar(value_reference: u32) -> Self {
        Seed {
            value_reference,
            element: None,
        }
    }

    /// The entries of a variable with `count` values (`None`: a scalar) in seed order.
    pub fn of_variable(value_reference: u32, count: Option<usize>) -> impl Iterator<Item = Seed> {
        (0..count.unwrap_or(1)).map(move |element| Seed {
            value_reference,
            element: count.map(|_| element),
        })
    }
}

/// The variables of `seeds` in seed order, each with its number of entries (the elements of
/// an array are consecutive): the value references and sizes FMI calls take.
pub fn seed_variables(seeds: &[Seed]) -> impl Iterator<Item = (u32, usize)> + '_ {
    seeds
        .chunk_by(|a, b| a.value_reference == b.value_reference)
        .map(|run| (run[0].value_reference, run.len()))
}

/// The value references of the variables of `seeds`, in seed order, one per variable.
pub fn seed_references(seeds: &[Seed]) -> Vec<u32> {
    seed_variables(seeds)
        .map(|(reference, _)| reference)
        .collect()
}

/// Which variables the input, parameter and output seeds refer to, in seed order (the
/// extension's manifest), by value reference and, for arrays, element.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DerivativeLayout {
    /// The continuous Float64 inputs.
    pub inputs: Vec<Seed>,
    /// The Float64 parameters.
    pub parameters: Vec<Seed>,
    /// The continuous Float64 outputs.
    pub outputs: Vec<Seed>,
    /// Float64 parameters the derivatives do not cover, with the reason.
    pub excluded: Vec<(u32, String)>,
}

/// Derivatives of a component's step, output and initialization maps. Every
/// function evaluates at the instance's current point (restored FMU state, inputs set) and
/// leaves that point unchanged; results are written, not accumulated.
pub trait StepDerivatives {
    /// The seed order of inputs, parameters and outputs (read once per run).
    fn layout(&self) -> DerivativeLayout;

    /// Length of the discrete state `w`.
    fn state_size(&mut self) -> Result<usize>;

    /// Forward mode of the step of length `step` from the current point: tangents of
    /// `(w_k, u_k, p)` in, tangents of `(w_{k+1}, y_{k+1})` out.
    fn step_jvp(
        &mut self,
        step: f64,
        d_state: &[f64],
        d_inputs: &[f64],
        d_parameters: &[f64],
        d_state_next: &mut [f64],
        d_outputs_next: &mut [f64],
    ) -> Result<()>;

    /// Reverse mode of the step of length `step` from the current point: adjoints of
    /// `(w_{k+1}, y_{k+1})` in, adjoints of `(w_k, u_k, p)` out.
    fn step_vjp(
        &mut self,
        step: f64,
        bar_state_next: &[f64],
        bar_outputs_next: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()>;

    /// Reverse mode of the output map at the current point: adjoints of `y` in, adjoints of
    /// `(w, u, p)` out.
    fn output_vjp(
        &mut self,
        bar_outputs: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()>;

    /// Asks the component to linearize the steps it takes from now on and keep the latest
    /// `steps` of them, so that the step VJPs and JVPs at those points need not integrate the
    /// steps again (0: none). Returns whether it does; by default it does not. The derivatives
    /// are the same either way.
    fn keep_step_linearizations(&mut self, _steps: usize) -> Result<bool> {
        Ok(false)
    }

    /// Reverse mode of the initialization map at the start time, evaluated at the inputs
    /// currently set: adjoints of `(w_0, y_0)` in, adjoints of `(u_0, p)` out.
    fn initialization_vjp(
        &mut self,
        bar_state: &[f64],
        bar_outputs: &[f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()>;
}
