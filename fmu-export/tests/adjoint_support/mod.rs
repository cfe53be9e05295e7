//! Helpers shared by the adjoint tests: reproducible pseudo-random directions and the
//! JVP/VJP duality check.
#![allow(dead_code)]

use fmu_export::adjoint::CommunicationLinearization;

/// `n` reproducible numbers in `[-1, 1)` (xorshift), different for each `seed`.
pub fn directions(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `|v^T (J w) - (J^T v)^T w|` relative to the magnitude of the terms, for a random seed `v`
/// and random tangents `w` of (state, inputs, parameters) scaled by `scales`.
pub fn duality_defect(step: &CommunicationLinearization, scales: [f64; 3], seed: u64) -> f64 {
    let scaled = |n: usize, s: f64, k: u64| -> Vec<f64> {
        directions(n, seed + k).iter().map(|v| v * s).collect()
    };
    let dw = scaled(step.state_len(), scales[0], 1);
    let du = scaled(step.inputs_len(), scales[1], 2);
    let dp = scaled(step.params_len(), scales[2], 3);
    let v = directions(step.state_len(), seed + 4);
    let forward = step.jvp(&dw, &du, &dp);
    let adjoint = step.vjp(&v);
    let lhs = dot(&v, &forward);
    let terms = [
        dot(&adjoint.state, &dw),
        dot(&adjoint.inputs, &du),
        dot(&adjoint.params, &dp),
    ];
    let rhs: f64 = terms.iter().sum();
    let magnitude = lhs
        .abs()
        .max(terms.iter().map(|t| t.abs()).fold(0.0, f64::max));
    (lhs - rhs).abs() / magnitude
}
