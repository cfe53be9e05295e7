//! One directional derivative of an FMU with its arrays kept: the product the direct
//! feedthrough ([`super::feedthrough`]) and the time derivatives of observed values
//! ([`super::rates`]) each take at a communication point.

use crate::error::Result;
use fmi_host::instance::FmuInstance;

/// `sensitivity = d unknowns / d knowns * seed` at an instance's current point, by value
/// reference.
pub struct DirectionalProduct {
    /// The variables differentiated by.
    pub knowns: Vec<u32>,
    /// The variables differentiated.
    pub unknowns: Vec<u32>,
    /// Written by the caller before [`DirectionalProduct::compute`] (one entry per known).
    pub seed: Vec<f64>,
    /// Written by [`DirectionalProduct::compute`] (one entry per unknown).
    pub sensitivity: Vec<f64>,
}

impl DirectionalProduct {
    /// The product of `unknowns` by `knowns`, its seed zero.
    pub fn new(knowns: Vec<u32>, unknowns: Vec<u32>) -> Self {
        DirectionalProduct {
            seed: vec![0.0; knowns.len()],
            sensitivity: vec![0.0; unknowns.len()],
            knowns,
            unknowns,
        }
    }

    /// Computes the sensitivity from the seed (no call without unknowns).
    pub fn compute(&mut self, instance: &mut dyn FmuInstance) -> Result<()> {
        if !self.unknowns.is_empty() {
            instance.get_directional_derivative(
                &self.unknowns,
                &self.knowns,
                &self.seed,
                &mut self.sensitivity,
            )?;
        }
        Ok(())
    }
}
