//! The linearization of the outputs at a communication point,
//! `y = Y(t, w, u(t), p)`, computed by the method's own output function.

use crate::integrators::DifferentiableScheme;
use crate::system::{StepInputs, System};

use super::blocks::{block_jacobians, Lanes, Leading};
use super::inputs::{flatten_inputs, inputs_like, refill_inputs};
use super::matrix::Matrix;
use super::Cotangents;

/// The Jacobians of the outputs at time `t` (the end of a communication step).
#[derive(Clone, Debug)]
pub struct OutputLinearization {
    /// `dy/dw` over the residual's unknowns.
    pub state: Matrix,
    /// `dy/du` over the flat coefficients of the step's inputs (evaluated at `t`).
    pub inputs: Matrix,
    /// `dy/dp`.
    pub params: Matrix,
}

impl OutputLinearization {
    /// Linearizes the outputs of `scheme` at time `t` and method state `w`.
    #[allow(clippy::too_many_arguments)]
    pub fn new<S: System, M: DifferentiableScheme<S>>(
        sys: &S,
        scheme: &M,
        t: f64,
        w: &[f64],
        inputs: &StepInputs<f64>,
        params: &[f64],
        d: &[f64],
    ) -> Self {
        let nt = scheme.residual_len();
        let rows = sys.declaration().outputs.len();
        let flat_inputs = flatten_inputs(inputs);
        let blocks: [&[f64]; 3] = [&w[..nt], &flat_inputs, params];
        let mut w_dual = Leading::new(w);
        let mut u = inputs_like(inputs, &vec![Lanes::from(0.0); flat_inputs.len()]);
        let mut u_t = vec![Lanes::from(0.0); u.len()];
        let (jacobians, _) = block_jacobians(&blocks, rows, |args, y| {
            refill_inputs(&mut u, args[1]);
            let time = Lanes::from(t);
            u.eval(time, &mut u_t);
            scheme.outputs(sys, time, w_dual.with(args[0]), &u_t, args[2], d, y);
        });
        let [state, inputs, params] = <[Matrix; 3]>::try_from(jacobians).expect("three blocks");
        OutputLinearization { state, inputs, params }
    }

    /// Forward mode: `dy = Y_w dw + Y_u du + Y_p dp` for tangents of the state's `nt`
    /// differentiated entries, the flat input coefficients and the parameters.
    pub fn jvp(&self, dw: &[f64], du: &[f64], dp: &[f64]) -> Vec<f64> {
        let mut dy = vec![0.0; self.state.rows()];
        self.state.mul_add(dw, &mut dy);
        self.inputs.mul_add(du, &mut dy);
        self.params.mul_add(dp, &mut dy);
        dy
    }

    /// Reverse mode: the adjoints `Y_w^T bar`, `Y_u^T bar`, `Y_p^T bar` of the output seed.
    pub fn vjp(&self, bar: &[f64]) -> Cotangents {
        let mut cotangents =
            Cotangents::zeros(self.state.cols(), self.inputs.cols(), self.params.cols());
        self.state.transpose_mul_add(bar, &mut cotangents.state);
        self.inputs.transpose_mul_add(bar, &mut cotangents.inputs);
        self.params.transpose_mul_add(bar, &mut cotangents.params);
        cotangents
    }
}
