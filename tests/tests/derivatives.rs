//! Exact partial derivatives of every model crate, through the FMI 2.0 and FMI 3.0 C ABI of its
//! shared library, against central finite differences taken through the same ABI.
//!
//! Unknowns are the state derivatives and the continuous outputs; knowns are the states, the
//! real inputs and the real parameters (fixed ones included), all read from the model's own
//! modelDescription.xml. The point is a generic one: every known is moved off its start value
//! (see [`point`]) so that nonlinear terms (the engine mount's cubic stiffness and damping,
//! van der Pol's `mu (1 - x0^2) x1`) contribute to every column. An FMI 3.0 array known has a
//! column per element (the state-space model's matrices).

mod common;

use common::checked::Checked;
use common::model::{count, elements, names, vrs, Element, Model};
use common::{randoms, Fmi2, Fmi3, Interface};
use fmu_export::fmi3::types::Fmi3Status;
use tandem_tests::fmus::FmiVersion;

/// Time of the point (the engine mount's sweep force is non-zero there).
const TIME: f64 = 0.3;

/// Relative size of the move off the start values.
const SPREAD: f64 = 0.1;

/// Relative step of the central differences: near the cube root of the machine epsilon, where
/// truncation (`step^2`) and rounding (`eps / step`) errors are both about 1e-10 relative.
const FD_STEP: f64 = 1e-5;

/// Required agreement of exact and finite-difference derivatives (see
/// [`Jacobians::entry_error`]).
const FD_TOLERANCE: f64 = 1e-6;

/// Entries smaller than this share of their row's largest scaled entry are compared
/// against that share instead of themselves (see [`Jacobians::entry_error`]).
const FLOOR: f64 = 1e-3;

/// Required agreement of `v^T (J w)` and `(J^T v)^T w` relative to `|v|^T |J| |w|`.
const ADJOINT_TOLERANCE: f64 = 1e-12;

/// The knowns' values at the test point, one per element: each start value `s` moved to
/// `s (1 + SPREAD r)` (or `SPREAD r` times the nominal where `s = 0`) for a pseudo-random `r`
/// in [-1, 1), then clamped into the variable's range.
fn point(model: &Model) -> Vec<f64> {
    let knowns = elements(&model.knowns());
    let r = randoms(7, knowns.len());
    knowns
        .iter()
        .zip(r)
        .map(|(e, r)| {
            let (s, v) = (e.start(), e.variable);
            let moved = if s != 0.0 {
                s * (1.0 + SPREAD * r)
            } else {
                SPREAD * r * v.nominal.unwrap_or(1.0)
            };
            moved.clamp(
                v.min.unwrap_or(f64::NEG_INFINITY),
                v.max.unwrap_or(f64::INFINITY),
            )
        })
        .collect()
}

/// The magnitude a known's finite-difference step is relative to: its value, or its nominal
/// where the value is zero.
fn scale(known: &Element, value: f64) -> f64 {
    if value != 0.0 {
        value.abs()
    } else {
        known.variable.nominal.unwrap_or(1.0)
    }
}

/// A fresh Model Exchange instance with inputs and parameters set before initialization, then
/// time and states set in continuous-time mode.
fn at<'m, I: Checked<'m>>(model: &'m Model, z: &[f64]) -> I {
    let inst = I::create(model, Interface::ModelExchange);
    let n = model.states().len();
    let rest = [model.inputs(), model.parameters()].concat();
    inst.set_values(&vrs(&rest), &z[n..]);
    inst.initialize_ok();
    inst.enter_continuous_time();
    inst.set_time_and_states(TIME, &z[..n]);
    inst
}

/// The Jacobian `d unknowns / d knowns` (row-major) from one directional derivative per unit
/// seed, and the same from central differences.
struct Jacobians {
    rows: usize,
    cols: usize,
    exact: Vec<f64>,
    differences: Vec<f64>,
    /// The step scale of each known.
    scales: Vec<f64>,
}

/// The exact Jacobian at [`point`], column by column through fmiGetDirectionalDerivative,
/// and the knowns' scales.
fn exact_jacobian<'m, I: Checked<'m>>(model: &'m Model) -> (Vec<f64>, Vec<f64>) {
    let (knowns, unknowns) = (model.knowns(), model.unknowns());
    let (known_vrs, unknown_vrs) = (vrs(&knowns), vrs(&unknowns));
    let (rows, cols) = (unknowns.len(), count(&knowns));
    let z = point(model);
    let inst: I = at(model, &z);
    let mut exact = vec![0.0; rows * cols];
    for j in 0..cols {
        let mut seed = vec![0.0; cols];
        seed[j] = 1.0;
        let column = inst.directional_ok(&unknown_vrs, &known_vrs, &seed);
        for i in 0..rows {
            exact[i * cols + j] = column[i];
        }
    }
    let scales = elements(&knowns)
        .iter()
        .zip(&z)
        .map(|(k, &v)| scale(k, v))
        .collect();
    (exact, scales)
}

/// Both Jacobians at [`point`]; each difference evaluates a fresh instance at the point with
/// one known moved by `+-FD_STEP` times its scale.
fn jacobians<'m, I: Checked<'m>>(model: &'m Model) -> Jacobians {
    let (exact, scales) = exact_jacobian::<I>(model);
    let unknown_vrs = vrs(&model.unknowns());
    let (rows, cols) = (unknown_vrs.len(), scales.len());
    let z = point(model);
    let mut differences = vec![0.0; rows * cols];
    for j in 0..cols {
        let (mut plus, mut minus) = (z.clone(), z.clone());
        plus[j] += FD_STEP * scales[j];
        minus[j] -= FD_STEP * scales[j];
        let y_plus = at::<I>(model, &plus).values(&unknown_vrs);
        let y_minus = at::<I>(model, &minus).values(&unknown_vrs);
        for i in 0..rows {
            differences[i * cols + j] = (y_plus[i] - y_minus[i]) / (plus[j] - minus[j]);
        }
    }
    Jacobians {
        rows,
        cols,
        exact,
        differences,
        scales,
    }
}

impl Jacobians {
    /// The error of entry `(i, j)`: `|J_ij - D_ij| / (|J_ij| + FLOOR r_i / s_j)`, where `s_j` is
    /// known `j`'s scale and `r_i = max_k max(|J_ik|, |D_ik|) s_k` is the largest change of
    /// unknown `i` under a relative change of one known.
    ///
    /// Why per row: the entries of a row share the unknown's unit once multiplied by `s_j`,
    /// and the rounding error of a difference quotient is proportional to the unknown's size,
    /// `eps |y_i| / (FD_STEP s_j)`, not to other unknowns in the same column. An entry that is
    /// tiny against its row (down to an exact zero) is thus held to `FD_TOLERANCE * FLOOR` of
    /// the row's scale, about 50 times that rounding level when `|y_i|` is of the order of
    /// `r_i`, while every entry that matters is held to `FD_TOLERANCE` relative to itself.
    fn entry_error(&self, i: usize, j: usize) -> f64 {
        let magnitude = |m: &[f64], k: usize| m[i * self.cols + k].abs();
        let r = (0..self.cols)
            .map(|k| {
                magnitude(&self.exact, k).max(magnitude(&self.differences, k)) * self.scales[k]
            })
            .fold(0.0, f64::max);
        let (exact, fd) = (
            self.exact[i * self.cols + j],
            self.differences[i * self.cols + j],
        );
        let denominator = exact.abs() + FLOOR * r / self.scales[j];
        if denominator == 0.0 {
            // The whole row is zero both ways.
            0.0
        } else {
            (exact - fd).abs() / denominator
        }
    }

    /// The largest entry error and where it is.
    fn worst(&self) -> (f64, usize, usize) {
        (0..self.rows)
            .flat_map(|i| (0..self.cols).map(move |j| (i, j)))
            .map(|(i, j)| (self.entry_error(i, j), i, j))
            .fold((0.0, 0, 0), |a, b| if b.0 > a.0 { b } else { a })
    }
}

/// Checks every model's directional derivatives through `version`'s C ABI against central
/// differences.
fn directional_derivatives_match_central_differences(version: FmiVersion) {
    let mut failures = Vec::new();
    for model in Model::all(version) {
        let jac = match version {
            FmiVersion::Fmi2 => jacobians::<Fmi2>(&model),
            FmiVersion::Fmi3 => jacobians::<Fmi3>(&model),
        };
        let (error, i, j) = jac.worst();
        let (unknowns, knowns) = (names(&model.unknowns()), names(&model.knowns()));
        eprintln!(
            "{} {}: {}x{} Jacobian, worst entry error {error:.2e} (d {} / d {})",
            model.package,
            version.folder(),
            jac.rows,
            jac.cols,
            unknowns[i],
            knowns[j]
        );
        if error > FD_TOLERANCE {
            failures.push(format!(
                "{}: d {} / d {}: exact {:e}, central difference {:e} (error {error:e})",
                model.package,
                unknowns[i],
                knowns[j],
                jac.exact[i * jac.cols + j],
                jac.differences[i * jac.cols + j]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fmi2_directional_derivatives_of_every_model_match_central_differences() {
    directional_derivatives_match_central_differences(FmiVersion::Fmi2);
}

#[test]
fn fmi3_directional_derivatives_of_every_model_match_central_differences() {
    directional_derivatives_match_central_differences(FmiVersion::Fmi3);
}

/// `v^T (J w) = (J^T v)^T w` for pseudo-random `v`, `w`, with `J w` from
/// fmi3GetDirectionalDerivative and `J^T v` from fmi3GetAdjointDerivative. The seeds are
/// scaled so that every known and every unknown weighs in: `w_j = r s_j`, `v_i = r / r_i`
/// (scales as in [`Jacobians::entry_error`]). Both sides are sums of the same products
/// `v_i J_ij w_j`, so they may differ only by rounding, bounded by a small multiple of
/// `eps sum_ij |v_i| |J_ij| |w_j|`, the denominator of the check.
#[test]
fn fmi3_adjoint_derivatives_of_every_model_are_transposed_directional_derivatives() {
    let mut failures = Vec::new();
    for model in Model::all(FmiVersion::Fmi3) {
        let (exact, scales) = exact_jacobian::<Fmi3>(&model);
        let (known_vrs, unknown_vrs) = (vrs(&model.knowns()), vrs(&model.unknowns()));
        let inst: Fmi3 = at(&model, &point(&model));
        let (n, m) = (scales.len(), unknown_vrs.len());
        let row_scale: Vec<f64> = (0..m)
            .map(|i| {
                (0..n)
                    .map(|j| exact[i * n + j].abs() * scales[j])
                    .fold(0.0, f64::max)
            })
            .map(|r| if r > 0.0 { r } else { 1.0 })
            .collect();
        let mut worst: f64 = 0.0;
        for seed in 1..8 {
            let w: Vec<f64> = randoms(seed, n)
                .iter()
                .zip(&scales)
                .map(|(r, s)| r * s)
                .collect();
            let v: Vec<f64> = randoms(seed + 1000, m)
                .iter()
                .zip(&row_scale)
                .map(|(r, s)| r / s)
                .collect();
            let jw = inst.directional_ok(&unknown_vrs, &known_vrs, &w);
            let (status, jtv) = inst.product_values(true, &unknown_vrs, &known_vrs, &v, n);
            assert_eq!(
                status,
                Fmi3Status::Ok,
                "{}: {:?}",
                model.package,
                inst.messages.all()
            );
            let lhs: f64 = v.iter().zip(&jw).map(|(a, b)| a * b).sum();
            let rhs: f64 = jtv.iter().zip(&w).map(|(a, b)| a * b).sum();
            let magnitude: f64 = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| (v[i] * exact[i * n + j] * w[j]).abs())
                .sum();
            assert!(magnitude > 0.0, "{}: the Jacobian is zero", model.package);
            let error = (lhs - rhs).abs() / magnitude;
            worst = worst.max(error);
            if error > ADJOINT_TOLERANCE {
                failures.push(format!(
                    "{} seed {seed}: v.(Jw) = {lhs:e}, (J^T v).w = {rhs:e}, relative {error:e}",
                    model.package
                ));
            }
        }
        eprintln!(
            "{} fmi3: worst adjoint identity error {worst:.2e}",
            model.package
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
