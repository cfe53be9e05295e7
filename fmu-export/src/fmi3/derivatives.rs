//! FMI 3.0 directional and adjoint derivatives.

use crate::ffi::partial_derivatives::{product, Product};
use crate::fmi3::types::*;
use crate::system::System;

/// fmi3GetDirectionalDerivative: `sensitivity = J seed`, exact (`nSeed = nKnowns`,
/// `nSensitivity = nUnknowns`).
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; each array of its length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_directional_derivative<S: System>(
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
    let function = "fmi3GetDirectionalDerivative";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        product::<S, Fmi3>(
            instance,
            function,
            Product::Directional,
            unknowns,
            n_unknowns,
            knowns,
            n_knowns,
            seed,
            n_seed,
            sensitivity,
            n_sensitivity,
        )
    }
}

/// fmi3GetAdjointDerivative: `sensitivity = J^T seed`, exact (`nSeed = nUnknowns`,
/// `nSensitivity = nKnowns`).
///
/// # Safety
/// As for [`get_directional_derivative`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_adjoint_derivative<S: System>(
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
    let function = "fmi3GetAdjointDerivative";
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        product::<S, Fmi3>(
            instance,
            function,
            Product::Adjoint,
            unknowns,
            n_unknowns,
            knowns,
            n_knowns,
            seed,
            n_seed,
            sensitivity,
            n_sensitivity,
        )
    }
}
