//! The adjoint extension (docs/adjoint-extension.md) of every model crate through the C ABI of
//! its shared library, against finite differences of the FMU's own fmi3DoStep taken through
//! the same ABI:
//!
//! * step JVP against differences in the inputs and tunable parameters (set in step mode
//!   after restoring the FMU state at `t_k`); the state's columns, which no host can perturb
//!   (the state is opaque), through the duality `<bar, J d> = <J^T bar, d>` with the VJP;
//! * initialization VJP, alone and chained with step VJPs, against differences of fresh runs
//!   with each input and parameter (fixed ones included) set before initialization;
//! * output VJP against differences and against the step and initialization VJPs it composes
//!   with;
//! * the instance is unchanged by every call, and bad calls are Errors with a log line.
//!
//! Differences are Richardson-extrapolated central differences (truncation error of order
//! `step^4`), at the step chosen by [`differences`].
//!
//! A parameter array (the state-space model's matrices) is listed in the manifest once per
//! element, consecutively under the array's value reference; a known is one element, and
//! moving it sets the whole array with that element moved.

mod common;

use common::adjoint::{Cotangents, OutputVjp, StepJvp, StepVjp};
use common::model::{size, Element, Model};
use common::{randoms, Fmi2, Fmi3, Interface};
use fmu_export::fmi2::types::FMI2_CO_SIMULATION;
use fmu_export::fmi3::types::{Fmi3FmuState, Fmi3Status};
use tandem::import::{AdjointManifest, ManifestVariable};
use tandem::model_description::{Variability, Variable};
use tandem_tests::fmus::FmiVersion;

/// Relative size of the move of the inputs and parameters off their start values (see
/// [`Case::point`]).
const SPREAD: f64 = 0.05;

/// Communication steps taken from the start before the point a step is linearized at.
const STEPS_BEFORE: usize = 3;

/// The largest relative step of the finite differences; smaller ones are tried down to
/// [`SMALLEST_STEP`] by factors of 10 (see [`differences`]).
const LARGEST_STEP: f64 = 1e-2;

/// The smallest relative step of the finite differences.
const SMALLEST_STEP: f64 = 1e-8;

/// Differences at two consecutive steps that agree to this show a smooth map at the larger
/// step (see [`differences`]).
const SMOOTH: f64 = 1e-5;

/// The accuracy, relative to the values, to which the FMUs' implicit steps are solved (Newton
/// updates below 1e-10 of their scale, conditioning): a difference cannot resolve a change of
/// a value below this (see [`entry_error`]).
const SOLVER: f64 = 1e-11;

/// The uncertainty of the difference of an entry that matters (at least [`FLOOR`] of its
/// row's largest, and above what the solver resolves of its value) must be below this share
/// of the entry: the check must not rest on differences that resolve nothing.
const RESOLVED: f64 = 1e-3;

/// Required agreement of exact and finite-difference derivatives (see [`entry_error`]).
const FD_TOLERANCE: f64 = 1e-6;

/// Entries smaller than this share of their row's largest scaled entry are compared against
/// that share instead of themselves.
const FLOOR: f64 = 1e-3;

/// Responses smaller than this share of the value they change (to a change of the known by
/// its whole scale) do not count in judging whether differences settled (see
/// [`differences`]): rounding in the value dominates them.
const NOISE: f64 = 1e-5;

/// Models whose first communication step from the start is error-controlled over many
/// internal steps (the ESDIRK controller starts from its largest step and shrinks it), with the
/// agreement their gradients after that step reach: the extension's derivatives hold the
/// accepted step sizes fixed (docs/adjoint-extension.md), differences of fresh runs follow the
/// controller. For crane-cylinder, 13 internal steps, the derivatives agree with differences
/// of the same steps replayed at fixed sizes to 1e-8; the controller's share is 2e-5.
const ADAPTIVE_FIRST_STEP: &[(&str, f64)] = &[("crane-cylinder", 1e-4)];

/// Required agreement of `<bar, J d>` and `<J^T bar, d>` relative to `sum |bar_i J_ij d_j|`,
/// and of the compositions of VJPs relative to their terms.
const ROUNDING_TOLERANCE: f64 = 1e-12;

/// A model crate with its adjoint manifest and the communication step it is tested with.
struct Case {
    model: Model,
    manifest: AdjointManifest,
    /// The default experiment's step size.
    h: f64,
}

/// Something a derivative is taken with respect to: an input or a parameter.
#[derive(Clone, Copy, Debug)]
enum Known {
    Input(usize),
    Param(usize),
}

impl Case {
    fn new(model: Model) -> Case {
        let manifest = model.adjoint_manifest();
        let h = model
            .description
            .default_experiment
            .as_ref()
            .and_then(|e| e.step_size)
            .unwrap_or(1e-3);
        Case { model, manifest, h }
    }

    fn all() -> Vec<Case> {
        Model::all(FmiVersion::Fmi3)
            .into_iter()
            .map(Case::new)
            .collect()
    }

    fn named(package: &str) -> Case {
        Case::new(Model::named(package, FmiVersion::Fmi3))
    }

    fn name(&self) -> &str {
        &self.model.package
    }

    fn n_state(&self) -> usize {
        self.manifest.n_state
    }

    fn n_inputs(&self) -> usize {
        self.manifest.inputs.len()
    }

    fn n_params(&self) -> usize {
        self.manifest.parameters.len()
    }

    fn n_outputs(&self) -> usize {
        self.manifest.outputs.len()
    }

    /// The model-description variable of a manifest entry.
    fn variable(&self, vr: u32) -> &Variable {
        self.model
            .description
            .variables
            .iter()
            .find(|v| v.value_reference == vr)
            .expect("the manifest was checked against the description")
    }

    fn known_vr(&self, known: Known) -> u32 {
        self.entry(known).value_reference
    }

    fn entry(&self, known: Known) -> &ManifestVariable {
        match known {
            Known::Input(i) => &self.manifest.inputs[i],
            Known::Param(j) => &self.manifest.parameters[j],
        }
    }

    /// The position of `known` in its variable's values: 0 for a scalar; for an array, the
    /// manifest lists the elements consecutively in row-major order under its value reference.
    fn element(&self, known: Known) -> usize {
        let (list, k) = match known {
            Known::Input(i) => (&self.manifest.inputs, i),
            Known::Param(j) => (&self.manifest.parameters, j),
        };
        let vr = list[k].value_reference;
        list[..k]
            .iter()
            .rev()
            .take_while(|v| v.value_reference == vr)
            .count()
    }

    fn known_name(&self, known: Known) -> String {
        let name = &self.entry(known).name;
        if self.variable(self.known_vr(known)).is_scalar() {
            name.clone()
        } else {
            format!("{name} (element {})", self.element(known))
        }
    }

    /// The values of `knowns`, read through fmi3GetFloat64.
    fn known_values(&self, inst: &Fmi3, knowns: &[Known]) -> Vec<f64> {
        knowns
            .iter()
            .map(|&k| {
                let vr = self.known_vr(k);
                let (status, values) = inst.get_float64_values(&[vr], size(self.variable(vr)));
                assert_eq!(status, Fmi3Status::Ok, "{}", self.name());
                values[self.element(k)]
            })
            .collect()
    }

    /// fmi3SetFloat64 of one known: an element of an array is set with the others as they are.
    fn set_known(&self, inst: &Fmi3, known: Known, value: f64) -> Fmi3Status {
        let vr = self.known_vr(known);
        let (status, mut values) = inst.get_float64_values(&[vr], size(self.variable(vr)));
        assert_eq!(status, Fmi3Status::Ok, "{}", self.name());
        values[self.element(known)] = value;
        inst.set_float64(&[vr], &values)
    }

    /// fmi3SetFloat64 of every known, `values` in [`Case::knowns`] order (the elements of an
    /// array are consecutive and complete there, so each array is set once, whole).
    fn set_knowns(&self, inst: &Fmi3, values: &[f64]) -> Fmi3Status {
        let mut vrs: Vec<u32> = self.knowns().iter().map(|&k| self.known_vr(k)).collect();
        vrs.dedup();
        inst.set_float64(&vrs, values)
    }

    /// Every input and parameter.
    fn knowns(&self) -> Vec<Known> {
        let inputs = (0..self.n_inputs()).map(Known::Input);
        inputs
            .chain((0..self.n_params()).map(Known::Param))
            .collect()
    }

    /// Whether an event indicator is exactly zero at the start of the test point (read through
    /// a Model Exchange instance).
    fn starts_on_an_event_surface(&self) -> bool {
        let n = self.model.description.number_of_event_indicators();
        if n == 0 {
            return false;
        }
        let inst = Fmi3::instantiate(
            &self.model.fmu,
            Interface::ModelExchange,
            self.model.token(),
        )
        .unwrap_or_else(|log| panic!("{}: instantiate: {log:#?}", self.name()));
        assert_eq!(
            self.set_knowns(&inst, &self.point()),
            Fmi3Status::Ok,
            "{}",
            self.name()
        );
        assert_eq!(inst.initialize(), Fmi3Status::Ok, "{}", self.name());
        let (status, z) = inst.array("fmi3GetEventIndicators", n);
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        z.contains(&0.0)
    }

    /// The inputs and the tunable parameters: what a host may change in step mode.
    fn step_knowns(&self) -> Vec<Known> {
        self.knowns()
            .into_iter()
            .filter(|&k| match k {
                Known::Input(_) => true,
                Known::Param(_) => {
                    self.variable(self.known_vr(k)).variability == Variability::Tunable
                }
            })
            .collect()
    }

    /// The unit tangent of `known`, as `(dInputs, dParams)`.
    fn unit(&self, known: Known) -> (Vec<f64>, Vec<f64>) {
        let (mut du, mut dp) = (vec![0.0; self.n_inputs()], vec![0.0; self.n_params()]);
        match known {
            Known::Input(i) => du[i] = 1.0,
            Known::Param(j) => dp[j] = 1.0,
        }
        (du, dp)
    }

    /// The entry of `known` in input and parameter adjoints.
    fn pick(&self, known: Known, inputs: &[f64], params: &[f64]) -> f64 {
        match known {
            Known::Input(i) => inputs[i],
            Known::Param(j) => params[j],
        }
    }

    /// The magnitude a known's difference step is relative to: its value, or its nominal
    /// (else 1) where the value is zero.
    fn scale(&self, known: Known, value: f64) -> f64 {
        if value != 0.0 {
            value.abs()
        } else {
            self.variable(self.known_vr(known)).nominal.unwrap_or(1.0)
        }
    }

    /// The test point: every input and parameter (in [`Case::knowns`] order) moved off its
    /// start value `s` to `s (1 + SPREAD r)` (or `SPREAD r` times its nominal where `s = 0`)
    /// for a pseudo-random `r` in [-1, 1), clamped into its range, so that no term vanishes
    /// (a mass at rest with no force) and no controller sits at a degenerate point.
    fn point(&self) -> Vec<f64> {
        let knowns = self.knowns();
        knowns
            .iter()
            .zip(randoms(5, knowns.len()))
            .map(|(&k, r)| {
                let v = self.variable(self.known_vr(k));
                let s = Element {
                    variable: v,
                    index: self.element(k),
                }
                .start();
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

    /// A Co-Simulation instance at the test [`Case::point`], with `moved` (a known and its
    /// value) set after it, before initialization; initialized at t = 0.
    fn started(&self, moved: Option<(Known, f64)>) -> Fmi3<'_> {
        let inst = Fmi3::instantiate(&self.model.fmu, Interface::CoSimulation, self.model.token())
            .unwrap_or_else(|log| panic!("{}: instantiate: {log:#?}", self.name()));
        assert_eq!(
            self.set_knowns(&inst, &self.point()),
            Fmi3Status::Ok,
            "{}",
            self.name()
        );
        if let Some((known, value)) = moved {
            assert_eq!(
                self.set_known(&inst, known, value),
                Fmi3Status::Ok,
                "{}",
                self.name()
            );
        }
        assert_eq!(
            inst.initialize(),
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        inst
    }

    /// A started instance after `steps` communication steps, and its time.
    fn after(&self, inst: &Fmi3, steps: usize) -> f64 {
        let mut t = 0.0;
        for _ in 0..steps {
            self.step(inst, t);
            t += self.h;
        }
        t
    }

    /// One communication step from `t`, which must succeed.
    fn step(&self, inst: &Fmi3, t: f64) {
        let (status, _) = inst.do_step(t, self.h);
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{} step at t = {t}: {:#?}",
            self.name(),
            inst.messages.all()
        );
    }

    /// The discrete state and the manifest's outputs, one vector.
    fn results(&self, inst: &Fmi3) -> Vec<f64> {
        let (status, mut values) = inst.discrete_state(self.n_state());
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        values.extend(self.outputs(inst));
        values
    }

    fn outputs(&self, inst: &Fmi3) -> Vec<f64> {
        let (status, y) = inst.get_float64(&self.manifest.output_references());
        assert_eq!(status, Fmi3Status::Ok, "{}", self.name());
        y
    }

    /// `(dw_k+1, dy_k+1)` as one vector, for the tangent `(dw, du, dp)`.
    fn jvp(&self, inst: &Fmi3, dw: &[f64], du: &[f64], dp: &[f64]) -> Vec<f64> {
        let (status, mut dw_next, dy_next) = inst.step_jvp(self.h, dw, du, dp, self.n_outputs());
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        dw_next.extend(dy_next);
        dw_next
    }

    fn vjp(&self, inst: &Fmi3, w_bar: &[f64], y_bar: &[f64]) -> Cotangents {
        let (status, out) = inst.step_vjp(self.h, w_bar, y_bar, self.n_inputs(), self.n_params());
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        out
    }

    fn output_vjp(&self, inst: &Fmi3, y_bar: &[f64]) -> Cotangents {
        let (status, out) =
            inst.output_vjp(y_bar, self.n_state(), self.n_inputs(), self.n_params());
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        out
    }

    fn initialization_vjp(
        &self,
        inst: &Fmi3,
        w_bar: &[f64],
        y_bar: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let (status, u_bar, p_bar) =
            inst.initialization_vjp(w_bar, y_bar, self.n_inputs(), self.n_params());
        assert_eq!(
            status,
            Fmi3Status::Ok,
            "{}: {:#?}",
            self.name(),
            inst.messages.all()
        );
        (u_bar, p_bar)
    }

    /// Pseudo-random seeds for `(w, y)` with `values`, each divided by its value's
    /// [`magnitudes`] so that every entry weighs in.
    fn seeds(&self, seed: u64, values: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let bar: Vec<f64> = randoms(seed, values.len())
            .iter()
            .zip(magnitudes(values))
            .map(|(r, m)| r / m)
            .collect();
        let (w, y) = bar.split_at(self.n_state());
        (w.to_vec(), y.to_vec())
    }

    /// The scales of the knowns at their values.
    fn scales(&self, knowns: &[Known], values: &[f64]) -> Vec<f64> {
        knowns
            .iter()
            .zip(values)
            .map(|(&k, &v)| self.scale(k, v))
            .collect()
    }
}

/// The magnitude of each of `values`: its absolute value, at least a thousandth of the largest
/// (1 where all are zero).
fn magnitudes(values: &[f64]) -> Vec<f64> {
    let largest = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let floor = if largest > 0.0 { 1e-3 * largest } else { 1.0 };
    values.iter().map(|v| v.abs().max(floor)).collect()
}

/// The Richardson-extrapolated central difference `(4 D(step / 2) - D(step)) / 3` of `f` at `x`.
fn richardson(x: f64, step: f64, f: &mut impl FnMut(f64) -> Vec<f64>) -> Vec<f64> {
    let mut central = |h: f64| -> Vec<f64> {
        let (up, down) = (f(x + h), f(x - h));
        up.iter()
            .zip(&down)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect()
    };
    let (coarse, fine) = (central(step), central(step / 2.0));
    fine.iter()
        .zip(&coarse)
        .map(|(f, c)| (4.0 * f - c) / 3.0)
        .collect()
}

/// A derivative by differences, with an estimate of its own error.
struct Difference {
    /// The estimate, one entry per value differentiated.
    value: Vec<f64>,
    /// Entry by entry, `|estimate - estimate at the next smaller step|`: an estimate of its
    /// error (dominated by the smaller step's rounding).
    uncertainty: Vec<f64>,
}

/// The derivative of `f` (whose values at `x` are `values`) at `x`, a known of scale `scale`,
/// by Richardson-extrapolated central differences: at the largest relative step, from
/// [`LARGEST_STEP`] down to [`SMALLEST_STEP`] by factors of 10, whose estimate agrees with the
/// next smaller step's to [`SMOOTH`] (else where the two agree best). Large steps suffer from
/// truncation and, with error-controlled integrators, from perturbations that change the
/// accepted internal steps (the FMU's map is not differentiable across such a change); small
/// steps from rounding, amplified by the conditioning of the implicit steps. The choice does
/// not look at the exact derivative.
fn differences(
    x: f64,
    scale: f64,
    values: &[f64],
    mut f: impl FnMut(f64) -> Vec<f64>,
) -> Difference {
    let disagreement = |coarse: &[f64], fine: &[f64]| {
        coarse
            .iter()
            .zip(fine)
            .zip(values)
            .map(|((c, f), v)| {
                let denominator = f.abs() * scale + NOISE * v.abs();
                if denominator == 0.0 {
                    0.0
                } else {
                    (c - f).abs() * scale / denominator
                }
            })
            .fold(0.0, f64::max)
    };
    // Steps are tried from the largest until two consecutive ones agree.
    let mut step = LARGEST_STEP;
    let mut estimates = vec![richardson(x, step * scale, &mut f)];
    let mut best: Option<(f64, usize)> = None;
    while step / 10.0 >= SMALLEST_STEP * (1.0 - 1e-9) {
        step /= 10.0;
        estimates.push(richardson(x, step * scale, &mut f));
        let k = estimates.len() - 2;
        let found = disagreement(&estimates[k], &estimates[k + 1]);
        if best.is_none_or(|(least, _)| found < least) {
            best = Some((found, k));
        }
        if found <= SMOOTH {
            break;
        }
    }
    let (_, chosen) = best.expect("at least two steps");
    let uncertainty = estimates[chosen]
        .iter()
        .zip(&estimates[chosen + 1])
        .map(|(a, b)| (a - b).abs())
        .collect();
    Difference {
        uncertainty,
        value: estimates.swap_remove(chosen),
    }
}

/// The error of an exact derivative `exact` against its difference `fd` (with uncertainty
/// `uncertainty`), both with respect to a known of scale `scale`, of a value `value`, for the
/// tolerance `tol`: `|exact - fd| s / (|exact| s + FLOOR row + (uncertainty s + SOLVER |value|)
/// / tol)`, where `row` is the largest scaled entry of the same row (the largest change of
/// this value under a relative change of any known). So an entry passes (error at most `tol`)
/// if it agrees with its difference to `tol` relative, or to `tol` times [`FLOOR`] of its row,
/// or within the difference's own error and the solver's accuracy on the value.
fn entry_error(
    exact: f64,
    fd: f64,
    uncertainty: f64,
    scale: f64,
    row: f64,
    value: f64,
    tol: f64,
) -> f64 {
    let resolution = (uncertainty * scale + SOLVER * value.abs()) / tol;
    let denominator = exact.abs() * scale + FLOOR * row + resolution;
    if denominator == 0.0 {
        0.0
    } else {
        (exact - fd).abs() * scale / denominator
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Checks columns of derivatives (one per known, one entry per value) against their
/// differences with [`FD_TOLERANCE`].
fn compare_columns(
    case: &Case,
    what: &str,
    knowns: &[Known],
    scales: &[f64],
    exact: &[Vec<f64>],
    fd: &[Difference],
    values: &[f64],
) -> (f64, Vec<String>) {
    compare_columns_to(case, what, knowns, scales, exact, fd, values, FD_TOLERANCE)
}

/// Checks columns of derivatives against their differences with tolerance `tol`; returns the
/// worst error and a failure message per entry above tolerance or significant entry whose
/// difference is not resolved (see [`RESOLVED`]).
#[allow(clippy::too_many_arguments)]
fn compare_columns_to(
    case: &Case,
    what: &str,
    knowns: &[Known],
    scales: &[f64],
    exact: &[Vec<f64>],
    fd: &[Difference],
    values: &[f64],
    tol: f64,
) -> (f64, Vec<String>) {
    let (mut worst, mut failures) = (0.0_f64, Vec::new());
    for (i, &value) in values.iter().enumerate() {
        let row = (0..knowns.len())
            .map(|j| exact[j][i].abs().max(fd[j].value[i].abs()) * scales[j])
            .fold(0.0, f64::max);
        for (j, &known) in knowns.iter().enumerate() {
            let (e, d, u) = (exact[j][i], fd[j].value[i], fd[j].uncertainty[i]);
            let error = entry_error(e, d, u, scales[j], row, value, tol);
            worst = worst.max(error);
            let response = d.abs() * scales[j];
            let significant =
                response >= FLOOR * row && response * RESOLVED >= SOLVER * value.abs();
            if significant && u > RESOLVED * d.abs() {
                failures.push(format!(
                    "{}: {what} entry {i} by {}: the difference {d:e} is not resolved (+- {u:.1e})",
                    case.name(),
                    case.known_name(known),
                ));
            }
            if error > tol {
                failures.push(format!(
                    "{}: {what} entry {i} by {}: exact {e:e}, difference {d:e} +- {u:.1e} (error {error:.2e})",
                    case.name(),
                    case.known_name(known),
                ));
            }
        }
    }
    (worst, failures)
}

#[test]
fn the_state_size_is_the_manifest_s() {
    for case in Case::all() {
        let inst = case.started(None);
        let (status, n) = inst.state_size();
        assert_eq!(
            (status, n),
            (Fmi3Status::Ok, case.n_state()),
            "{}",
            case.name()
        );
        let (status, w) = inst.discrete_state(n);
        assert_eq!(status, Fmi3Status::Ok, "{}", case.name());
        assert!(w.iter().all(|v| v.is_finite()), "{}: {w:?}", case.name());
    }
}

/// `d(w_k+1, y_k+1) / d(u_k, p)` by tandemStepJvp against differences of fmi3DoStep from the
/// restored FMU state at `t_k` with one input or tunable parameter moved.
#[test]
fn step_jvp_matches_differences_of_do_step_in_inputs_and_tunable_parameters() {
    let mut failures = Vec::new();
    for case in Case::all() {
        let knowns = case.step_knowns();
        if knowns.is_empty() {
            eprintln!("{}: no input or tunable parameter", case.name());
            continue;
        }
        let inst = case.started(None);
        let t = case.after(&inst, STEPS_BEFORE);
        let at_t = inst.get_state();
        let base = case.known_values(&inst, &knowns);
        let zeros = vec![0.0; case.n_state()];
        let exact: Vec<Vec<f64>> = knowns
            .iter()
            .map(|&k| {
                let (du, dp) = case.unit(k);
                case.jvp(&inst, &zeros, &du, &dp)
            })
            .collect();
        let scales: Vec<f64> = knowns
            .iter()
            .zip(&base)
            .map(|(&k, &v)| case.scale(k, v))
            .collect();
        let stepped = |known: Known, value: f64| {
            assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
            assert_eq!(
                case.set_known(&inst, known, value),
                Fmi3Status::Ok,
                "{}",
                case.name()
            );
            case.step(&inst, t);
            case.results(&inst)
        };
        let values = stepped(knowns[0], base[0]);
        let fd: Vec<Difference> = (0..knowns.len())
            .map(|j| {
                let column = differences(base[j], scales[j], &values, |v| stepped(knowns[j], v));
                assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
                column
            })
            .collect();
        let (worst, found) = compare_columns(&case, "step", &knowns, &scales, &exact, &fd, &values);
        eprintln!(
            "{}: step at t = {t} over {}: {} x {} JVP columns, worst error {worst:.2e}",
            case.name(),
            case.h,
            values.len(),
            knowns.len()
        );
        failures.extend(found);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `<bar, J d> = <J^T bar, d>` over the whole step Jacobian (state columns included) for
/// pseudo-random seeds scaled by the magnitudes of the values they perturb or weigh (relative
/// tangents and adjoints). Both sides are sums of the same products `bar_i J_ij d_j`, so they
/// may differ only by rounding, bounded by a small multiple of `eps sum_ij |bar_i J_ij d_j|`
/// (times the conditioning of the implicit steps), the denominator of the check.
#[test]
fn step_vjp_is_the_transposed_step_jvp() {
    let mut failures = Vec::new();
    for case in Case::all() {
        let inst = case.started(None);
        let t = case.after(&inst, STEPS_BEFORE);
        let (ns, nu) = (case.n_state(), case.n_inputs());
        let knowns = case.knowns();
        let known_values = case.known_values(&inst, &knowns);
        let at_t = inst.get_state();
        let (_, w) = inst.discrete_state(ns);
        case.step(&inst, t);
        let next = case.results(&inst);
        assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
        let col_scale = [magnitudes(&w), case.scales(&knowns, &known_values)].concat();
        let row_scale = magnitudes(&next);
        let (cols, rows) = (col_scale.len(), row_scale.len());
        let split = |d: &[f64]| {
            (
                d[..ns].to_vec(),
                d[ns..ns + nu].to_vec(),
                d[ns + nu..].to_vec(),
            )
        };
        let columns: Vec<Vec<f64>> = (0..cols)
            .map(|j| {
                let mut d = vec![0.0; cols];
                d[j] = 1.0;
                let (dw, du, dp) = split(&d);
                case.jvp(&inst, &dw, &du, &dp)
            })
            .collect();
        let mut worst: f64 = 0.0;
        for seed in 1..5 {
            let d: Vec<f64> = randoms(seed, cols)
                .iter()
                .zip(&col_scale)
                .map(|(r, s)| r * s)
                .collect();
            let bar: Vec<f64> = randoms(seed + 100, rows)
                .iter()
                .zip(&row_scale)
                .map(|(r, s)| r / s)
                .collect();
            let (dw, du, dp) = split(&d);
            let lhs = dot(&bar, &case.jvp(&inst, &dw, &du, &dp));
            let cot = case.vjp(&inst, &bar[..ns], &bar[ns..]);
            let rhs = dot(&cot.state, &dw) + dot(&cot.inputs, &du) + dot(&cot.params, &dp);
            let magnitude: f64 = (0..rows)
                .flat_map(|i| (0..cols).map(move |j| (i, j)))
                .map(|(i, j)| (bar[i] * columns[j][i] * d[j]).abs())
                .sum();
            if magnitude == 0.0 {
                assert_eq!((lhs, rhs), (0.0, 0.0), "{}", case.name());
                continue;
            }
            let error = (lhs - rhs).abs() / magnitude;
            worst = worst.max(error);
            if error > ROUNDING_TOLERANCE {
                failures.push(format!(
                    "{} seed {seed}: <bar, J d> = {lhs:e}, <J^T bar, d> = {rhs:e} (relative {error:e})",
                    case.name()
                ));
            }
        }
        eprintln!(
            "{}: {rows} x {cols} step Jacobian, worst duality error {worst:.2e}",
            case.name()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The gradient of `<a, w_K> + <b, y_K>` after `steps` communication steps from the start
/// (0: the initialization alone) with respect to the inputs (set during initialization and
/// held) and the parameters: one tandemStepVjp per step backwards from the FMU states saved
/// at the communication points, then tandemInitializationVjp; and the same by differences of
/// fresh runs with each input or parameter moved before initialization.
fn check_trajectory_gradient(
    case: &Case,
    steps: usize,
    tol: f64,
    failures: &mut Vec<String>,
) -> f64 {
    let knowns = case.knowns();
    let inst = case.started(None);
    let mut points: Vec<Fmi3FmuState> = Vec::new();
    for k in 0..steps {
        points.push(inst.get_state());
        case.step(&inst, k as f64 * case.h);
    }
    let values = case.results(&inst);
    let (a, b) = case.seeds(7 + steps as u64, &values);
    let (mut w_bar, mut y_bar) = (a.clone(), b.clone());
    let (mut u_grad, mut p_grad) = (vec![0.0; case.n_inputs()], vec![0.0; case.n_params()]);
    for point in points.iter().rev() {
        assert_eq!(inst.set_state(*point), Fmi3Status::Ok);
        let cot = case.vjp(&inst, &w_bar, &y_bar);
        u_grad
            .iter_mut()
            .zip(&cot.inputs)
            .for_each(|(g, c)| *g += c);
        p_grad
            .iter_mut()
            .zip(&cot.params)
            .for_each(|(g, c)| *g += c);
        (w_bar, y_bar) = (cot.state, vec![0.0; case.n_outputs()]);
    }
    if let Some(start) = points.first() {
        assert_eq!(inst.set_state(*start), Fmi3Status::Ok);
    }
    let (u_init, p_init) = case.initialization_vjp(&inst, &w_bar, &y_bar);
    u_grad.iter_mut().zip(&u_init).for_each(|(g, c)| *g += c);
    p_grad.iter_mut().zip(&p_init).for_each(|(g, c)| *g += c);

    let base = case.point();
    let scales: Vec<f64> = knowns
        .iter()
        .zip(&base)
        .map(|(&k, &v)| case.scale(k, v))
        .collect();
    let exact: Vec<Vec<f64>> = knowns
        .iter()
        .map(|&k| vec![case.pick(k, &u_grad, &p_grad)])
        .collect();
    let functional = |j: usize, value: f64| {
        let run = case.started(Some((knowns[j], value)));
        case.after(&run, steps);
        let r = case.results(&run);
        vec![dot(&a, &r[..case.n_state()]) + dot(&b, &r[case.n_state()..])]
    };
    let value: f64 = a
        .iter()
        .chain(&b)
        .zip(&values)
        .map(|(s, v)| (s * v).abs())
        .sum();
    let fd: Vec<Difference> = (0..knowns.len())
        .map(|j| differences(base[j], scales[j], &[value], |v| functional(j, v)))
        .collect();
    let what = format!("gradient after {steps} step(s)");
    let (worst, found) =
        compare_columns_to(case, &what, &knowns, &scales, &exact, &fd, &[value], tol);
    failures.extend(found);
    worst
}

#[test]
fn initialization_and_first_step_gradients_match_differences_of_fresh_runs() {
    let mut failures = Vec::new();
    for case in Case::all() {
        if case.starts_on_an_event_surface() {
            eprintln!(
                "{}: an event indicator is zero at the start: whether the first step has an event \
                 depends on the perturbation, so differences of fresh runs are not defined",
                case.name()
            );
            continue;
        }
        let first_step = ADAPTIVE_FIRST_STEP
            .iter()
            .find(|(name, _)| *name == case.name())
            .map_or(FD_TOLERANCE, |&(_, tol)| tol);
        for (steps, tol) in [(0, FD_TOLERANCE), (1, first_step)] {
            let worst = check_trajectory_gradient(&case, steps, tol, &mut failures);
            eprintln!(
                "{}: gradient after {steps} step(s) in {} inputs and parameters, worst error {worst:.2e} (tolerance {tol:e})",
                case.name(),
                case.knowns().len()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Through a bounce: the impact time moves with `g` (fixed) and the rebound with `e`.
#[test]
fn the_bouncing_ball_s_gradient_through_its_impact_matches_differences() {
    let case = Case::named("bouncing-ball");
    // The ball dropped from 1 m hits the ground at sqrt(2 / 9.81) = 0.4515 s, in step 45.
    let mut failures = Vec::new();
    let worst = check_trajectory_gradient(&case, 47, FD_TOLERANCE, &mut failures);
    eprintln!("bouncing-ball: gradient through the impact, worst error {worst:.2e}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The outputs' VJP at a communication point against differences in the inputs and tunable
/// parameters (set in step mode, no step); its state part through the step and
/// initialization VJPs it composes with: seeding `y_k+1` in a step VJP equals seeding `w_k+1`
/// with the output VJP's state adjoint at `t_k+1`, and likewise at the start.
#[test]
fn output_vjp_matches_differences_and_composes_with_the_step_and_the_start() {
    let mut failures = Vec::new();
    for case in Case::all() {
        let inst = case.started(None);
        let start_point = inst.get_state();
        let t = case.after(&inst, STEPS_BEFORE);
        let at_t = inst.get_state();
        let y = case.outputs(&inst);
        let (_, b) = case.seeds(11, &[vec![0.0; case.n_state()], y.clone()].concat());
        let out = case.output_vjp(&inst, &b);
        let knowns = case.step_knowns();
        let base = case.known_values(&inst, &knowns);
        let scales: Vec<f64> = knowns
            .iter()
            .zip(&base)
            .map(|(&k, &v)| case.scale(k, v))
            .collect();
        let exact: Vec<Vec<f64>> = knowns
            .iter()
            .map(|&k| vec![case.pick(k, &out.inputs, &out.params)])
            .collect();
        let value: f64 = b.iter().zip(&y).map(|(s, v)| (s * v).abs()).sum();
        let fd: Vec<Difference> = (0..knowns.len())
            .map(|j| {
                let column = differences(base[j], scales[j], &[value], |v| {
                    assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
                    assert_eq!(case.set_known(&inst, knowns[j], v), Fmi3Status::Ok);
                    vec![dot(&b, &case.outputs(&inst))]
                });
                assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
                column
            })
            .collect();
        let (worst, found) =
            compare_columns(&case, "output", &knowns, &scales, &exact, &fd, &[value]);
        failures.extend(found);

        // At t_k+1: y seeded directly, or through the output VJP's state adjoint there.
        let zeros_w = vec![0.0; case.n_state()];
        let zeros_y = vec![0.0; case.n_outputs()];
        let direct = case.vjp(&inst, &zeros_w, &b);
        case.step(&inst, t);
        let at_end = case.output_vjp(&inst, &b);
        assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
        let through = case.vjp(&inst, &at_end.state, &zeros_y);
        let mut composed = [
            compose_error(&direct.state, &through.state, &zeros_w),
            compose_error(&direct.inputs, &through.inputs, &at_end.inputs),
            compose_error(&direct.params, &through.params, &at_end.params),
        ]
        .into_iter()
        .fold(0.0, f64::max);

        // At the start: the same with the initialization map.
        assert_eq!(inst.set_state(start_point), Fmi3Status::Ok);
        let (u_direct, p_direct) = case.initialization_vjp(&inst, &zeros_w, &b);
        let at_start = case.output_vjp(&inst, &b);
        let (u_through, p_through) = case.initialization_vjp(&inst, &at_start.state, &zeros_y);
        composed = composed
            .max(compose_error(&u_direct, &u_through, &at_start.inputs))
            .max(compose_error(&p_direct, &p_through, &at_start.params));
        if composed > ROUNDING_TOLERANCE {
            failures.push(format!(
                "{}: output VJP composition error {composed:e}",
                case.name()
            ));
        }
        eprintln!(
            "{}: output VJP worst error {worst:.2e} against differences, {composed:.2e} in compositions",
            case.name()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The largest `|direct - (through + extra)|` relative to `|through| + |extra|` (entrywise).
fn compose_error(direct: &[f64], through: &[f64], extra: &[f64]) -> f64 {
    direct
        .iter()
        .zip(through)
        .zip(extra)
        .map(|((d, t), e)| {
            let scale = t.abs() + e.abs();
            if scale == 0.0 {
                d.abs()
            } else {
                (d - (t + e)).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

/// Every extension call leaves the instance as it was: the discrete state, the outputs and the
/// next doStep are bit for bit those of an instance restored to the same point.
#[test]
fn the_calls_leave_the_instance_unchanged() {
    for case in Case::all() {
        let inst = case.started(None);
        let t = case.after(&inst, STEPS_BEFORE);
        let at_t = inst.get_state();
        let before = case.results(&inst);
        let (ns, nu, np, ny) = (
            case.n_state(),
            case.n_inputs(),
            case.n_params(),
            case.n_outputs(),
        );
        let (w, y) = case.seeds(3, &before);
        case.jvp(&inst, &w, &vec![1.0; nu], &vec![1.0; np]);
        case.vjp(&inst, &w, &y);
        case.output_vjp(&inst, &y);
        assert_eq!(inst.state_size(), (Fmi3Status::Ok, ns));
        assert_eq!(case.results(&inst), before, "{}", case.name());
        case.step(&inst, t);
        let after_calls = case.results(&inst);
        assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
        case.step(&inst, t);
        assert_eq!(case.results(&inst), after_calls, "{}", case.name());
        assert_eq!(after_calls.len(), ns + ny);
    }
}

/// With tandemKeepStepLinearizations, doStep keeps its steps' linearizations for the step VJPs
/// and JVPs: the steps and the derivatives from the saved states are bit for bit those of an
/// instance that keeps none, and a restored state with other inputs is linearized afresh.
#[test]
fn kept_step_linearizations_give_the_same_steps_and_derivatives() {
    const KEPT: usize = 2;
    for case in Case::all() {
        let name = case.name().to_string();
        assert!(
            case.manifest.has("keepStepLinearizations"),
            "{name}: capability listed"
        );
        let (keeping, plain) = (case.started(None), case.started(None));
        assert_eq!(
            keeping.keep_step_linearizations(KEPT),
            Fmi3Status::Ok,
            "{name}"
        );
        let mut points = Vec::new();
        for k in 0..KEPT {
            let t = k as f64 * case.h;
            points.push((keeping.get_state(), plain.get_state()));
            case.step(&keeping, t);
            case.step(&plain, t);
            assert_eq!(
                case.results(&keeping),
                case.results(&plain),
                "{name}: step {k}"
            );
        }
        let (w, y) = case.seeds(5, &case.results(&plain));
        let (du, dp) = (vec![0.5; case.n_inputs()], vec![0.25; case.n_params()]);
        for &(kept, fresh) in points.iter().rev() {
            assert_eq!(keeping.set_state(kept), Fmi3Status::Ok);
            assert_eq!(plain.set_state(fresh), Fmi3Status::Ok);
            assert_eq!(
                case.vjp(&keeping, &w, &y),
                case.vjp(&plain, &w, &y),
                "{name}: VJP"
            );
            let no_outputs = vec![0.0; case.n_outputs()];
            let (kept_vjp, fresh_vjp) = (
                case.vjp(&keeping, &w, &no_outputs),
                case.vjp(&plain, &w, &no_outputs),
            );
            assert_eq!(kept_vjp, fresh_vjp, "{name}: VJP without output seeds");
            let (dw_kept, dw_fresh) = (
                case.jvp(&keeping, &w, &du, &dp),
                case.jvp(&plain, &w, &du, &dp),
            );
            assert_eq!(dw_kept, dw_fresh, "{name}: JVP");
        }
        if case.n_inputs() > 0 {
            // Other inputs at a kept point: not the kept step's linearization.
            let (kept, fresh) = points[0];
            let inputs = case.manifest.input_references();
            let moved: Vec<f64> = (0..inputs.len()).map(|i| 0.3 + 0.1 * i as f64).collect();
            for (inst, state) in [(&keeping, kept), (&plain, fresh)] {
                assert_eq!(inst.set_state(state), Fmi3Status::Ok);
                assert_eq!(inst.set_float64(&inputs, &moved), Fmi3Status::Ok);
            }
            assert_eq!(
                case.vjp(&keeping, &w, &y),
                case.vjp(&plain, &w, &y),
                "{name}: moved inputs"
            );
        }
        assert_eq!(
            keeping.keep_step_linearizations(0),
            Fmi3Status::Ok,
            "{name}"
        );
    }
}

/// Wrong lengths, NULL or overlapping arrays, bad step sizes and calls in the wrong mode or on
/// the wrong kind of instance are Errors with a log line naming the problem; the instance
/// stays usable.
#[test]
fn bad_calls_are_errors_with_a_log_line() {
    let case = Case::named("pendulum");
    let (ns, nu, np, ny) = (
        case.n_state(),
        case.n_inputs(),
        case.n_params(),
        case.n_outputs(),
    );
    let expect_error = |inst: &Fmi3, status: Fmi3Status, log: &str| {
        assert_eq!(
            status,
            Fmi3Status::Error,
            "expected an Error logging {log:?}"
        );
        assert!(
            inst.messages.contains(log),
            "{log:?} not in {:#?}",
            inst.messages.all()
        );
    };

    // Before and during initialization, and on a Model Exchange instance.
    let fresh =
        Fmi3::instantiate(&case.model.fmu, Interface::CoSimulation, case.model.token()).unwrap();
    expect_error(
        &fresh,
        fresh.state_size().0,
        "tandemGetStateSize: not allowed in instantiated",
    );
    let (status, _) = fresh.step_vjp(case.h, &vec![0.0; ns], &vec![0.0; ny], nu, np);
    expect_error(&fresh, status, "tandemStepVjp: not allowed in instantiated");
    let me = Fmi3::instantiate(
        &case.model.fmu,
        Interface::ModelExchange,
        case.model.token(),
    )
    .unwrap();
    assert_eq!(me.initialize(), Fmi3Status::Ok);
    let (status, _) = me.output_vjp(&vec![0.0; ny], ns, nu, np);
    expect_error(&me, status, "tandemOutputVjp: is a Co-Simulation function");

    let inst = case.started(None);
    let (zw, zu, zp, zy) = (vec![0.0; ns], vec![0.0; nu], vec![0.0; np], vec![0.0; ny]);
    // Lengths that differ from the manifest.
    let (status, _, _) = inst.step_jvp(case.h, &vec![0.0; ns + 1], &zu, &zp, ny);
    expect_error(
        &inst,
        status,
        &format!(
            "nState = {}, but the model's adjoint manifest declares {ns}",
            ns + 1
        ),
    );
    let (status, _, _) = inst.step_jvp(case.h, &zw, &vec![0.0; nu + 1], &zp, ny);
    expect_error(&inst, status, &format!("nInputs = {}", nu + 1));
    let (status, _) = inst.step_vjp(case.h, &zw, &zy, nu, np - 1);
    expect_error(&inst, status, &format!("nParams = {}", np - 1));
    let (status, _, _) = inst.initialization_vjp(&zw, &vec![0.0; ny + 2], nu, np);
    expect_error(&inst, status, &format!("nOutputs = {}", ny + 2));
    let (status, _) = inst.discrete_state(ns - 1);
    expect_error(&inst, status, &format!("nState = {}", ns - 1));
    // Step sizes doStep would refuse.
    for h in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        let (status, _, _) = inst.step_jvp(h, &zw, &zu, &zp, ny);
        expect_error(&inst, status, "must be positive and finite");
    }
    // NULL and overlapping arrays.
    let jvp = inst.fmu.func::<StepJvp>("tandemStepJvp");
    let vjp = inst.fmu.func::<StepVjp>("tandemStepVjp");
    let output_vjp = inst.fmu.func::<OutputVjp>("tandemOutputVjp");
    let mut buffer = vec![0.0; ns + nu + np + ny];
    // SAFETY: every non-NULL pointer points to at least the length passed with it.
    unsafe {
        let p = buffer.as_mut_ptr();
        let null = std::ptr::null_mut::<f64>();
        let status = jvp(
            inst.i,
            case.h,
            zw.as_ptr(),
            ns,
            zu.as_ptr(),
            nu,
            zp.as_ptr(),
            np,
            null,
            p,
            ny,
        );
        expect_error(&inst, status, "argument dStateNext is NULL");
        let status = vjp(
            inst.i,
            case.h,
            null,
            ns,
            zy.as_ptr(),
            ny,
            p,
            p.add(ns),
            nu,
            p.add(ns + nu),
            np,
        );
        expect_error(&inst, status, "argument barStateNext is NULL");
        let status = jvp(
            inst.i,
            case.h,
            p,
            ns,
            zu.as_ptr(),
            nu,
            zp.as_ptr(),
            np,
            p,
            p.add(ns),
            ny,
        );
        expect_error(
            &inst,
            status,
            "argument dStateNext overlaps argument dState",
        );
        let status = output_vjp(
            inst.i,
            zy.as_ptr(),
            ny,
            p,
            ns,
            p.add(1),
            nu,
            p.add(ns + nu),
            np,
        );
        expect_error(
            &inst,
            status,
            "argument barState overlaps argument barInputs",
        );
        assert_eq!(
            jvp(
                std::ptr::null_mut(),
                case.h,
                zw.as_ptr(),
                ns,
                zu.as_ptr(),
                nu,
                zp.as_ptr(),
                np,
                p,
                p.add(ns),
                ny
            ),
            Fmi3Status::Error
        );
    }
    // The initialization map exists only at the start time.
    case.step(&inst, 0.0);
    let (status, _, _) = inst.initialization_vjp(&zw, &zy, nu, np);
    expect_error(&inst, status, "only defined at the start time 0");
    // A step past the stop time is refused, as doStep refuses it.
    let stopped =
        Fmi3::instantiate(&case.model.fmu, Interface::CoSimulation, case.model.token()).unwrap();
    type Enter = unsafe extern "C" fn(
        fmu_export::fmi3::types::Fmi3Instance,
        u8,
        f64,
        f64,
        u8,
        f64,
    ) -> Fmi3Status;
    // SAFETY: the FMI 3.0 signature; start 0, stop 1.
    let entered = unsafe {
        stopped.fmu.func::<Enter>("fmi3EnterInitializationMode")(stopped.i, 0, 0.0, 0.0, 1, 1.0)
    };
    assert_eq!(entered, Fmi3Status::Ok);
    assert_eq!(stopped.unary("fmi3ExitInitializationMode"), Fmi3Status::Ok);
    let (status, _, _) = stopped.step_jvp(2.0, &zw, &zu, &zp, ny);
    expect_error(&stopped, status, "passes the stop time 1");
    // An FMI 2.0 handle is not an FMI 3.0 instance.
    let fmi2 = Fmi2::instantiate(&case.model.fmu, FMI2_CO_SIMULATION, case.model.token()).unwrap();
    let size = inst
        .fmu
        .func::<common::adjoint::GetStateSize>("tandemGetStateSize");
    let mut n = 0;
    // SAFETY: a valid FMI 2.0 handle, which the registry tells apart; a writable size.
    assert_eq!(unsafe { size(fmi2.c, &mut n) }, Fmi3Status::Error);
    // Still usable after all of these.
    assert_eq!(case.jvp(&inst, &zw, &vec![1.0; nu], &zp).len(), ns + ny);
    case.step(&inst, case.h);
}

/// The master's safe wrappers (`tandem::Fmu3Instance`, on the packaged FMU's release binary)
/// return the numbers of the C functions called directly on the model's library, at the same
/// point: the wrappers pass every array in its place.
#[test]
fn the_master_wrappers_return_the_c_abi_numbers() {
    use tandem::instance::prelude::*;
    use tandem::instance::{LogLevel, LogSettings};
    use tandem::model_description::InterfaceType;

    let case = Case::named("pendulum");
    let (ns, nu, np, ny) = (
        case.n_state(),
        case.n_inputs(),
        case.n_params(),
        case.n_outputs(),
    );
    let packaged = tandem_tests::fmus::find("pendulum", FmiVersion::Fmi3);
    let fmu = tandem::Fmu::open(&packaged.path).unwrap();
    let quiet = LogSettings {
        level: LogLevel::Off,
        ..LogSettings::default()
    };
    let mut wrapped = fmu
        .instantiate_fmi3(InterfaceType::CoSimulation, "pendulum", quiet)
        .unwrap();
    let all: Vec<u32> = case.knowns().iter().map(|&k| case.known_vr(k)).collect();
    wrapped.set_real(&all, &case.point()).unwrap();
    wrapped.enter_initialization_mode(None, 0.0, None).unwrap();
    wrapped.exit_initialization_mode().unwrap();
    let direct = case.started(None);

    let same = |what: &str, a: &[f64], b: &[f64]| {
        assert_eq!(a.len(), b.len(), "{what}");
        let scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let difference = a
            .iter()
            .zip(b)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(difference <= 1e-13 * scale, "{what}: {a:?} vs {b:?}");
    };
    let (w_bar, y_bar) = case.seeds(21, &case.results(&direct));
    let initial = wrapped.initialization_vjp(&w_bar, &y_bar).unwrap();
    let (u_bar, p_bar) = case.initialization_vjp(&direct, &w_bar, &y_bar);
    same("initialization inputs", &initial.inputs, &u_bar);
    same("initialization parameters", &initial.parameters, &p_bar);

    case.after(&direct, STEPS_BEFORE);
    for k in 0..STEPS_BEFORE {
        wrapped.do_step(k as f64 * case.h, case.h).unwrap();
    }
    assert_eq!(wrapped.state_size().unwrap(), ns);
    same(
        "state",
        &wrapped.discrete_state().unwrap(),
        &case.results(&direct)[..ns],
    );
    let d = randoms(22, ns + nu + np);
    let (dw, du, dp) = (&d[..ns], &d[ns..ns + nu], &d[ns + nu..]);
    let tangents = wrapped.step_jvp(case.h, dw, du, dp).unwrap();
    same(
        "step JVP",
        &[tangents.state, tangents.outputs].concat(),
        &case.jvp(&direct, dw, du, dp),
    );
    let bar = randoms(23, ns + ny);
    let back = wrapped.step_vjp(case.h, &bar[..ns], &bar[ns..]).unwrap();
    let expected = case.vjp(&direct, &bar[..ns], &bar[ns..]);
    same("step VJP state", &back.state, &expected.state);
    same("step VJP inputs", &back.inputs, &expected.inputs);
    same("step VJP parameters", &back.parameters, &expected.params);
    let out = wrapped.output_vjp(&bar[ns..]).unwrap();
    let expected = case.output_vjp(&direct, &bar[ns..]);
    same(
        "output VJP",
        &[out.state, out.inputs, out.parameters].concat(),
        &[expected.state, expected.inputs, expected.params].concat(),
    );
}
