//! The adjoint extension's second-order product on an FMI 3.0 instance of either interface:
//! `tandemGetJacobianAdjointDerivative` (docs/adjoint-extension.md), called only for an FMU
//! whose manifest declares the capability `jacobianAdjointDerivative` (older FMUs export no
//! such function, and their hosts fall back on differences of Jacobians).

use super::Fmu3Instance;
use crate::error::{Error, Result};
use crate::import::JACOBIAN_ADJOINT_DERIVATIVE;

impl Fmu3Instance {
    /// Whether the FMU provides tandemGetJacobianAdjointDerivative: its manifest declares the
    /// capability and its binary exports the function.
    pub fn provides_jacobian_adjoint_derivative(&self) -> bool {
        self.adjoint_manifest()
            .is_some_and(|manifest| manifest.has(JACOBIAN_ADJOINT_DERIVATIVE))
            && self.binding.adjoint.jacobian_adjoint_derivative.is_some()
    }

    /// tandemGetJacobianAdjointDerivative at the instance's current point: for a seed `S` on
    /// the Jacobian `J = ∂unknowns/∂knowns` (row-major, `seed[i · knowns.len() + j]` weighs
    /// `J_ij`), `sensitivity_k = Σ_ij S_ij ∂²unknown_i/∂known_j∂known_k`. An error naming the
    /// function for an FMU that does not provide it.
    pub fn get_jacobian_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        const FUNCTION: &str = "tandemGetJacobianAdjointDerivative";
        if !self.provides_jacobian_adjoint_derivative() {
            return Err(self.core.unsupported(FUNCTION));
        }
        let entries = unknowns.len().checked_mul(knowns.len());
        if entries != Some(seed.len()) || sensitivity.len() != knowns.len() {
            return Err(Error::InvalidValue {
                item: format!("instance {}: {FUNCTION}", self.core.name),
                message: format!(
                    "a seed of {} entries and {} sensitivities for {} unknowns and {} knowns \
                     (expected one seed entry per unknown and known, one sensitivity per known)",
                    seed.len(),
                    sensitivity.len(),
                    unknowns.len(),
                    knowns.len()
                ),
            });
        }
        self.derivative(
            FUNCTION,
            self.binding.adjoint.jacobian_adjoint_derivative,
            unknowns,
            knowns,
            seed,
            sensitivity,
        )
    }
}
