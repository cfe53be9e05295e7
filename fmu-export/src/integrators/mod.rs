//! Co-simulation integrators embedded in `doStep`, each in residual form.
//! (Placeholder contract: replaced by the real implementations.)

use crate::declaration::Declaration;
use crate::mechanical_system::MechanicalSystem;
use crate::mechanics::MechanicalModel;
use crate::system::{Integrator, StepError, StepInputs, StepReport, System};

/// L-stable SDIRK with error control for first-order systems.
#[derive(Clone, Debug)]
pub struct Sdirk {
    w: Vec<f64>,
}

impl Sdirk {
    /// An integrator configured from the model's declaration.
    pub fn new(_declaration: &Declaration) -> Self {
        Sdirk { w: Vec::new() }
    }
}

impl<S: System> Integrator<S> for Sdirk {
    fn initialize(&mut self, _: &S, _: f64, _: &[f64], _: &StepInputs<f64>, _: &[f64], _: &[f64]) -> Result<(), StepError> {
        todo!()
    }
    fn do_step(&mut self, _: &S, _: f64, _: f64, _: &StepInputs<f64>, _: &[f64], _: &mut [f64]) -> Result<StepReport, StepError> {
        todo!()
    }
    fn state(&self) -> &[f64] {
        &self.w
    }
    fn set_state(&mut self, w: &[f64]) {
        self.w = w.to_vec();
    }
    fn continuous_state(&self, _: &mut [f64]) {
        todo!()
    }
    fn outputs(&self, _: &S, _: f64, _: &[f64], _: &[f64], _: &[f64], _: &mut [f64]) {
        todo!()
    }
}

/// HHT-alpha or symplectic Euler for mechanical systems.
#[derive(Clone, Debug)]
pub struct MechanicalIntegrator {
    w: Vec<f64>,
}

impl MechanicalIntegrator {
    /// An integrator configured from the model's declaration, `n` coordinates, `m` constraints.
    pub fn new(_declaration: &Declaration, _n: usize, _m: usize) -> Self {
        MechanicalIntegrator { w: Vec::new() }
    }
}

impl<M: MechanicalModel> Integrator<MechanicalSystem<M>> for MechanicalIntegrator {
    fn initialize(&mut self, _: &MechanicalSystem<M>, _: f64, _: &[f64], _: &StepInputs<f64>, _: &[f64], _: &[f64]) -> Result<(), StepError> {
        todo!()
    }
    fn do_step(&mut self, _: &MechanicalSystem<M>, _: f64, _: f64, _: &StepInputs<f64>, _: &[f64], _: &mut [f64]) -> Result<StepReport, StepError> {
        todo!()
    }
    fn state(&self) -> &[f64] {
        &self.w
    }
    fn set_state(&mut self, w: &[f64]) {
        self.w = w.to_vec();
    }
    fn continuous_state(&self, _: &mut [f64]) {
        todo!()
    }
    fn outputs(&self, _: &MechanicalSystem<M>, _: f64, _: &[f64], _: &[f64], _: &[f64], _: &mut [f64]) {
        todo!()
    }
}
