//! ECCO, the energy-conservation-based step-size control of Sadjina et al. ("Energy
//! conservation and power bonds in co-simulations: non-iterative adaptive step size control
//! and error estimation", Engineering with Computers 33, 2017), as libcosim ships it: no step
//! is taken back, so it works with any FMU that accepts steps of any length. Over the macro
//! step that just ended, bond `i` had the residual power `dP_i` ([`crate::energy::monitor`])
//! and carried the power `P_i`, the larger of what its flow side received (`f_k . v_{k+1}`)
//! and its effort side delivered (`f_{k+1} . v_k`). The step's error is the root mean square
//! over the bonds of `|dP_i| / (tolerance P_i*)`, `P_i*` the largest power the bond carried so
//! far (a power crossing zero does not inflate the error), and the controller
//! ([`super::Controller`], order 1: the residual power of a hold grows with the step) chooses
//! the next step from it.

use crate::energy::monitor::{dot, residual_power};
use crate::schedule::CoSimulation;
use crate::system::{Port, System};

/// The bonds' efforts and flows at the latest macro point, and their peak powers.
pub struct Ecco {
    /// Per bond, its effort and flow ports.
    bonds: Vec<(Vec<Port>, Vec<Port>)>,
    /// Per bond, the effort and flow values at the latest point.
    efforts: Vec<Vec<f64>>,
    flows: Vec<Vec<f64>>,
    /// Per bond, the largest power it carried over a step so far.
    peaks: Vec<f64>,
    /// The values read at the point reached (kept for their capacity).
    effort: Vec<f64>,
    flow: Vec<f64>,
}

impl Ecco {
    /// The control of `system`'s power bonds, none without bonds.
    pub fn new(system: &System) -> Option<Self> {
        let bonds: Vec<_> = system
            .energy
            .as_ref()?
            .bonds
            .iter()
            .map(|bond| (bond.effort.clone(), bond.flow.clone()))
            .collect();
        if bonds.is_empty() {
            return None;
        }
        let sized = |pick: fn(&(Vec<Port>, Vec<Port>)) -> usize| -> Vec<Vec<f64>> {
            bonds.iter().map(|b| vec![0.0; pick(b)]).collect()
        };
        Some(Ecco {
            efforts: sized(|b| b.0.len()),
            flows: sized(|b| b.1.len()),
            peaks: vec![0.0; bonds.len()],
            effort: Vec::new(),
            flow: Vec::new(),
            bonds,
        })
    }

    /// Reads the bonds' efforts and flows at the point `cosimulation` reached.
    pub fn start(&mut self, cosimulation: &CoSimulation) {
        for ((effort, flow), (efforts, flows)) in self
            .bonds
            .iter()
            .zip(self.efforts.iter_mut().zip(&mut self.flows))
        {
            read(cosimulation, effort, efforts);
            read(cosimulation, flow, flows);
        }
    }

    /// After a step to the point `cosimulation` reached: the step's error relative to
    /// `tolerance` (at most 1 is within it); the values there become the latest.
    pub fn error(&mut self, cosimulation: &CoSimulation, tolerance: f64) -> f64 {
        let mut sum = 0.0;
        for (i, (effort_ports, flow_ports)) in self.bonds.iter().enumerate() {
            read(cosimulation, effort_ports, &mut self.effort);
            read(cosimulation, flow_ports, &mut self.flow);
            let (effort, flow) = (&mut self.efforts[i], &mut self.flows[i]);
            let residual = residual_power(effort, flow, &self.effort, &self.flow);
            let carried = dot(effort, &self.flow)
                .abs()
                .max(dot(&self.effort, flow).abs());
            self.peaks[i] = self.peaks[i].max(carried);
            effort.copy_from_slice(&self.effort);
            flow.copy_from_slice(&self.flow);
            let scale = tolerance * self.peaks[i];
            let error = if scale > 0.0 {
                residual.abs() / scale
            } else {
                0.0
            };
            sum += error * error;
        }
        (sum / self.bonds.len() as f64).sqrt()
    }
}

/// The values of `ports` at the point reached, into `values`.
fn read(cosimulation: &CoSimulation, ports: &[Port], values: &mut Vec<f64>) {
    values.clear();
    values.extend(ports.iter().map(|&port| cosimulation.value(port)));
}
