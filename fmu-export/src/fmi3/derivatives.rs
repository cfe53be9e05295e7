//! FMI 3.0 directional and adjoint derivatives.

use crate::ffi::partial_derivatives::{product, Product};
use crate::fmi3::types::*;
use crate::system::System;

/// Defines the partial-derivative functions, which share one C signature and differ in the
/// [`Product`] they compute.
macro_rules! partial_derivatives {
    ($($(#[$doc:meta])* $name:ident = $c_name:literal, $product:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// FMI 3.0 contract: `instance` from an fmi3Instantiate function; each array of its
        /// length.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name<S: System>(
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
            // SAFETY: the FMI 3.0 contract.
            unsafe {
                product::<S, Fmi3>(
                    instance,
                    $c_name,
                    Product::$product,
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
    )*};
}

partial_derivatives! {
    /// fmi3GetDirectionalDerivative: `sensitivity = J seed`, exact (`nSeed` the number of
    /// values of the knowns, `nSensitivity` that of the unknowns: an array has one per element).
    get_directional_derivative = "fmi3GetDirectionalDerivative", Directional;
    /// fmi3GetAdjointDerivative: `sensitivity = J^T seed`, exact (`nSeed` the number of
    /// values of the unknowns, `nSensitivity` that of the knowns).
    get_adjoint_derivative = "fmi3GetAdjointDerivative", Adjoint;
}
