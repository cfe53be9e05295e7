//! The linearization of the outputs at a communication point,
//! `y = Y(t, w, u(t), p)`, computed by the method's own output function.

use crate::integrators::DifferentiableScheme;
use crate::system::{StepInputs, System};

use super::blocks::{block_jacobians_into, Lanes};
use super::dual_arguments::with_dual_arguments;
use super::inputs::{flatten_inputs_into, refill_inputs, shape_inputs};
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
        let mut outputs = OutputLinearization {
            state: Matrix::zeros(0, 0),
            inputs: Matrix::zeros(0, 0),
            params: Matrix::zeros(0, 0),
        };
        outputs.relinearize(sys, scheme, t, w, inputs, params, d);
        outputs
    }

    /// Makes this the linearization of the outputs at time `t` and method state `w` (as
    /// [`new`](Self::new) does), reusing its allocations.
    #[allow(clippy::too_many_arguments)]
    pub fn relinearize<S: System, M: DifferentiableScheme<S>>(
        &mut self,
        sys: &S,
        scheme: &M,
        t: f64,
        w: &[f64],
        inputs: &StepInputs<f64>,
        params: &[f64],
        d: &[f64],
    ) {
        let nt = scheme.residual_len();
        let rows = sys.declaration().outputs.len();
        with_dual_arguments(|a| {
            flatten_inputs_into(inputs, &mut a.flat_inputs);
            a.next.lift(w);
            shape_inputs(&mut a.inputs, inputs);
            a.at_time.clear();
            a.at_time.resize(inputs.len(), Lanes::from(0.0));
            let blocks: [&[f64]; 3] = [&w[..nt], &a.flat_inputs, params];
            let mut jacobians = [&mut self.state, &mut self.inputs, &mut self.params];
            let (w_dual, u, u_t) = (&mut a.next, &mut a.inputs, &mut a.at_time);
            block_jacobians_into(&blocks, rows, &mut jacobians, None, |args, y| {
                refill_inputs(u, args[1]);
                let time = Lanes::from(t);
                u.eval(time, u_t);
                scheme.outputs(sys, time, w_dual.with(args[0]), u_t, args[2], d, y);
            });
        });
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
        let mut cotangents = Cotangents::default();
        self.vjp_into(bar, &mut cotangents);
        cotangents
    }

    /// [`vjp`](Self::vjp) into `out`, keeping its allocations.
    pub fn vjp_into(&self, bar: &[f64], out: &mut Cotangents) {
        out.reset(self.state.cols(), self.inputs.cols(), self.params.cols());
        self.state.transpose_mul_add(bar, &mut out.state);
        self.inputs.transpose_mul_add(bar, &mut out.inputs);
        self.params.transpose_mul_add(bar, &mut out.params);
    }
}
