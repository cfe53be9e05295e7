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
//!
//! Under implicit coupling the inputs interpolate instead, between converged values at both
//! ends, and the error is the waveform's over the step, estimated at its middle where it is
//! largest: on the line, the deviation of the parabola through the values at the previous
//! point, the start and the end, `|c| H^2 / 4` with `c` their second divided difference
//! (order 2); on the Hermite cubic, its deviation from the parabola through both values and
//! the end's derivative, `|2 (y1 - y0) - H (r0 + r1)| / 8` (order 3, an upper estimate of the
//! cubic's order-4 error). Every connected output counts: converged values do not lag. The
//! first step has no earlier point to estimate from and is taken at the length asked for; a
//! cubic step without derivatives at its start takes the line's estimate.

use crate::coupling::Waveform;
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
    /// Under implicit coupling, its waveform, and the points the estimate reads.
    waveform: Option<Waveform>,
    /// The start of the step being taken: time, values, rates (NaN where none).
    start: Point,
    /// The accepted point before it (NaN time before there is one).
    previous: Point,
}

/// The connected outputs' values and rates at a point.
#[derive(Clone)]
struct Point {
    time: f64,
    values: Vec<f64>,
    rates: Vec<f64>,
}

impl Point {
    fn empty(len: usize) -> Self {
        Point {
            time: f64::NAN,
            values: vec![f64::NAN; len],
            rates: vec![f64::NAN; len],
        }
    }
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
        let waveform = system.schedule.implicit.map(|implicit| implicit.waveform);
        // Converged values do not lag their inputs: under implicit coupling all count.
        let free = waveform.is_none() && outputs.iter().any(|&(.., feedthrough)| !feedthrough);
        let outputs: Vec<(Port, f64)> = outputs
            .into_iter()
            .filter(|&(.., feedthrough)| !(free && feedthrough))
            .map(|(port, nominal, _)| (port, nominal))
            .collect();
        CouplingError {
            predicted: vec![0.0; outputs.len()],
            scales: outputs.iter().map(|&(_, floor)| floor).collect(),
            waveform,
            start: Point::empty(outputs.len()),
            previous: Point::empty(outputs.len()),
            outputs,
        }
    }

    /// The order of the estimate in the step under `system`'s schedule.
    pub fn order(system: &System) -> f64 {
        match system.schedule.implicit.map(|implicit| implicit.waveform) {
            None => system.schedule.extrapolation.degree() as f64 + 1.0,
            Some(Waveform::Line) => 2.0,
            Some(Waveform::Hermite) => 3.0,
        }
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
        // A step taken again after a rejection starts where the rejected one did.
        let time = cosimulation.time();
        if self.waveform.is_some() && time != self.start.time {
            std::mem::swap(&mut self.previous, &mut self.start);
            self.start.time = time;
            for (k, (port, _)) in self.outputs.iter().enumerate() {
                self.start.values[k] = cosimulation.value(*port);
                self.start.rates[k] = cosimulation.rate(*port);
            }
        }
    }

    /// After the step: the largest error of a connected output at its end, relative to
    /// `tolerance` times its scale (the largest magnitude it had so far, this value included,
    /// and at least its nominal value): a relative error of the output's range, which a
    /// value crossing zero does not inflate. The step is accurate enough at 1 or below.
    pub fn error(&self, cosimulation: &CoSimulation, tolerance: f64) -> f64 {
        let length = cosimulation.time() - self.start.time;
        self.outputs
            .iter()
            .enumerate()
            .map(|(k, (port, _))| {
                let value = cosimulation.value(*port);
                let error = match self.waveform {
                    None => (value - self.predicted[k]).abs(),
                    Some(waveform) => {
                        let rate = cosimulation.rate(*port);
                        self.waveform_error(waveform, k, value, rate, length)
                    }
                };
                error / (tolerance * self.scales[k].max(value.abs()))
            })
            .fold(0.0, f64::max)
    }

    /// The middle-of-step error of output `k`'s waveform over a step of `length` to `value`
    /// (with the time derivative `rate` there); 0 on the first step, which has no earlier
    /// point.
    fn waveform_error(
        &self,
        waveform: Waveform,
        k: usize,
        value: f64,
        rate: f64,
        length: f64,
    ) -> f64 {
        let (y0, r0) = (self.start.values[k], self.start.rates[k]);
        let cubic = (2.0 * (value - y0) - length * (r0 + rate)).abs() / 8.0;
        if waveform == Waveform::Hermite && cubic.is_finite() {
            return cubic;
        }
        let before = self.start.time - self.previous.time;
        let slopes = (value - y0) / length - (y0 - self.previous.values[k]) / before;
        let line = (slopes / (length + before)).abs() * length * length / 4.0;
        if line.is_finite() {
            line
        } else {
            0.0
        }
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
