//! The adjoint extension's second-order product (`tandemGetJacobianAdjointDerivative`,
//! docs/adjoint-extension.md): for a seed `S` on the Jacobian `J = d unknowns / d knowns`, the
//! gradient of `⟨S, J⟩` with respect to the knowns, exact by forward over reverse.

use super::outcome::{Outcome, Problem};
use super::partials::{check_len, finite};
use super::Instance;
use crate::reverse::jacobian_adjoint_into;
use crate::system::System;
use crate::variables::ValueReference;

impl<S: System> Instance<S> {
    /// `sensitivity_k = Σ_ij seed[i nKnowns + j] ∂²unknown_i / ∂known_j ∂known_k` at the
    /// current point (`seed` row-major, `nUnknowns × nKnowns`). Costs one forward-over-reverse
    /// evaluation per column of the seed with a non-zero entry and one sweep back.
    pub fn jacobian_adjoint_derivative(
        &mut self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Outcome {
        let entries = unknowns.len().checked_mul(knowns.len()).ok_or_else(|| {
            Problem::error(format!(
                "{} unknowns times {} knowns",
                unknowns.len(),
                knowns.len()
            ))
        })?;
        check_len("seed", seed.len(), "unknowns times knowns", entries)?;
        check_len("sensitivity", sensitivity.len(), "knowns", knowns.len())?;
        let (unknowns, knowns) = (
            self.resolve_unknowns(unknowns)?,
            self.resolve_knowns(knowns)?,
        );
        let base = self.known_values(&knowns);
        jacobian_adjoint_into(&base, seed, sensitivity, |k, out| {
            self.unknowns_at(&knowns, k, &unknowns, out)
        });
        finite("Jacobian adjoint derivative", sensitivity)
    }
}
