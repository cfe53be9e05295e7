//! Forward sensitivity outputs `d(y)/d(p)` of in-process Co-Simulation instances, and central
//! finite differences of the same instances' outputs (fresh runs with the parameter moved
//! before initialization) to check them against.

use fmu_export::instance::lifecycle::Kind;
use fmu_export::instance::logging::Silent;
use fmu_export::instance::Instance;
use fmu_export::variables::sensitivity_name;
use fmu_export::System;

/// Communication step of the runs.
pub const H: f64 = 1e-2;

/// Relative step of the central differences: their rounding error grows as the step shrinks
/// and dominates their truncation error down to here.
const DELTA: f64 = 1e-5;

/// Required agreement of sensitivities and differences, relative to the sensitivity (or to
/// [`FLOOR`] of the largest value of the same output's sensitivity, for entries near a zero).
pub const TOLERANCE: f64 = 1e-6;

/// See [`TOLERANCE`].
const FLOOR: f64 = 1e-3;

/// One run: the outputs and their sensitivities after every communication step.
pub struct Run {
    /// `outputs[k][i]`: output `i` after `k + 1` steps.
    pub outputs: Vec<Vec<f64>>,
    /// `sensitivities[k][s][i]`: `d(y_i)/d(p_s)` after `k + 1` steps (`p_s` the `s`-th listed
    /// sensitivity parameter).
    pub sensitivities: Vec<Vec<Vec<f64>>>,
}

/// Runs a co-simulation instance of `S` for `steps` communication steps, with the parameters
/// `changes` (name, value) set before initialization.
pub fn run<S: System>(steps: usize, changes: &[(&str, f64)]) -> Run {
    let mut instance = Instance::<S>::new(Kind::CoSimulation, Box::new(Silent), false);
    let table = instance.table().clone();
    let vr = |name: &str| {
        table
            .by_name(name)
            .unwrap_or_else(|| panic!("no variable {name}"))
            .vr
    };
    for &(name, value) in changes {
        instance.set_values(&[vr(name)], &[value]).unwrap();
    }
    instance.enter_initialization_mode().unwrap();
    instance.exit_initialization_mode().unwrap();
    let decl = instance.declaration().clone();
    let output_vrs: Vec<u32> = decl.outputs.iter().map(|y| vr(&y.name)).collect();
    let sensitivity_vrs: Vec<Vec<u32>> = decl
        .sensitivities
        .iter()
        .map(|&j| {
            let p = &decl.parameters[j].var.name;
            decl.outputs
                .iter()
                .map(|y| vr(&sensitivity_name(&y.name, p)))
                .collect()
        })
        .collect();
    let mut result = Run {
        outputs: Vec::new(),
        sensitivities: Vec::new(),
    };
    for k in 0..steps {
        instance.do_step(k as f64 * H, H).unwrap();
        let mut y = vec![0.0; output_vrs.len()];
        instance.get_values(&output_vrs, &mut y).unwrap();
        result.outputs.push(y);
        let dy_dp = sensitivity_vrs
            .iter()
            .map(|vrs| {
                let mut values = vec![0.0; vrs.len()];
                instance.get_values(vrs, &mut values).unwrap();
                values
            })
            .collect();
        result.sensitivities.push(dy_dp);
    }
    result
}

/// For every listed sensitivity parameter, the central differences of the outputs after every
/// step (`[s][k][i]`).
pub fn differences<S: System>(steps: usize) -> Vec<Vec<Vec<f64>>> {
    let decl = S::default().declaration().clone();
    decl.sensitivities
        .iter()
        .map(|&j| {
            let p = &decl.parameters[j].var;
            let dp = DELTA * p.start.abs();
            let plus = run::<S>(steps, &[(&p.name, p.start + dp)]);
            let minus = run::<S>(steps, &[(&p.name, p.start - dp)]);
            plus.outputs
                .iter()
                .zip(&minus.outputs)
                .map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b) / (2.0 * dp)).collect())
                .collect()
        })
        .collect()
}

/// The largest error of `exact` (`[s][k][i]`, as [`differences`]) against `reference`,
/// relative as [`TOLERANCE`] says.
pub fn relative_error(exact: &[Vec<Vec<f64>>], reference: &[Vec<Vec<f64>>]) -> f64 {
    let mut worst = 0.0_f64;
    for (e_s, r_s) in exact.iter().zip(reference) {
        let outputs = e_s[0].len();
        for i in 0..outputs {
            let largest = e_s.iter().map(|row| row[i].abs()).fold(0.0, f64::max);
            for (e, r) in e_s.iter().zip(r_s) {
                let scale = e[i].abs().max(FLOOR * largest);
                if scale > 0.0 {
                    worst = worst.max((e[i] - r[i]).abs() / scale);
                }
            }
        }
    }
    worst
}

/// `[k][s][i]` as `[s][k][i]`.
pub fn by_parameter(sensitivities: &[Vec<Vec<f64>>]) -> Vec<Vec<Vec<f64>>> {
    let count = sensitivities[0].len();
    (0..count)
        .map(|s| sensitivities.iter().map(|step| step[s].clone()).collect())
        .collect()
}
