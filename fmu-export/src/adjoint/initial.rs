//! The dependence of the initial discrete state on the model's start values, inputs and
//! parameters: `w0 = W(t0, x0, u, p)`, the method's consistent start (for HHT the
//! accelerations and multipliers of the augmented index-1 system).
//!
//! Lauß et al. (2018) assume `dx_0 = 0`; when `w0` depends on `p` (a consistent `a_0` under a
//! parameter-dependent force) the gradient needs the initial-state term `(dw0/dp)^T lambda_0`,
//! with `lambda_0` the adjoint of `w0` (the digest's A.2 correction).

use crate::integrators::DifferentiableScheme;
use crate::system::{StepInputs, System};

use super::blocks::{block_jacobians, Lanes};
use super::error::AdjointError;
use super::inputs::{flatten_inputs, inputs_like};
use super::matrix::Matrix;

/// The Jacobians of the consistent start `w0 = W(t0, x0, u, p)`.
#[derive(Clone, Debug)]
pub struct InitialLinearization {
    /// `dw0/dx0` (`nt x N`).
    pub state: Matrix,
    /// `dw0/du` over the flat coefficients of the first step's inputs.
    pub inputs: Matrix,
    /// `dw0/dp`.
    pub params: Matrix,
}

impl InitialLinearization {
    /// Linearizes the start of `scheme` at `t0` from `x0` (discrete variables `d`).
    pub fn new<S: System, M: DifferentiableScheme<S>>(
        sys: &S,
        scheme: &M,
        t0: f64,
        x0: &[f64],
        inputs: &StepInputs<f64>,
        params: &[f64],
        d: &[f64],
    ) -> Result<Self, AdjointError> {
        let nt = scheme.residual_len();
        let flat_inputs = flatten_inputs(inputs);
        let mut failure = None;
        let blocks: [&[f64]; 3] = [x0, &flat_inputs, params];
        let (jacobians, _) = block_jacobians(&blocks, nt, |args, out| {
            let u = inputs_like(inputs, args[1]);
            let mut w = vec![Lanes::from(0.0); scheme.state_len()];
            match scheme.start(sys, Lanes::from(t0), args[0], &u, args[2], d, &mut w) {
                Ok(()) => out.copy_from_slice(&w[..nt]),
                Err(error) => {
                    failure = Some(error);
                    out.iter_mut().for_each(|o| *o = Lanes::from(f64::NAN));
                }
            }
        });
        if let Some(error) = failure {
            return Err(AdjointError::Start(error));
        }
        let [state, inputs, params] = <[Matrix; 3]>::try_from(jacobians).expect("three blocks");
        Ok(InitialLinearization {
            state,
            inputs,
            params,
        })
    }
}
