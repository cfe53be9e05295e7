//! [`PartialDerivatives`]: derivatives of the FMU's equations at its current point.

use super::{unsupported, Common};
use crate::error::Result;
use crate::instance::StepDerivatives;

/// Partial derivatives: the standard's directional (forward) and adjoint (reverse)
/// derivatives, and the adjoint extension's (docs/adjoint-extension.md) second-order product
/// and step derivatives, which an FMU without the extension does not provide (the defaults).
pub trait PartialDerivatives: Common {
    /// Forward derivative: `sensitivity = d unknowns / d knowns * seed`.
    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()>;
    /// Reverse derivative: `sensitivity = seed^T * d unknowns / d knowns` (FMI 3.0 only).
    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()>;

    /// Whether the FMU provides the adjoint extension's second-order product
    /// [`PartialDerivatives::get_jacobian_adjoint_derivative`] (capability
    /// `jacobianAdjointDerivative`).
    fn provides_jacobian_adjoint_derivative(&self) -> bool {
        false
    }

    /// The adjoint extension's tandemGetJacobianAdjointDerivative: for a seed `S` on the
    /// Jacobian `J = d unknowns / d knowns` (row-major, `seed[i * knowns.len() + j]` weighs
    /// `J_ij`), `sensitivity_k = Σ_ij S_ij ∂²unknown_i/∂known_j∂known_k` (FMI 3.0 only).
    fn get_jacobian_adjoint_derivative(
        &mut self,
        _unknowns: &[u32],
        _knowns: &[u32],
        _seed: &[f64],
        _sensitivity: &mut [f64],
    ) -> Result<()> {
        Err(unsupported(
            self.name(),
            "tandemGetJacobianAdjointDerivative",
        ))
    }

    /// The derivatives of the instance's co-simulation step (the adjoint extension), if the
    /// FMU provides them.
    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        None
    }
}
