//! The adjoint extension `org.tandem.adjoint` (docs/adjoint-extension.md) on an FMI 3.0
//! Co-Simulation instance: safe calls of its `tandem*` functions, with the array lengths of
//! the FMU's manifest. Seeds and results are in the manifest's order.

use super::Fmu3Instance;
use crate::binding::fmi3::AdjointFunctions;
use crate::error::{Error, Result};
use crate::import::{AdjointManifest, ADJOINT_MANIFEST, KEEP_STEP_LINEARIZATIONS};

/// Tangents of the results `(w_k+1, y_k+1)` of a step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepTangents {
    /// Of the discrete state (nState entries).
    pub state: Vec<f64>,
    /// Of the manifest's outputs.
    pub outputs: Vec<f64>,
}

/// Adjoints of the arguments `(w, u, p)` of a step or of the outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct StepCotangents {
    /// Of the discrete state (nState entries).
    pub state: Vec<f64>,
    /// Of the manifest's inputs.
    pub inputs: Vec<f64>,
    /// Of the manifest's parameters.
    pub parameters: Vec<f64>,
}

/// Adjoints of the arguments `(u_0, p)` of the initialization.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialCotangents {
    /// Of the manifest's inputs (set during initialization).
    pub inputs: Vec<f64>,
    /// Of the manifest's parameters.
    pub parameters: Vec<f64>,
}

impl Fmu3Instance {
    /// The FMU's adjoint-extension manifest, if it has one.
    pub fn adjoint_manifest(&self) -> Option<&AdjointManifest> {
        self.files.adjoint_manifest()
    }

    /// tandemGetStateSize: the length of the discrete state `w`.
    pub fn state_size(&mut self) -> Result<usize> {
        const FUNCTION: &str = "tandemGetStateSize";
        let f = self.adjoint_function(FUNCTION, |a| a.get_state_size)?;
        let mut size = 0;
        // SAFETY: one size_t is written.
        let status = unsafe { f(self.instance, &mut size) };
        self.core.check(FUNCTION, status)?;
        Ok(size)
    }

    /// tandemGetState: the current discrete state `w`.
    pub fn discrete_state(&mut self) -> Result<Vec<f64>> {
        const FUNCTION: &str = "tandemGetState";
        let f = self.adjoint_function(FUNCTION, |a| a.get_state)?;
        let mut state = vec![0.0; self.manifest()?.n_state];
        // SAFETY: the array is passed with its length.
        let status = unsafe { f(self.instance, state.as_mut_ptr(), state.len()) };
        self.core.check(FUNCTION, status)?;
        Ok(state)
    }

    /// tandemStepJvp: the tangents of `(w_k+1, y_k+1)` of a step of `step_size` from the
    /// instance's current point, for tangents of the state, inputs and parameters.
    pub fn step_jvp(
        &mut self,
        step_size: f64,
        d_state: &[f64],
        d_inputs: &[f64],
        d_params: &[f64],
    ) -> Result<StepTangents> {
        const FUNCTION: &str = "tandemStepJvp";
        let f = self.adjoint_function(FUNCTION, |a| a.step_jvp)?;
        let mut out = StepTangents {
            state: vec![0.0; d_state.len()],
            outputs: vec![0.0; self.manifest()?.outputs.len()],
        };
        // SAFETY: every array is passed with its length; `out.state` has `d_state.len()`
        // entries, the length passed as nState.
        let status = unsafe {
            f(
                self.instance,
                step_size,
                d_state.as_ptr(),
                d_state.len(),
                d_inputs.as_ptr(),
                d_inputs.len(),
                d_params.as_ptr(),
                d_params.len(),
                out.state.as_mut_ptr(),
                out.outputs.as_mut_ptr(),
                out.outputs.len(),
            )
        };
        self.core.check(FUNCTION, status)?;
        Ok(out)
    }

    /// tandemStepVjp: the adjoints of `(w_k, u_k, p)` of a step of `step_size` from the
    /// instance's current point, for adjoint seeds on the state and outputs at its end.
    pub fn step_vjp(
        &mut self,
        step_size: f64,
        bar_state_next: &[f64],
        bar_outputs_next: &[f64],
    ) -> Result<StepCotangents> {
        let mut out = self.cotangents(bar_state_next.len())?;
        let StepCotangents {
            state,
            inputs,
            parameters,
        } = &mut out;
        let seeds = (bar_state_next, bar_outputs_next);
        self.step_vjp_into(step_size, seeds, (state, inputs, parameters))?;
        Ok(out)
    }

    /// [`Fmu3Instance::step_vjp`] written into `out` (state, inputs, parameters), which must
    /// have the lengths of the seed on the state and of the manifest's lists: a reverse sweep
    /// calls it for every step, with arrays it keeps.
    pub fn step_vjp_into(
        &mut self,
        step_size: f64,
        (bar_state_next, bar_outputs_next): (&[f64], &[f64]),
        (bar_state, bar_inputs, bar_parameters): (&mut [f64], &mut [f64], &mut [f64]),
    ) -> Result<()> {
        const FUNCTION: &str = "tandemStepVjp";
        let f = self.adjoint_function(FUNCTION, |a| a.step_vjp)?;
        self.check_cotangents(bar_state_next.len(), bar_state, bar_inputs, bar_parameters)?;
        // SAFETY: every array is passed with its length; `bar_state` has
        // `bar_state_next.len()` entries (checked), the length passed as nState, and the
        // inputs' and parameters' arrays the manifest's lengths (checked).
        let status = unsafe {
            f(
                self.instance,
                step_size,
                bar_state_next.as_ptr(),
                bar_state_next.len(),
                bar_outputs_next.as_ptr(),
                bar_outputs_next.len(),
                bar_state.as_mut_ptr(),
                bar_inputs.as_mut_ptr(),
                bar_inputs.len(),
                bar_parameters.as_mut_ptr(),
                bar_parameters.len(),
            )
        };
        self.core.check(FUNCTION, status)
    }

    /// tandemInitializationVjp: at the start time, the adjoints of the inputs and parameters
    /// for adjoint seeds on the state and outputs the initialization produced.
    pub fn initialization_vjp(
        &mut self,
        bar_state: &[f64],
        bar_outputs: &[f64],
    ) -> Result<InitialCotangents> {
        const FUNCTION: &str = "tandemInitializationVjp";
        let f = self.adjoint_function(FUNCTION, |a| a.initialization_vjp)?;
        let StepCotangents {
            mut inputs,
            mut parameters,
            ..
        } = self.cotangents(0)?;
        // SAFETY: every array is passed with its length.
        let status = unsafe {
            f(
                self.instance,
                bar_state.as_ptr(),
                bar_state.len(),
                bar_outputs.as_ptr(),
                bar_outputs.len(),
                inputs.as_mut_ptr(),
                inputs.len(),
                parameters.as_mut_ptr(),
                parameters.len(),
            )
        };
        self.core.check(FUNCTION, status)?;
        Ok(InitialCotangents { inputs, parameters })
    }

    /// tandemOutputVjp: the adjoints of `(w, u, p)` of the outputs at the current point, for
    /// an adjoint seed on the outputs.
    pub fn output_vjp(&mut self, bar_outputs: &[f64]) -> Result<StepCotangents> {
        let mut out = self.cotangents(self.manifest()?.n_state)?;
        let StepCotangents {
            state,
            inputs,
            parameters,
        } = &mut out;
        self.output_vjp_into(bar_outputs, (state, inputs, parameters))?;
        Ok(out)
    }

    /// [`Fmu3Instance::output_vjp`] written into `out` (state, inputs, parameters), which must
    /// have the manifest's lengths.
    pub fn output_vjp_into(
        &mut self,
        bar_outputs: &[f64],
        (bar_state, bar_inputs, bar_parameters): (&mut [f64], &mut [f64], &mut [f64]),
    ) -> Result<()> {
        const FUNCTION: &str = "tandemOutputVjp";
        let f = self.adjoint_function(FUNCTION, |a| a.output_vjp)?;
        let n_state = self.manifest()?.n_state;
        self.check_cotangents(n_state, bar_state, bar_inputs, bar_parameters)?;
        // SAFETY: every array is passed with its length.
        let status = unsafe {
            f(
                self.instance,
                bar_outputs.as_ptr(),
                bar_outputs.len(),
                bar_state.as_mut_ptr(),
                bar_state.len(),
                bar_inputs.as_mut_ptr(),
                bar_inputs.len(),
                bar_parameters.as_mut_ptr(),
                bar_parameters.len(),
            )
        };
        self.core.check(FUNCTION, status)
    }

    /// tandemKeepStepLinearizations: the FMU linearizes the steps it takes from now on and
    /// keeps the latest `steps` for the step VJPs and JVPs (0: none). Returns whether it does:
    /// false, without a call, for an FMU whose manifest does not declare the capability.
    pub fn keep_step_linearizations(&mut self, steps: usize) -> Result<bool> {
        const FUNCTION: &str = "tandemKeepStepLinearizations";
        if !self.manifest()?.has(KEEP_STEP_LINEARIZATIONS) {
            return Ok(false);
        }
        let f = self.adjoint_function(FUNCTION, |a| a.keep_step_linearizations)?;
        // SAFETY: the instance is live; the function takes no array.
        let status = unsafe { f(self.instance, steps) };
        self.core.check(FUNCTION, status)?;
        Ok(true)
    }

    /// The manifest, or an error naming the instance when the FMU has none.
    fn manifest(&self) -> Result<&AdjointManifest> {
        self.adjoint_manifest()
            .ok_or_else(|| self.core.unsupported(ADJOINT_MANIFEST))
    }

    /// The extension function `function`, picked from the binding by `pick`.
    fn adjoint_function<F: Copy>(
        &self,
        function: &'static str,
        pick: impl FnOnce(&AdjointFunctions) -> Option<F>,
    ) -> Result<F> {
        pick(&self.binding.adjoint).ok_or_else(|| self.core.unsupported(function))
    }

    /// An error unless the adjoint arrays have `n_state` state entries and the manifest's
    /// inputs and parameters (the lengths the extension is called with).
    fn check_cotangents(
        &self,
        n_state: usize,
        state: &[f64],
        inputs: &[f64],
        parameters: &[f64],
    ) -> Result<()> {
        let manifest = self.manifest()?;
        let expected = [n_state, manifest.inputs.len(), manifest.parameters.len()];
        let given = [state.len(), inputs.len(), parameters.len()];
        for ((what, expected), given) in ["state", "inputs", "parameters"]
            .into_iter()
            .zip(expected)
            .zip(given)
        {
            if expected != given {
                return Err(self.length_mismatch(what, expected, given));
            }
        }
        Ok(())
    }

    /// The error of `expected` derivatives of `what` (the manifest's count, or the seed's
    /// length) for an array of `given` entries.
    pub(super) fn length_mismatch(&self, what: &str, expected: usize, given: usize) -> Error {
        Error::InvalidValue {
            item: format!("instance {}: adjoint extension", self.core.name),
            message: format!(
                "{expected} {what} derivatives for {given} entries (does tandemGetStateSize \
                 agree with the manifest's nState?)"
            ),
        }
    }

    /// Zero cotangents with `n_state` state entries and the manifest's inputs and parameters.
    fn cotangents(&self, n_state: usize) -> Result<StepCotangents> {
        let manifest = self.manifest()?;
        Ok(StepCotangents {
            state: vec![0.0; n_state],
            inputs: vec![0.0; manifest.inputs.len()],
            parameters: vec![0.0; manifest.parameters.len()],
        })
    }
}
