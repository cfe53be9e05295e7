//! The outputs' VJP at one point by reverse mode: `Y_w^T bar`, `Y_u^T bar`, `Y_p^T bar` from
//! one taped evaluation of the outputs and one sweep back, without forming the Jacobians.
//!
//! [`OutputLinearization`](super::OutputLinearization) builds the Jacobians, which forward
//! mode and kept linearizations need, with one 16-lane dual evaluation per block of columns; a
//! VJP that is used once (the adjoint extension's output VJP, and the outputs at the end of a
//! relinearized step) needs only their product with one seed, which costs a few evaluations
//! here instead of one per column.

use std::cell::RefCell;

use crate::integrators::DifferentiableScheme;
use crate::reverse::{vjp_into, Rev};
use crate::system::{StepInputs, System};

use super::inputs::{refill_inputs, shape_inputs};
use super::Cotangents;

/// The buffers of one product, kept per thread so that a VJP allocates nothing once they
/// have grown to the model's size.
struct Buffers {
    /// The point `(w[..nt], flat inputs, p)`.
    point: Vec<f64>,
    /// Its adjoints.
    adjoints: Vec<f64>,
    /// The method state on the tape (entries past `nt` are constants).
    state: Vec<Rev>,
    /// The input polynomial on the tape.
    inputs: StepInputs<Rev>,
    /// The inputs at the output time.
    at_time: Vec<Rev>,
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers {
            point: Vec::new(),
            adjoints: Vec::new(),
            state: Vec::new(),
            inputs: StepInputs {
                t0: 0.0,
                coefficients: Vec::new(),
            },
            at_time: Vec::new(),
        }
    }
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::default();
}

/// Writes into `out` the adjoints of the differentiated state entries `w[..nt]`, of the flat
/// input coefficients and of the parameters for the seed `bar` on the outputs of `scheme` at
/// time `t`, method state `w`, inputs `inputs`, parameters `params` and discrete variables `d`.
#[allow(clippy::too_many_arguments)]
pub fn output_vjp_into<S: System, M: DifferentiableScheme<S>>(
    sys: &S,
    scheme: &M,
    t: f64,
    w: &[f64],
    inputs: &StepInputs<f64>,
    params: &[f64],
    d: &[f64],
    bar: &[f64],
    out: &mut Cotangents,
) {
    let nt = scheme.residual_len();
    // Taken, not borrowed, so that a nested product gets buffers of its own.
    let mut buffers = BUFFERS.with_borrow_mut(std::mem::take);
    let Buffers {
        point,
        adjoints,
        state,
        inputs: taped_inputs,
        at_time,
    } = &mut buffers;
    point.clear();
    point.extend_from_slice(&w[..nt]);
    point.extend(inputs.coefficients.iter().flatten());
    let params_start = point.len();
    point.extend_from_slice(params);
    adjoints.clear();
    adjoints.resize(point.len(), 0.0);
    shape_inputs(taped_inputs, inputs);
    at_time.clear();
    at_time.resize(inputs.len(), Rev::constant(0.0));
    state.clear();
    state.extend(w.iter().map(|&v| Rev::constant(v)));
    vjp_into(point, bar, adjoints, |taped, y| {
        state[..nt].copy_from_slice(&taped[..nt]);
        refill_inputs(taped_inputs, &taped[nt..params_start]);
        let time = Rev::constant(t);
        taped_inputs.eval(time, at_time);
        scheme.outputs(sys, time, state, at_time, &taped[params_start..], d, y);
    });
    out.reset(nt, params_start - nt, params.len());
    out.state.copy_from_slice(&adjoints[..nt]);
    out.inputs.copy_from_slice(&adjoints[nt..params_start]);
    out.params.copy_from_slice(&adjoints[params_start..]);
    BUFFERS.with_borrow_mut(|kept| *kept = buffers);
}
