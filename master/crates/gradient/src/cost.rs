//! The cost `J` of a run, from the outputs at the macro points `t_0 .. t_{N-1}` with weights
//! `eta_k = t_{k+1} - t_k` (the rectangle rule of the discrete adjoint method; the last point
//! `t_N` carries no cost):
//!
//! - least squares against measurements: `J = 1/2 sum_k eta_k sum_j w_j (y_j(t_k) - m_j(t_k))^2`,
//!   `m_j` a measured column interpolated linearly to the macro points, `w_j` its weight;
//! - the integral of one output: `J = sum_k eta_k y(t_k)`;
//! - the final value of one output, `J = y(t_N)`, the stop time's (the one term that reads
//!   `t_N`);
//! - a weighted sum of integrals and final values: `final:a.y + 0.5*integral:b.z`.

use std::path::PathBuf;

use super::measurements::Measurements;
use fmi_host::model_description::Causality;
use tandem_cosim::system::{resolve_element, Port, System};
use tandem_cosim::{Error, Result};

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
    /// A weighted sum of integrals and final values of outputs.
    Sum {
        /// The terms, in the order written.
        terms: Vec<SumTerm>,
    },
}

/// Where a cost was given, which its errors name.
#[derive(Debug, Clone, PartialEq)]
pub enum CostSource {
    /// The `--cost` option (or no cost at all: `--cost` is the option that sets one).
    Option,
    /// The `cost` key of the section `section` of the system file `file`.
    File {
        /// The system file.
        file: PathBuf,
        /// The section, `gradient` or `identify`.
        section: &'static str,
    },
}

impl CostSource {
    /// `--cost` if `option` holds a cost, else the section's key in `file`.
    pub fn of(option: Option<&str>, file: &std::path::Path, section: &'static str) -> Self {
        match option {
            Some(_) => CostSource::Option,
            None => CostSource::File {
                file: file.to_path_buf(),
                section,
            },
        }
    }

    /// The error `message` about a cost given here.
    fn error(&self, message: String) -> Error {
        match self {
            CostSource::Option => Error::InvalidValue {
                item: "--cost".into(),
                message,
            },
            CostSource::File { file, section } => Error::InputFile {
                path: file.clone(),
                message: format!("[{section}] cost: {message}"),
            },
        }
    }
}

/// One term of a [`CostSpec::Sum`]: `weight*integral:output` or `weight*final:output`.
#[derive(Debug, Clone, PartialEq)]
pub struct SumTerm {
    /// The factor (1 when none is written).
    pub weight: f64,
    /// Whether the term is the output's final value (else its integral).
    pub final_value: bool,
    /// The output, `component.output`.
    pub output: String,
}

impl SumTerm {
    /// Parses `[weight*](integral|final):component.output`.
    fn parse(text: &str) -> std::result::Result<SumTerm, String> {
        let (weight, term) = match text.split_once('*') {
            Some((weight, term)) => {
                let weight: f64 = weight
                    .trim()
                    .parse()
                    .map_err(|_| format!("\"{}\" is not a number", weight.trim()))?;
                if !weight.is_finite() {
                    return Err(format!("the weight {weight} is not finite"));
                }
                (weight, term.trim())
            }
            None => (1.0, text.trim()),
        };
        let (final_value, output) = if let Some(output) = term.strip_prefix("final:") {
            (true, output)
        } else if let Some(output) = term.strip_prefix("integral:") {
            (false, output)
        } else {
            return Err(format!(
                "\"{term}\" is no cost term: expected integral:component.output or \
                 final:component.output, optionally weighted as 0.5*final:component.output"
            ));
        };
        Ok(SumTerm {
            weight,
            final_value,
            output: output.trim().to_string(),
        })
    }
}

impl CostSpec {
    /// The cost from `--cost` (`least-squares` or `integral:component.output`; default least
    /// squares), `--data` and the weights.
    pub fn new(
        cost: Option<&str>,
        data: Option<PathBuf>,
        weights: Vec<(String, f64)>,
        given_by: &CostSource,
    ) -> Result<CostSpec> {
        let invalid = |message: String| given_by.error(message);
        match cost.map(str::trim) {
            None | Some("least-squares") => match data {
                Some(data) => Ok(CostSpec::LeastSquares { data, weights }),
                None => Err(invalid(
                    "a least-squares cost needs measurements: give --data measured.csv (or \
                     data = \"...\" in the system file), or choose --cost integral:component.output"
                        .into(),
                )),
            },
            Some(_) if !weights.is_empty() => Err(invalid(
                "weights apply to a least-squares cost; weight an integral or final term in \
                 --cost itself (0.5*final:component.output)"
                    .into(),
            )),
            Some(text) => {
                let terms = text
                    .split('+')
                    .map(SumTerm::parse)
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|message| {
                        invalid(format!(
                            "{message} (a cost is least-squares, or a sum of such terms)"
                        ))
                    })?;
                match terms.as_slice() {
                    [SumTerm {
                        weight,
                        final_value: false,
                        output,
                    }] if *weight == 1.0 => Ok(CostSpec::Integral {
                        output: output.clone(),
                    }),
                    _ => Ok(CostSpec::Sum { terms }),
                }
            }
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
    /// Whether the term is the output's value at `t_N` (weighted by `weight` alone).
    final_value: bool,
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
                final_value: false,
            }],
            CostSpec::Sum { terms } => terms
                .iter()
                .map(|term| {
                    let option = if term.final_value {
                        "--cost final:"
                    } else {
                        "--cost integral:"
                    };
                    Ok(Term {
                        port: output_port(&term.output, system, option)?,
                        name: term.output.clone(),
                        weight: term.weight,
                        targets: None,
                        final_value: term.final_value,
                    })
                })
                .collect::<Result<_>>()?,
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
                        final_value: false,
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

    /// Number of cost points (`N`: every macro point but the last) of the integrals and least
    /// squares; a final-value term reads point `N` too.
    pub fn points(&self) -> usize {
        self.eta.len()
    }

    /// The last macro point any term reads: `N` with a final-value term, else `N - 1`.
    pub fn last_point(&self) -> usize {
        if self.terms.iter().any(|t| t.final_value) {
            self.eta.len()
        } else {
            self.eta.len().saturating_sub(1)
        }
    }

    /// The measured values of term `term` at the cost points (least squares only).
    pub fn targets(&self, term: usize) -> Option<&[f64]> {
        self.terms[term].targets.as_deref()
    }

    /// `J`, given `output(term, k)`: the value of term `term`'s output at macro point `k`.
    pub fn value(&self, output: &dyn Fn(usize, usize) -> f64) -> f64 {
        let last = self.eta.len();
        let mut total = 0.0;
        for (j, term) in self.terms.iter().enumerate() {
            if term.final_value {
                total += term.weight * output(j, last);
                continue;
            }
            for (k, &eta) in self.eta.iter().enumerate() {
                let y = output(j, k);
                total += eta
                    * match &term.targets {
                        Some(targets) => 0.5 * term.weight * (y - targets[k]).powi(2),
                        None => term.weight * y,
                    };
            }
        }
        total
    }

    /// `dJ/dy` for term `term` at macro point `k` (up to [`Cost::last_point`]), where its
    /// output is `y`.
    pub fn derivative(&self, term: usize, k: usize, y: f64) -> f64 {
        let term_spec = &self.terms[term];
        if term_spec.final_value {
            return if k == self.eta.len() {
                term_spec.weight
            } else {
                0.0
            };
        }
        let Some(&eta) = self.eta.get(k) else {
            return 0.0;
        };
        let inner = match &term_spec.targets {
            Some(targets) => y - targets[k],
            None => 1.0,
        };
        eta * term_spec.weight * inner
    }
}

/// The float output `name` of `system` (`component.y[2]` for an element of an FMI 3.0 array);
/// `option` prefixes messages.
fn output_port(name: &str, system: &System, option: &str) -> Result<Port> {
    let invalid = |message: String| Error::InvalidValue {
        item: format!("{option}{name}"),
        message,
    };
    let port = resolve_element(name, &system.components).map_err(invalid)?;
    let variable = port.variable(&system.components);
    if variable.causality != Causality::Output || !variable.ty.is_float() {
        return Err(invalid(format!(
            "{} is a {} {} variable; the cost takes float outputs",
            variable.name, variable.causality, variable.ty
        )));
    }
    if !variable.is_scalar() && port.element.is_none() {
        return Err(invalid(format!(
            "{} is an array; the cost takes one element at a time, as in {name}[1]",
            variable.name
        )));
    }
    Ok(port)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> std::result::Result<CostSpec, String> {
        CostSpec::new(Some(text), None, Vec::new(), &CostSource::Option).map_err(|e| e.to_string())
    }

    #[test]
    fn final_values_and_weighted_sums_parse() {
        assert_eq!(
            parse("integral:a.y").unwrap(),
            CostSpec::Integral {
                output: "a.y".into()
            }
        );
        let term = |weight, final_value, output: &str| SumTerm {
            weight,
            final_value,
            output: output.into(),
        };
        assert_eq!(
            parse("final:a.y").unwrap(),
            CostSpec::Sum {
                terms: vec![term(1.0, true, "a.y")]
            }
        );
        assert_eq!(
            parse(" final:a.y + 0.5*integral:b.z+2e-1 * final: c.w").unwrap(),
            CostSpec::Sum {
                terms: vec![
                    term(1.0, true, "a.y"),
                    term(0.5, false, "b.z"),
                    term(0.2, true, "c.w")
                ]
            }
        );
    }

    #[test]
    fn a_bad_term_is_named() {
        assert!(parse("final:a.y + maximum:b.z")
            .unwrap_err()
            .contains("\"maximum:b.z\" is no cost term"));
        assert!(parse("x*final:a.y")
            .unwrap_err()
            .contains("\"x\" is not a number"));
        let weighted = CostSpec::new(
            Some("final:a.y"),
            None,
            vec![("a.y".into(), 2.0)],
            &CostSource::Option,
        );
        assert!(weighted
            .unwrap_err()
            .to_string()
            .contains("weights apply to a least-squares cost"));
    }
}
