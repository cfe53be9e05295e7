//! Directional and adjoint derivatives through C arrays, shared by FMI 2.0 and FMI 3.0.

use std::ffi::c_void;

use crate::ffi::{arrays, references, with_instance, Access, Standard};
use crate::instance::Instance;
use crate::system::System;

/// Which product of the Jacobian is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    /// `J seed` (seed over the knowns).
    Directional,
    /// `J^T seed` (seed over the unknowns).
    Adjoint,
}

/// fmiGetDirectionalDerivative / fmi3GetAdjointDerivative. In FMI 3.0 an array known or
/// unknown has one seed or sensitivity per element (FMI 3.0 section 3.2.2).
///
/// # Safety
/// `handle` as for [`with_instance`]; every pointer NULL or an array of the given length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn product<S: System, F: Standard>(
    handle: *mut c_void,
    function: &str,
    product: Product,
    unknowns: *const u32,
    n_unknowns: usize,
    knowns: *const u32,
    n_knowns: usize,
    seed: *const f64,
    n_seed: usize,
    sensitivity: *mut f64,
    n_sensitivity: usize,
) -> F::Status {
    let args = format_args!("nUnknowns = {n_unknowns}, nKnowns = {n_knowns}");
    let body = |inst: &mut Instance<S>| {
        // SAFETY: every array has the length the caller passed with it.
        let (unknowns, knowns, seed, sensitivity) = unsafe {
            (
                arrays::input(unknowns, n_unknowns, "unknowns")?,
                arrays::input(knowns, n_knowns, "knowns")?,
                arrays::input(seed, n_seed, "seed")?,
                arrays::output(sensitivity, n_sensitivity, "sensitivity")?,
            )
        };
        references::with_entries(
            F::VERSION,
            inst,
            [unknowns, knowns],
            |inst, [unknowns, knowns]| match product {
                Product::Directional => {
                    inst.directional_derivative(unknowns, knowns, seed, sensitivity)
                }
                Product::Adjoint => inst.adjoint_derivative(unknowns, knowns, seed, sensitivity),
            },
        )
    };
    // SAFETY: the caller's contract on `handle`.
    unsafe { with_instance::<S, F>(handle, function, Access::Normal, args, body) }
}
