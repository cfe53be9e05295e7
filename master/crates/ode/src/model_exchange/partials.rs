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
        let (knowns, known_sizes) = knowns.into_iter().unzip();
        Partials {
            derivatives,
            outputs,
            knowns,
            known_sizes,
            adjoint,
        }
    }

    /// Number of known values (the length of a seed of [`Self::jvp`]).
    pub fn known_count(&self) -> usize {
        self.known_sizes.iter().sum()
    }

    fn unknowns(&self, equation: Equation) -> &[u32] {
        match equation {
            Equation::Derivatives => &self.derivatives,
            Equation::Outputs => &self.outputs,
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
        let unknowns = self.unknowns(equation);
        if unknowns.is_empty() {
            return Ok(());
        }
        Ok(instance.get_directional_derivative(unknowns, &self.knowns, seed, out)?)
    }

    /// `out = J^T seed`, `J = d equation / d (x, u, p)`.
    pub fn vjp(
        &self,
        instance: &mut dyn FmuInstance,
        equation: Equation,
        seed: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        let unknowns = self.unknowns(equation);
        if unknowns.is_empty() || seed.iter().all(|&s| s == 0.0) {
            out.fill(0.0);
            return Ok(());
        }
        if self.adjoint {
            return Ok(instance.get_adjoint_derivative(unknowns, &self.knowns, seed, out)?);
        }
        // One directional derivative per known value: an element of an array is seeded
        // through its whole array, as FMI 3.0 sizes a seed by the knowns' values.
        let mut column = vec![0.0; seed.len()];
        let mut unit = vec![0.0; self.known_sizes.iter().copied().max().unwrap_or(0)];
        let mut entries = out.iter_mut();
        for (j, &size) in self.known_sizes.iter().enumerate() {
            for element in 0..size {
                unit[element] = 1.0;
                instance.get_directional_derivative(
                    unknowns,
                    &self.knowns[j..=j],
                    &unit[..size],
                    &mut column,
                )?;
                unit[element] = 0.0;
                if let Some(o) = entries.next() {
                    *o = column.iter().zip(seed).map(|(c, s)| c * s).sum();
                }
            }
        }
        Ok(())
    }
}
