//! The outer loop of nested co-design: SLSQP (the `slsqp` crate, a pure-Rust translation of
//! NLopt's) over the design parameters within their bounds and linear constraints, with f
//! from Algorithm 1 and df/dd from the coupled adjoint.

use std::cell::RefCell;

use slsqp::{minimize, FailStatus, StopTols};

use super::adjoint::gradient;
use super::analysis::analyze;
use super::error::CodesignError;
use super::first_order::{self, FirstOrder};
use super::plant::Plant;
use super::problem::Problem;
use super::problem_file::{DesignEntry, LinearConstraint, OptimizeSettings};

/// One evaluation of f and df/dd by the optimizer.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The design.
    pub d: Vec<f64>,
    /// f.
    pub f: f64,
    /// df/dd.
    pub gradient: Vec<f64>,
}

/// Where the optimizer stopped and how it got there.
#[derive(Debug, Clone)]
pub struct Optimum {
    /// The optimal design.
    pub d: Vec<f64>,
    /// f there.
    pub f: f64,
    /// Every evaluation, in order (the first is the baseline).
    pub history: Vec<Evaluation>,
    /// The optimizer's termination status, in words.
    pub status: String,
    /// The first-order optimality check at `d`.
    pub first_order: FirstOrder,
}

/// The design scaled to the unit box: d = min + z (max − min), so that SLSQP sees variables
/// of one size whatever the parameters' units.
struct Scaling<'a>(&'a [DesignEntry]);

impl Scaling<'_> {
    fn design(&self, z: &[f64]) -> Vec<f64> {
        self.0
            .iter()
            .zip(z)
            .map(|(e, z)| e.min + z * (e.max - e.min))
            .collect()
    }

    fn unit(&self, d: &[f64]) -> Vec<f64> {
        self.0
            .iter()
            .zip(d)
            .map(|(e, d)| {
                if e.max > e.min {
                    (d - e.min) / (e.max - e.min)
                } else {
                    0.0
                }
            })
            .collect()
    }

    fn range(&self, i: usize) -> f64 {
        self.0[i].max - self.0[i].min
    }
}

/// Minimizes f over the design from its start values.
pub fn optimize(
    plant: &mut dyn Plant,
    problem: &Problem,
    design: &[DesignEntry],
    constraints: &[LinearConstraint],
    settings: &OptimizeSettings,
) -> Result<Optimum, CodesignError> {
    let scaling = Scaling(design);
    let start: Vec<f64> = design.iter().map(|e| e.start).collect();
    let f0 = analyze(plant, problem, &start)?.f;
    let scale = if f0 != 0.0 { f0.abs() } else { 1.0 };
    let state = RefCell::new((plant, Vec::<Evaluation>::new(), None::<CodesignError>));
    let objective = |z: &[f64], grad: Option<&mut [f64]>, _: &mut ()| -> f64 {
        let mut guard = state.borrow_mut();
        let (plant, history, failure) = &mut *guard;
        if failure.is_some() {
            return f64::NAN;
        }
        let d = scaling.design(z);
        let result = analyze(&mut **plant, problem, &d)
            .and_then(|a| Ok((a.f, gradient(&mut **plant, problem, &a)?.df_dd)));
        match result {
            Ok((f, df_dd)) => {
                if let Some(grad) = grad {
                    for (i, g) in grad.iter_mut().enumerate() {
                        *g = df_dd[i] * scaling.range(i) / scale;
                    }
                }
                history.push(Evaluation {
                    d,
                    f,
                    gradient: df_dd.iter().copied().collect(),
                });
                f / scale
            }
            Err(error) => {
                *failure = Some(error);
                f64::NAN
            }
        }
    };
    // SLSQP wants c(z) ≤ 0: one function per limit of each constraint.
    let limits: Vec<(Vec<f64>, f64)> = constraints
        .iter()
        .flat_map(|c| {
            let row: Vec<f64> = (0..design.len())
                .map(|i| c.coefficients[i] * scaling.range(i))
                .collect();
            let offset: f64 = design
                .iter()
                .zip(&c.coefficients)
                .map(|(e, a)| a * e.min)
                .sum();
            let lower = c
                .min
                .map(|lo| (row.iter().map(|a| -a).collect(), lo - offset));
            let upper = c.max.map(|hi| (row.clone(), offset - hi));
            lower.into_iter().chain(upper)
        })
        .collect();
    let functions: Vec<_> = limits
        .iter()
        .map(|(row, constant)| {
            move |z: &[f64], grad: Option<&mut [f64]>, _: &mut ()| -> f64 {
                if let Some(grad) = grad {
                    grad.copy_from_slice(row);
                }
                row.iter().zip(z).map(|(a, z)| a * z).sum::<f64>() + constant
            }
        })
        .collect();
    let bounds = vec![(0.0, 1.0); design.len()];
    let tolerances = StopTols {
        ftol_rel: settings.tolerance,
        ..StopTols::default()
    };
    let outcome = minimize(
        objective,
        &scaling.unit(&start),
        &bounds,
        &functions,
        (),
        settings.max_iterations,
        Some(tolerances),
    );
    let (plant, history, failure) = state.into_inner();
    if let Some(error) = failure {
        return Err(error);
    }
    let (status, z) = match outcome {
        Ok((status, z, _)) => (format!("{status:?}"), z),
        // NLopt's ROUNDOFF_LIMITED: no further step improves f at this precision, which is
        // often the optimum itself; the first-order check below says whether it is.
        Err((FailStatus::RoundoffLimited, z, _)) => (
            "no step improves f further at this precision (SLSQP: RoundoffLimited)".to_string(),
            z,
        ),
        Err((status, z, _)) => (format!("stopped: {status:?}"), z),
    };
    let d = scaling.design(&z);
    let (f, df_dd) = match history.iter().rev().find(|e| e.d == d) {
        Some(evaluation) => (evaluation.f, evaluation.gradient.clone()),
        None => {
            let a = analyze(plant, problem, &d)?;
            let df_dd = gradient(plant, problem, &a)?.df_dd;
            (a.f, df_dd.iter().copied().collect())
        }
    };
    let baseline = history.first().map_or(0.0, |e| {
        e.gradient.iter().map(|g| g * g).sum::<f64>().sqrt()
    });
    let first_order = first_order::check(&d, &df_dd, baseline, design, constraints);
    Ok(Optimum {
        d,
        f,
        history,
        status,
        first_order,
    })
}
