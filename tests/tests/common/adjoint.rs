//! The adjoint extension's C functions (docs/adjoint-extension.md) called on an FMI 3.0
//! instance through the loaded library, each returning its status and what it wrote.

use fmu_export::fmi3::types::{Fmi3Instance, Fmi3Status};

use super::Fmi3;

pub type GetStateSize = unsafe extern "C" fn(Fmi3Instance, *mut usize) -> Fmi3Status;
pub type GetState = unsafe extern "C" fn(Fmi3Instance, *mut f64, usize) -> Fmi3Status;
pub type StepJvp = unsafe extern "C" fn(
    Fmi3Instance,
    f64,
    *const f64,
    usize,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    *mut f64,
    usize,
) -> Fmi3Status;
pub type StepVjp = unsafe extern "C" fn(
    Fmi3Instance,
    f64,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Fmi3Status;
pub type InitializationVjp = unsafe extern "C" fn(
    Fmi3Instance,
    *const f64,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Fmi3Status;
pub type OutputVjp = unsafe extern "C" fn(
    Fmi3Instance,
    *const f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
    *mut f64,
    usize,
) -> Fmi3Status;

pub type KeepStepLinearizations = unsafe extern "C" fn(Fmi3Instance, usize) -> Fmi3Status;

/// Adjoints of `(w, u, p)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cotangents {
    pub state: Vec<f64>,
    pub inputs: Vec<f64>,
    pub params: Vec<f64>,
}

impl Cotangents {
    /// NaN-filled arrays of the given lengths (so that unwritten entries show).
    pub fn unwritten(state: usize, inputs: usize, params: usize) -> Self {
        Cotangents {
            state: vec![f64::NAN; state],
            inputs: vec![f64::NAN; inputs],
            params: vec![f64::NAN; params],
        }
    }
}

impl Fmi3<'_> {
    /// tandemGetStateSize.
    pub fn state_size(&self) -> (Fmi3Status, usize) {
        let mut n = usize::MAX;
        // SAFETY: a writable size_t.
        let status = unsafe { self.fmu.func::<GetStateSize>("tandemGetStateSize")(self.i, &mut n) };
        (status, n)
    }

    /// tandemKeepStepLinearizations.
    pub fn keep_step_linearizations(&self, steps: usize) -> Fmi3Status {
        // SAFETY: the function takes the instance and a count.
        unsafe {
            self.fmu
                .func::<KeepStepLinearizations>("tandemKeepStepLinearizations")(
                self.i, steps
            )
        }
    }

    /// tandemGetState into `n` entries.
    pub fn discrete_state(&self, n: usize) -> (Fmi3Status, Vec<f64>) {
        let mut w = vec![f64::NAN; n];
        // SAFETY: an array of `n` reals.
        let status =
            unsafe { self.fmu.func::<GetState>("tandemGetState")(self.i, w.as_mut_ptr(), n) };
        (status, w)
    }

    /// tandemStepJvp, with `n_outputs` output tangents.
    pub fn step_jvp(
        &self,
        h: f64,
        dw: &[f64],
        du: &[f64],
        dp: &[f64],
        n_outputs: usize,
    ) -> (Fmi3Status, Vec<f64>, Vec<f64>) {
        let (mut dw_next, mut dy_next) = (vec![f64::NAN; dw.len()], vec![f64::NAN; n_outputs]);
        // SAFETY: every array has the length passed with it.
        let status = unsafe {
            self.fmu.func::<StepJvp>("tandemStepJvp")(
                self.i,
                h,
                dw.as_ptr(),
                dw.len(),
                du.as_ptr(),
                du.len(),
                dp.as_ptr(),
                dp.len(),
                dw_next.as_mut_ptr(),
                dy_next.as_mut_ptr(),
                n_outputs,
            )
        };
        (status, dw_next, dy_next)
    }

    /// tandemStepVjp, with `n_inputs` and `n_params` adjoints.
    pub fn step_vjp(
        &self,
        h: f64,
        w_bar: &[f64],
        y_bar: &[f64],
        n_inputs: usize,
        n_params: usize,
    ) -> (Fmi3Status, Cotangents) {
        let mut out = Cotangents::unwritten(w_bar.len(), n_inputs, n_params);
        // SAFETY: every array has the length passed with it.
        let status = unsafe {
            self.fmu.func::<StepVjp>("tandemStepVjp")(
                self.i,
                h,
                w_bar.as_ptr(),
                w_bar.len(),
                y_bar.as_ptr(),
                y_bar.len(),
                out.state.as_mut_ptr(),
                out.inputs.as_mut_ptr(),
                n_inputs,
                out.params.as_mut_ptr(),
                n_params,
            )
        };
        (status, out)
    }

    /// tandemInitializationVjp, returning the input and parameter adjoints.
    pub fn initialization_vjp(
        &self,
        w_bar: &[f64],
        y_bar: &[f64],
        n_inputs: usize,
        n_params: usize,
    ) -> (Fmi3Status, Vec<f64>, Vec<f64>) {
        let (mut u_bar, mut p_bar) = (vec![f64::NAN; n_inputs], vec![f64::NAN; n_params]);
        // SAFETY: every array has the length passed with it.
        let status = unsafe {
            self.fmu
                .func::<InitializationVjp>("tandemInitializationVjp")(
                self.i,
                w_bar.as_ptr(),
                w_bar.len(),
                y_bar.as_ptr(),
                y_bar.len(),
                u_bar.as_mut_ptr(),
                n_inputs,
                p_bar.as_mut_ptr(),
                n_params,
            )
        };
        (status, u_bar, p_bar)
    }

    /// tandemOutputVjp.
    pub fn output_vjp(
        &self,
        y_bar: &[f64],
        n_state: usize,
        n_inputs: usize,
        n_params: usize,
    ) -> (Fmi3Status, Cotangents) {
        let mut out = Cotangents::unwritten(n_state, n_inputs, n_params);
        // SAFETY: every array has the length passed with it.
        let status = unsafe {
            self.fmu.func::<OutputVjp>("tandemOutputVjp")(
                self.i,
                y_bar.as_ptr(),
                y_bar.len(),
                out.state.as_mut_ptr(),
                n_state,
                out.inputs.as_mut_ptr(),
                n_inputs,
                out.params.as_mut_ptr(),
                n_params,
            )
        };
        (status, out)
    }
}
