//! The dual-number arguments a linearization passes its model (states lifted into dual
//! numbers, the input polynomial with dual coefficients and its value at one time), kept per
//! thread: the step and output linearizations run for every step VJP, and allocating these
//! each time cost more than the model's own arithmetic.

use std::cell::RefCell;

use crate::system::StepInputs;

use super::blocks::{Lanes, Leading};

/// Buffers for the arguments of one linearization's model evaluations.
pub struct DualArguments {
    /// The state a step ends at, or the one outputs are taken at.
    pub next: Leading,
    /// The state a step starts from.
    pub prev: Leading,
    /// The input polynomial with dual coefficients.
    pub inputs: StepInputs<Lanes>,
    /// The inputs at one time.
    pub at_time: Vec<Lanes>,
    /// The input polynomial's coefficients, flat.
    pub flat_inputs: Vec<f64>,
}

impl Default for DualArguments {
    fn default() -> Self {
        DualArguments {
            next: Leading::default(),
            prev: Leading::default(),
            inputs: StepInputs {
                t0: 0.0,
                coefficients: Vec::new(),
            },
            at_time: Vec::new(),
            flat_inputs: Vec::new(),
        }
    }
}

thread_local! {
    static ARGUMENTS: RefCell<DualArguments> = RefCell::default();
}

/// Runs `work` with this thread's argument buffers (fresh ones if they are in use: a model
/// evaluation that linearizes something itself).
pub fn with_dual_arguments<R>(work: impl FnOnce(&mut DualArguments) -> R) -> R {
    ARGUMENTS.with(|arguments| match arguments.try_borrow_mut() {
        Ok(mut arguments) => work(&mut arguments),
        Err(_) => work(&mut DualArguments::default()),
    })
}
