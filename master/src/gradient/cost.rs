//! The cost `J` of a run, from the outputs at the macro points `t_0 .. t_{N-1}` with weights
//! `eta_k = t_{k+1} - t_k` (the rectangle rule of the discrete adjoint method; the last point
//! `t_N` carries no cost):
//!
//! - least squares against measurements: `J = 1/2 sum_k eta_k sum_j w_j (y_j(t_k) - m_j(t_k))^2`,
//!   `m_j` a measured column interpolated linearly to the macro points, `w_j` its weight;
//! - the integral of one output: `J = sum_k eta_k y(t_k)`.

use std::path::PathBuf;

use super::measurements::Measurements;
use crate::error::{Error, Result};
use crate::model_description::Causality;
use crate::system::{resolve_port, Port, System};

/// The cost as written, by names.
#[derive(Debug, Clone, PartialEq)]
pub enum CostSpec {
    /// Least squares against the columns of a measurement file, with optional weights by
    /// column (default 1).
    LeastSquares {
        /// The CSV file.
        data: PathBuf,
        /// `(column, weight)` pairs.
        weights: Vec<(String, f64)>,
    },
    /// The integral of one output, `component.output`.
    Integral {
        /// The output.
        output: String,
    },
}

impl CostSpec {
    /// The cost from `--cost` (`least-squares` or `integral:component.output`; default least
    /// squares), `--data` and the weights.
    pub fn new(
        cost: Option<&str>,
        data: Option<PathBuf>,
        weights: Vec<(String, f64)>,
    ) -> Result<CostSpec> {
        let invalid = |message: String| Error::InvalidValue {
            item: "--cost".into(),
            message,
        };
        match cost.map(str::trim) {
            None | Some("least-squares") => match data {
                Some(data) => Ok(CostSpec::LeastSquares { data, weights }),
                None => Err(invalid(
                    "a least-squares cost needs measurements: give --data measured.csv (or \
                     data = \"...\" in the system file), or choose --cost integral:component.output"
                        .into(),
                )),
            },
            Some(text) => match text.strip_prefix("integral:") {
                Some(output) if !weights.is_empty() => Err(invalid(format!(
                    "weights apply to a least-squares cost, not to integral:{output}"
                ))),
                Some(output) => Ok(CostSpec::Integral {
                    output: output.trim().to_string(),
                }),
                None => Err(invalid(format!(
                    "\"{text}\" is no cost: expected least-squares or integral:component.output"
                ))),
            },
        }
    }
}

/// One output in the cost.
#[derive(Debug, Clone)]
struct Term {
    name: String,
    port: Port,
    weight: f64,
    /// Least squares: the measurements at the cost points; the integral has none.
    targets: Option<Vec<f64>>,
}

/// The cost, resolved against a system and its macro points.
#[derive(Debug, Clone)]
pub struct Cost {
    terms: Vec<Term>,
    /// `eta_k` per cost point.
    eta: Vec<f64>,
}

impl Cost {
    /// Resolves `spec` for `system`, whose macro points are `points` (`t_0 .. t_N`).
    pub fn resolve(spec: &CostSpec, system: &System, points: &[f64]) -> Result<Cost> {
        let eta: Vec<f64> = points.windows(2).map(|w| w[1] - w[0]).collect();
        let cost_points = &points[..eta.len()];
        let terms = match spec {
            CostSpec::Integral { output } => vec![Term {
                port: output_port(output, system, "--cost integral:")?,
                name: output.clone(),
                weight: 1.0,
                targets: None,
            }],
            CostSpec::LeastSquares { data, weights } => {
                let measurements = Measurements::read(data)?;
                let names: Vec<&str> = measurements.names().collect();
                if let Some((name, _)) = weights.iter().find(|(n, _)| !names.contains(&n.as_str()))
                {
                    return Err(Error::InvalidValue {
                        item: format!("weight {name}"),
                        message: format!(
                            "{} has no column {name} (columns: {})",
                            measurements.path().display(),
                            names.join(", ")
                        ),
                    });
                }
                let column_error = |e: Error| match e {
                    Error::InvalidValue { item, message } => Error::InputFile {
                        path: measurements.path().to_path_buf(),
                        message: format!("column {item}: {message}"),
                    },
                    other => other,
                };
                let mut terms = Vec::with_capacity(names.len());
                for (column, name) in names.iter().enumerate() {
                    let weight = weights
                        .iter()
                        .rev()
                        .find(|(n, _)| n == name)
                        .map_or(1.0, |&(_, w)| w);
                    if !(weight >= 0.0 && weight.is_finite()) {
                        return Err(Error::InvalidValue {
                            item: format!("weight {name}"),
                            message: format!("{weight} is not a finite, non-negative number"),
                        });
                    }
                    terms.push(Term {
                        port: output_port(name, system, "").map_err(column_error)?,
                        name: name.to_string(),
                        weight,
                        targets: Some(measurements.sample(column, cost_points)?),
                    });
                }
                terms
            }
        };
        Ok(Cost { terms, eta })
    }

    /// The outputs the cost reads, one per term.
    pub fn ports(&self) -> Vec<Port> {
        self.terms.iter().map(|t| t.port).collect()
    }

    /// The outputs' names (`component.variable`), one per term.
    pub fn names(&self) -> Vec<&str> {
        self.terms.iter().map(|t| t.name.as_str()).collect()
    }

    /// Number of cost points (`N`: every macro point but the last).
    pub fn points(&self) -> usize {
        self.eta.len()
    }

    /// The measured values of term `term` at the cost points (least squares only).
    pub fn targets(&self, term: usize) -> Option<&[f64]> {
        self.terms[term].targets.as_deref()
    }

    /// `J`, given `output(term, k)`: the value of term `term`'s output at cost point `k`.
    pub fn value(&self, output: &dyn Fn(usize, usize) -> f64) -> f64 {
        let mut total = 0.0;
        for (k, &eta) in self.eta.iter().enumerate() {
            let at_point: f64 = self
                .terms
                .iter()
                .enumerate()
                .map(|(j, term)| {
                    let y = output(j, k);
                    match &term.targets {
                        Some(targets) => 0.5 * term.weight * (y - targets[k]).powi(2),
                        None => term.weight * y,
                    }
                })
                .sum();
            total += eta * at_point;
        }
        total
    }

    /// `dJ/dy` for term `term` at cost point `k`, where its output is `y`.
    pub fn derivative(&self, term: usize, k: usize, y: f64) -> f64 {
        let term_spec = &self.terms[term];
        let inner = match &term_spec.targets {
            Some(targets) => y - targets[k],
            None => 1.0,
        };
        self.eta[k] * term_spec.weight * inner
    }
}

/// The float output `name` of `system`; `option` prefixes messages.
fn output_port(name: &str, system: &System, option: &str) -> Result<Port> {
    let invalid = |message: String| Error::InvalidValue {
        item: format!("{option}{name}"),
        message,
    };
    let port = resolve_port(name, &system.components).map_err(invalid)?;
    let variable = port.variable(&system.components);
    if variable.causality != Causality::Output || !variable.ty.is_float() || !variable.is_scalar() {
        return Err(invalid(format!(
            "{} is a {} {} variable; the cost takes scalar float outputs",
            variable.name, variable.causality, variable.ty
        )));
    }
    Ok(port)
}
