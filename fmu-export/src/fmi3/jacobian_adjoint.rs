//! `tandemGetJacobianAdjointDerivative`, the adjoint extension's second-order product
//! (capability `jacobianAdjointDerivative`, docs/adjoint-extension.md): the arguments of
//! fmi3GetAdjointDerivative, with a seed on the whole Jacobian instead of on the unknowns.

use crate::ffi::arrays::{self, check_disjoint, Span};
use crate::ffi::{references, with_instance, Access, FmiVersion};
use crate::fmi3::types::*;
use crate::instance::Instance;
use crate::system::System;

/// tandemGetJacobianAdjointDerivative: `sensitivity_k = Σ_ij seed[i nKnowns + j]
/// ∂²unknown_i/∂known_j∂known_k` (`nSeed = nUnknowns nKnowns`, `nSensitivity = nKnowns`, where
/// an array counts as many unknowns or knowns as it has elements).
///
/// # Safety
/// `instance` from an fmi3Instantiate function; each array of its stated length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tandem_get_jacobian_adjoint_derivative<S: System>(
    instance: Fmi3Instance,
    unknowns: *const Fmi3ValueReference,
    n_unknowns: usize,
    knowns: *const Fmi3ValueReference,
    n_knowns: usize,
    seed: *const Fmi3Float64,
    n_seed: usize,
    sensitivity: *mut Fmi3Float64,
    n_sensitivity: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        check_disjoint(
            &[Span::of("sensitivity", sensitivity, n_sensitivity)],
            &[
                Span::of("unknowns", unknowns, n_unknowns),
                Span::of("knowns", knowns, n_knowns),
                Span::of("seed", seed, n_seed),
            ],
        )?;
        // SAFETY: every array has the length the caller passed with it (the extension's
        // contract); the written one shares no memory with the others (checked above).
        let (unknowns, knowns, seed, sensitivity) = unsafe {
            (
                arrays::input(unknowns, n_unknowns, "unknowns")?,
                arrays::input(knowns, n_knowns, "knowns")?,
                arrays::input(seed, n_seed, "seed")?,
                arrays::output(sensitivity, n_sensitivity, "sensitivity")?,
            )
        };
        references::with_entries(
            FmiVersion::Fmi3,
            inst,
            [unknowns, knowns],
            |inst, [unknowns, knowns]| {
                inst.jacobian_adjoint_derivative(unknowns, knowns, seed, sensitivity)
            },
        )
    };
    let args = format_args!(
        "nUnknowns = {n_unknowns}, nKnowns = {n_knowns}, nSeed = {n_seed}, nSensitivity = {n_sensitivity}"
    );
    // SAFETY: the extension's contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "tandemGetJacobianAdjointDerivative",
            Access::Normal,
            args,
            body,
        )
    }
}
