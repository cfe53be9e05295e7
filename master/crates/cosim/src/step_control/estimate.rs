//! The error estimate of a macro step: over the step an input connected to an output gets the
//! schedule's extrapolation of the output's earlier values (ZOH, FOH, SOH), and at the step's
//! end the output's own value is known. Their difference there is the error the coupling made
//! in that input, of order `p + 1` in the step for a hold of degree `p` (the local error of
//! the extrapolation polynomial), the estimate of co-simulation step-size control (Schierz,
//! Arnold and Clauß 2012, "Co-simulation with communication step size control in an FMI
//! compatible master algorithm").
//!
//! An output that depends directly on an input of its component (direct feedthrough) is left
//! out: read at the step's end with its inputs extrapolated from the start, it lags its
//! inputs by a step, so its change over a step depends on the step before, not on this one.
//! Its error is its inputs' error, estimated at their sources. Where every connected output
//! has direct feedthrough, all are estimated.

use crate::schedule::CoSimulation;
use crate::system::{depends_directly, Port, System};
use fmi_host::model_description::Variability;

/// The connected continuous floats of a system, and what a step's estimate needs of them.
pub struct CouplingError {
    /// Each connected output once, with its scale floor (its nominal value, else 1).
    outputs: Vec<(Port, f64)>,
    /// Their values extrapolated to the end of the step being taken.
    predicted: Vec<f64>,
    /// Their scales: the largest magnitude each had at an accepted point so far, at least the
    /// floor.
    scales: Vec<f64>,
}

impl CouplingError {
    /// The estimate over the connections of `system` that carry continuous floats.
    pub fn new(system: &System) -> Self {
        let mut outputs: Vec<(Port, f64, bool)> = Vec::new();
        for connection in &system.connections {
            let variable = connection.from.variable(&system.components);
            let continuous =
                variable.ty.is_float() && variable.variability == Variability::Continuous;
            let received = connection.to.variable(&system.components).ty.is_float();
            if continuous && received && !outputs.iter().any(|(p, ..)| *p == connection.from) {
                let nominal = variable.nominal.map_or(1.0, f64::abs);
                let feedthrough = feeds_through(system, connection.from);
                outputs.push((connection.from, nominal, feedthrough));
            }
        }
        let free = outputs.iter().any(|&(.., feedthrough)| !feedthrough);
        let outputs: Vec<(Port, f64)> = outputs
            .into_iter()
            .filter(|&(.., feedthrough)| !(free && feedthrough))
            .map(|(port, nominal, _)| (port, nominal))
            .collect();
        CouplingError {
            predicted: vec![0.0; outputs.len()],
            scales: outputs.iter().map(|&(_, floor)| floor).collect(),
            outputs,
        }
    }

    /// The order of the estimate in the step under `system`'s schedule.
    pub fn order(system: &System) -> f64 {
        system.schedule.extrapolation.degree() as f64 + 1.0
    }

    /// Before the step to `to`, from the accepted point reached: what the inputs will be
    /// given at its end.
    pub fn predict(&mut self, cosimulation: &CoSimulation, to: f64) {
        for ((port, _), (predicted, scale)) in self
            .outputs
            .iter()
            .zip(self.predicted.iter_mut().zip(&mut self.scales))
        {
            *predicted = cosimulation.extrapolated(*port, to);
            *scale = scale.max(cosimulation.value(*port).abs());
        }
    }

    /// After the step: the largest error of a connected output at its end, relative to
    /// `tolerance` times its scale (the largest magnitude it had so far, this value included,
    /// and at least its nominal value): a relative error of the output's range, which a
    /// value crossing zero does not inflate. The step is accurate enough at 1 or below.
    pub fn error(&self, cosimulation: &CoSimulation, tolerance: f64) -> f64 {
        self.outputs
            .iter()
            .zip(self.predicted.iter().zip(&self.scales))
            .map(|((port, _), (&predicted, &scale))| {
                let value = cosimulation.value(*port);
                (value - predicted).abs() / (tolerance * scale.max(value.abs()))
            })
            .fold(0.0, f64::max)
    }
}

/// Whether `output` depends directly on a connected input of its component.
fn feeds_through(system: &System, output: Port) -> bool {
    let md = system.components[output.component].fmu.model_description();
    system
        .connections
        .iter()
        .filter(|c| c.to.component == output.component)
        .any(|c| depends_directly(md, output.variable, c.to.variable))
}
