//! The partial derivatives of a Model Exchange FMU's equations at its current point, from its
//! directional (and, where it has them, adjoint) derivatives: of the state derivatives and of
//! the outputs, with respect to the knowns `(x, u, p)`: continuous states, inputs and
//! parameters, in that order.

use crate::error::Result;
use fmi_host::instance::FmuInstance;

/// Which equations a product is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equation {
    /// The state derivatives `f(x, u, p)`.
    Derivatives,
    /// The outputs `g(x, u, p)`.
    Outputs,
}

/// The value references of the unknowns and knowns, and how transposed products are formed.
#[derive(Debug)]
pub struct Partials {
    derivatives: Vec<u32>,
    outputs: Vec<u32>,
    /// States, inputs, parameters.
    knowns: Vec<u32>,
    /// The number of values of each known (an FMI 3.0 array has one per element).
    known_sizes: Vec<usize>,
    /// Whether the FMU computes `J^T v` itself (fmi3GetAdjointDerivative); otherwise the
    /// transposed product is assembled from one directional derivative per known.
    adjoint: bool,
    /// The column and the unit seed of an assembled transposed product (kept for their
    /// capacity: a reverse pass forms one at every stage).
    column: Vec<f64>,
    unit: Vec<f64>,
}

impl Partials {
    /// Products of `derivatives` and `outputs` with respect to `knowns` (value references,
    /// each with its number of values); `adjoint`: the FMU provides adjoint derivatives.
    pub fn new(
        derivatives: Vec<u32>,
        outputs: Vec<u32>,
        knowns: Vec<(u32, usize)>,
        adjoint: bool,
    ) -> Self {
        let (knowns, known_sizes): (Vec<u32>, Vec<usize>) = knowns.into_iter().unzip();
        let largest = known_sizes.iter().copied().max().unwrap_or(0);
        Partials {
            derivatives,
            outputs,
            knowns,
            known_sizes,
            adjoint,
            column: Vec::new(),
            unit: vec![0.0; largest],
        }
    }

    /// Number of known values (the length of a seed of [`Self::jvp`]).
    pub fn known_count(&self) -> usize {
        self.known_sizes.iter().sum()
    }

    /// The unknowns of `equation` among `derivatives` and `outputs` (an associated function,
    /// so that the buffers stay free to borrow beside them).
    fn unknowns<'a>(equation: Equation, derivatives: &'a [u32], outputs: &'a [u32]) -> &'a [u32] {
        match equation {
            Equation::Derivatives => derivatives,
            Equation::Outputs => outputs,
        }
    }

    /// `out = J seed`, `J = d equation / d (x, u, p)`.
    pub fn jvp(
        &self,
        instance: &mut dyn FmuInstance,
        equation: Equation,
        seed: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        let unknowns = Self::unknowns(equation, &self.derivatives, &self.outputs);
        if unknowns.is_empty() {
            return Ok(());
        }
        Ok(instance.get_directional_derivative(unknowns, &self.knowns, seed, out)?)
    }

    /// `out = J^T seed`, `J = d equation / d (x, u, p)`.
    pub fn vjp(
        &mut self,
        instance: &mut dyn FmuInstance,
        equation: Equation,
        seed: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        let unknowns = Self::unknowns(equation, &self.derivatives, &self.outputs);
        if unknowns.is_empty() || seed.iter().all(|&s| s == 0.0) {
            out.fill(0.0);
            return Ok(());
        }
        if self.adjoint {
            return Ok(instance.get_adjoint_derivative(unknowns, &self.knowns, seed, out)?);
        }
        // One directional derivative per known value: an element of an array is seeded
        // through its whole array, as FMI 3.0 sizes a seed by the knowns' values.
        self.column.resize(seed.len(), 0.0);
        let mut entries = out.iter_mut();
        for (j, &size) in self.known_sizes.iter().enumerate() {
            for element in 0..size {
                self.unit[element] = 1.0;
                instance.get_directional_derivative(
                    unknowns,
                    &self.knowns[j..=j],
                    &self.unit[..size],
                    &mut self.column,
                )?;
                self.unit[element] = 0.0;
                if let Some(o) = entries.next() {
                    *o = self.column.iter().zip(seed).map(|(c, s)| c * s).sum();
                }
            }
        }
        Ok(())
    }
}
