//! The adjoint extension of an FMI 3.0 Co-Simulation instance as the gradient's
//! [`StepDerivatives`]: the seed layout is the manifest's, every call goes to the extension's
//! `tandem*` function of the same name.

use super::Fmu3Instance;
use crate::error::Result;
use crate::import::ManifestVariable;
use crate::instance::{DerivativeLayout, Seed, StepDerivatives};
use crate::model_description::InterfaceType;

impl Fmu3Instance {
    /// Whether this instance can hand out step derivatives: a Co-Simulation instance (a Model
    /// Exchange one is stepped by the master, not by the FMU) of an FMU with a manifest and
    /// the extension functions the gradient sweeps call.
    pub(crate) fn provides_step_derivatives(&self) -> bool {
        let functions = &self.binding.adjoint;
        self.core.interface == InterfaceType::CoSimulation
            && self.adjoint_manifest().is_some()
            && functions.get_state_size.is_some()
            && functions.step_jvp.is_some()
            && functions.step_vjp.is_some()
            && functions.output_vjp.is_some()
            && functions.initialization_vjp.is_some()
    }

    /// Copies an extension result (tangents or adjoints) into the caller's array, which must
    /// have its length (a state size that differs from the manifest's `nState` would make them
    /// differ).
    fn copy_result(&self, into: &mut [f64], result: &[f64], what: &str) -> Result<()> {
        if into.len() != result.len() {
            return Err(self.length_mismatch(what, result.len(), into.len()));
        }
        into.copy_from_slice(result);
        Ok(())
    }
}

/// The seed entries of a manifest list, in seed order.
fn seeds(list: &[ManifestVariable]) -> Vec<Seed> {
    list.iter()
        .map(|v| Seed {
            value_reference: v.value_reference,
            element: v.element,
        })
        .collect()
}

impl StepDerivatives for Fmu3Instance {
    fn layout(&self) -> DerivativeLayout {
        self.adjoint_manifest()
            .map(|manifest| DerivativeLayout {
                inputs: seeds(&manifest.inputs),
                parameters: seeds(&manifest.parameters),
                outputs: seeds(&manifest.outputs),
                excluded: Vec::new(),
            })
            .unwrap_or_default()
    }

    fn state_size(&mut self) -> Result<usize> {
        Fmu3Instance::state_size(self)
    }

    fn keep_step_linearizations(&mut self, steps: usize) -> Result<bool> {
        Fmu3Instance::keep_step_linearizations(self, steps)
    }

    fn step_jvp(
        &mut self,
        step: f64,
        d_state: &[f64],
        d_inputs: &[f64],
        d_parameters: &[f64],
        d_state_next: &mut [f64],
        d_outputs_next: &mut [f64],
    ) -> Result<()> {
        let out = Fmu3Instance::step_jvp(self, step, d_state, d_inputs, d_parameters)?;
        self.copy_result(d_state_next, &out.state, "state")?;
        self.copy_result(d_outputs_next, &out.outputs, "outputs")?;
        Ok(())
    }

    fn step_vjp(
        &mut self,
        step: f64,
        bar_state_next: &[f64],
        bar_outputs_next: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let seeds = (bar_state_next, bar_outputs_next);
        let out = (bar_state, bar_inputs, bar_parameters);
        Fmu3Instance::step_vjp_into(self, step, seeds, out)
    }

    fn output_vjp(
        &mut self,
        bar_outputs: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let out = (bar_state, bar_inputs, bar_parameters);
        Fmu3Instance::output_vjp_into(self, bar_outputs, out)
    }

    fn initialization_vjp(
        &mut self,
        bar_state: &[f64],
        bar_outputs: &[f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let out = Fmu3Instance::initialization_vjp(self, bar_state, bar_outputs)?;
        self.copy_result(bar_inputs, &out.inputs, "inputs")?;
        self.copy_result(bar_parameters, &out.parameters, "parameters")?;
        Ok(())
    }
}
