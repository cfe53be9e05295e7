//! FMI 2.0 directional derivatives.

use crate::ffi::partial_derivatives::{product, Product};
use crate::fmi2::types::*;
use crate::system::System;

/// fmi2GetDirectionalDerivative: `dv_unknown = J dv_known`, exact.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; arrays of `n_unknown` / `n_known` elements.
pub unsafe fn get_directional_derivative<S: System>(
    c: Fmi2Component,
    unknown_refs: *const Fmi2ValueReference,
    n_unknown: usize,
    known_refs: *const Fmi2ValueReference,
    n_known: usize,
    dv_known: *const Fmi2Real,
    dv_unknown: *mut Fmi2Real,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        product::<S, Fmi2>(
            c,
            "fmi2GetDirectionalDerivative",
            Product::Directional,
            unknown_refs,
            n_unknown,
            known_refs,
            n_known,
            dv_known,
            n_known,
            dv_unknown,
            n_unknown,
        )
    }
}
