//! The C functions of the adjoint extension `org.tandem.adjoint` (docs/adjoint-extension.md),
//! exported from the FMI 3.0 binary next to the fmi3 functions. Each takes an FMI 3.0
//! Co-Simulation instance, checks its arrays (NULL, alignment, overlap of written arrays;
//! lengths against the manifest in [`crate::instance::adjoint`]) and logs like any FMI call.

use crate::ffi::arrays::{self, check_disjoint, Span};
use crate::ffi::{call, with_instance, Access};
use crate::fmi3::types::*;
use crate::instance::adjoint::{StepArguments, StepResults};
use crate::instance::Instance;
use crate::system::System;

/// tandemGetStateSize: the length of the discrete state `w` (the manifest's nState).
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; `n_state` NULL or writable.
pub unsafe fn tandem_get_state_size<S: System>(
    instance: Fmi3Instance,
    n_state: *mut usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: a writable size_t (the extension's contract).
        let out = unsafe { arrays::out_param(n_state, "nState")? };
        *out = inst.adjoint_state_size()?;
        Ok(())
    };
    // SAFETY: the extension's contract on `instance`.
    unsafe { call::<S, Fmi3>(instance, "tandemGetStateSize", Access::Normal, body) }
}

/// tandemGetState: the current discrete state `w`.
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; `state` an array of `n_state` values.
pub unsafe fn tandem_get_state<S: System>(
    instance: Fmi3Instance,
    state: *mut Fmi3Float64,
    n_state: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        // SAFETY: an array of the given length (the extension's contract).
        let state = unsafe { arrays::output(state, n_state, "state")? };
        inst.adjoint_state(state)
    };
    let args = format_args!("nState = {n_state}");
    // SAFETY: the extension's contract on `instance`.
    unsafe { with_instance::<S, Fmi3>(instance, "tandemGetState", Access::Normal, args, body) }
}

/// tandemStepJvp: tangents of `(w_k+1, y_k+1)` from tangents of `(w_k, u_k, p)`.
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; every array of its stated length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tandem_step_jvp<S: System>(
    instance: Fmi3Instance,
    step_size: Fmi3Float64,
    d_state: *const Fmi3Float64,
    n_state: usize,
    d_inputs: *const Fmi3Float64,
    n_inputs: usize,
    d_params: *const Fmi3Float64,
    n_params: usize,
    d_state_next: *mut Fmi3Float64,
    d_outputs_next: *mut Fmi3Float64,
    n_outputs: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        check_disjoint(
            &[
                Span::of("dStateNext", d_state_next, n_state),
                Span::of("dOutputsNext", d_outputs_next, n_outputs),
            ],
            &[
                Span::of("dState", d_state, n_state),
                Span::of("dInputs", d_inputs, n_inputs),
                Span::of("dParams", d_params, n_params),
            ],
        )?;
        // SAFETY: arrays of the stated lengths (the extension's contract); the written ones
        // share no memory with any other (checked above).
        let (tangents, out) = unsafe {
            (
                StepArguments {
                    state: arrays::input(d_state, n_state, "dState")?,
                    inputs: arrays::input(d_inputs, n_inputs, "dInputs")?,
                    params: arrays::input(d_params, n_params, "dParams")?,
                },
                StepResults {
                    state: arrays::output(d_state_next, n_state, "dStateNext")?,
                    outputs: arrays::output(d_outputs_next, n_outputs, "dOutputsNext")?,
                },
            )
        };
        inst.step_jvp(step_size, tangents, out)
    };
    let args = format_args!(
        "stepSize = {step_size}, nState = {n_state}, nInputs = {n_inputs}, nParams = {n_params}, nOutputs = {n_outputs}"
    );
    // SAFETY: the extension's contract on `instance`.
    unsafe { with_instance::<S, Fmi3>(instance, "tandemStepJvp", Access::Normal, args, body) }
}

/// tandemStepVjp: adjoints of `(w_k, u_k, p)` from adjoint seeds on `(w_k+1, y_k+1)`.
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; every array of its stated length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tandem_step_vjp<S: System>(
    instance: Fmi3Instance,
    step_size: Fmi3Float64,
    bar_state_next: *const Fmi3Float64,
    n_state: usize,
    bar_outputs_next: *const Fmi3Float64,
    n_outputs: usize,
    bar_state: *mut Fmi3Float64,
    bar_inputs: *mut Fmi3Float64,
    n_inputs: usize,
    bar_params: *mut Fmi3Float64,
    n_params: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        check_disjoint(
            &[
                Span::of("barState", bar_state, n_state),
                Span::of("barInputs", bar_inputs, n_inputs),
                Span::of("barParams", bar_params, n_params),
            ],
            &[
                Span::of("barStateNext", bar_state_next, n_state),
                Span::of("barOutputsNext", bar_outputs_next, n_outputs),
            ],
        )?;
        // SAFETY: as in `tandem_step_jvp`.
        let (seeds, out) = unsafe {
            (
                StepResults {
                    state: arrays::input(bar_state_next, n_state, "barStateNext")?,
                    outputs: arrays::input(bar_outputs_next, n_outputs, "barOutputsNext")?,
                },
                StepArguments {
                    state: arrays::output(bar_state, n_state, "barState")?,
                    inputs: arrays::output(bar_inputs, n_inputs, "barInputs")?,
                    params: arrays::output(bar_params, n_params, "barParams")?,
                },
            )
        };
        inst.step_vjp(step_size, seeds, out)
    };
    let args = format_args!(
        "stepSize = {step_size}, nState = {n_state}, nOutputs = {n_outputs}, nInputs = {n_inputs}, nParams = {n_params}"
    );
    // SAFETY: the extension's contract on `instance`.
    unsafe { with_instance::<S, Fmi3>(instance, "tandemStepVjp", Access::Normal, args, body) }
}

/// tandemInitializationVjp: adjoints of the start inputs and the parameters from adjoint
/// seeds on `(w_0, y_0)`.
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; every array of its stated length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tandem_initialization_vjp<S: System>(
    instance: Fmi3Instance,
    bar_state: *const Fmi3Float64,
    n_state: usize,
    bar_outputs: *const Fmi3Float64,
    n_outputs: usize,
    bar_inputs: *mut Fmi3Float64,
    n_inputs: usize,
    bar_params: *mut Fmi3Float64,
    n_params: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        check_disjoint(
            &[
                Span::of("barInputs", bar_inputs, n_inputs),
                Span::of("barParams", bar_params, n_params),
            ],
            &[
                Span::of("barState", bar_state, n_state),
                Span::of("barOutputs", bar_outputs, n_outputs),
            ],
        )?;
        // SAFETY: as in `tandem_step_jvp`.
        let (seeds, inputs, params) = unsafe {
            (
                StepResults {
                    state: arrays::input(bar_state, n_state, "barState")?,
                    outputs: arrays::input(bar_outputs, n_outputs, "barOutputs")?,
                },
                arrays::output(bar_inputs, n_inputs, "barInputs")?,
                arrays::output(bar_params, n_params, "barParams")?,
            )
        };
        inst.initialization_vjp(seeds, inputs, params)
    };
    let args = format_args!(
        "nState = {n_state}, nOutputs = {n_outputs}, nInputs = {n_inputs}, nParams = {n_params}"
    );
    // SAFETY: the extension's contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "tandemInitializationVjp",
            Access::Normal,
            args,
            body,
        )
    }
}

/// tandemOutputVjp: adjoints of `(w, u, p)` of the outputs at the current point.
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation; every array of its stated length.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tandem_output_vjp<S: System>(
    instance: Fmi3Instance,
    bar_outputs: *const Fmi3Float64,
    n_outputs: usize,
    bar_state: *mut Fmi3Float64,
    n_state: usize,
    bar_inputs: *mut Fmi3Float64,
    n_inputs: usize,
    bar_params: *mut Fmi3Float64,
    n_params: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| {
        check_disjoint(
            &[
                Span::of("barState", bar_state, n_state),
                Span::of("barInputs", bar_inputs, n_inputs),
                Span::of("barParams", bar_params, n_params),
            ],
            &[Span::of("barOutputs", bar_outputs, n_outputs)],
        )?;
        // SAFETY: as in `tandem_step_jvp`.
        let (seed, out) = unsafe {
            (
                arrays::input(bar_outputs, n_outputs, "barOutputs")?,
                StepArguments {
                    state: arrays::output(bar_state, n_state, "barState")?,
                    inputs: arrays::output(bar_inputs, n_inputs, "barInputs")?,
                    params: arrays::output(bar_params, n_params, "barParams")?,
                },
            )
        };
        inst.output_vjp(seed, out)
    };
    let args = format_args!(
        "nOutputs = {n_outputs}, nState = {n_state}, nInputs = {n_inputs}, nParams = {n_params}"
    );
    // SAFETY: the extension's contract on `instance`.
    unsafe { with_instance::<S, Fmi3>(instance, "tandemOutputVjp", Access::Normal, args, body) }
}

/// tandemKeepStepLinearizations: doStep linearizes its steps and keeps the latest `n_steps`
/// for the step VJPs and JVPs (0: none).
///
/// # Safety
/// `instance` from fmi3InstantiateCoSimulation.
pub unsafe fn tandem_keep_step_linearizations<S: System>(
    instance: Fmi3Instance,
    n_steps: usize,
) -> Fmi3Status {
    let body = |inst: &mut Instance<S>| inst.keep_step_linearizations(n_steps);
    let args = format_args!("nSteps = {n_steps}");
    // SAFETY: the extension's contract on `instance`.
    unsafe {
        with_instance::<S, Fmi3>(
            instance,
            "tandemKeepStepLinearizations",
            Access::Normal,
            args,
            body,
        )
    }
}
