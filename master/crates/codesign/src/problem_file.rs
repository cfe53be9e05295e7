//! The co-design problem file (`tandem codesign problem.toml`): the plant FMU and its
//! variables, the target, the LQR weights, the closed-loop horizon, the design parameters with
//! bounds, linear constraints and optimizer settings. Documented in master/docs/codesign-file.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nalgebra::{DMatrix, DVector};
use serde::Deserialize;

use super::fmu_plant::FmuPlantSpec;
use super::problem::Problem;
use tandem_cosim::system::toml_file::Lines;
use tandem_cosim::{Error, Result};

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    fmu: PathBuf,
    states: Vec<String>,
    inputs: Vec<String>,
    #[serde(default)]
    parameters: BTreeMap<String, f64>,
    target: TargetSection,
    lqr: LqrSection,
    simulation: SimulationSection,
    design: Vec<DesignEntry>,
    #[serde(default)]
    constraint: Vec<ConstraintEntry>,
    #[serde(default)]
    optimize: OptimizeSettings,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetSection {
    x: Vec<f64>,
    u: Vec<f64>,
    #[serde(default)]
    unknown: Vec<String>,
    #[serde(default)]
    residual_rows: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LqrSection {
    #[serde(rename = "Q")]
    q: Weight,
    #[serde(rename = "S")]
    s: Weight,
}

/// A weight: a number (times the identity), a list (the diagonal) or a list of rows.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Weight {
    Scalar(f64),
    Diagonal(Vec<f64>),
    Rows(Vec<Vec<f64>>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SimulationSection {
    initial_deviation: Vec<f64>,
    dt: f64,
    steps: usize,
}

/// One design parameter: an FMU parameter with its start value and bounds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DesignEntry {
    /// The FMU parameter.
    pub name: String,
    /// The baseline design.
    pub start: f64,
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstraintEntry {
    terms: BTreeMap<String, f64>,
    min: Option<f64>,
    max: Option<f64>,
}

/// A linear inequality `min ≤ Σ aᵢ dᵢ ≤ max` over the design parameters.
#[derive(Debug, Clone)]
pub struct LinearConstraint {
    /// aᵢ, one per design parameter.
    pub coefficients: Vec<f64>,
    /// Lower limit, if any.
    pub min: Option<f64>,
    /// Upper limit, if any.
    pub max: Option<f64>,
    /// As written, for messages.
    pub text: String,
}

/// `[optimize]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeSettings {
    /// Most optimizer iterations.
    #[serde(default = "default_iterations")]
    pub max_iterations: usize,
    /// Stop when the relative change of f falls below this.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
}

fn default_iterations() -> usize {
    100
}

fn default_tolerance() -> f64 {
    1e-8
}

impl Default for OptimizeSettings {
    fn default() -> Self {
        OptimizeSettings {
            max_iterations: default_iterations(),
            tolerance: default_tolerance(),
        }
    }
}

/// A read problem file.
#[derive(Debug, Clone)]
pub struct CodesignFile {
    /// The plant FMU (resolved against the file's folder).
    pub fmu: PathBuf,
    /// The FMU variables of the plant.
    pub plant: FmuPlantSpec,
    /// Target, weights and horizon.
    pub problem: Problem,
    /// The design parameters.
    pub design: Vec<DesignEntry>,
    /// Linear constraints on the design.
    pub constraints: Vec<LinearConstraint>,
    /// Optimizer settings.
    pub optimize: OptimizeSettings,
}

impl CodesignFile {
    /// The baseline design.
    pub fn start(&self) -> Vec<f64> {
        self.design.iter().map(|d| d.start).collect()
    }
}

/// Reads and checks the problem file `path`; every error names the file and the item.
pub fn read(path: &Path) -> Result<CodesignFile> {
    let text = tandem_files::read_text(path).map_err(|e| Error::io(path, e))?;
    let invalid = |message: String| Error::InputFile {
        path: path.to_path_buf(),
        message,
    };
    let file: File = toml::from_str(&text).map_err(|e| {
        let message = e.message().trim_end();
        invalid(match e.span() {
            Some(span) => {
                let (line, column) = Lines::new(&text).position(span.start);
                format!("line {line}, column {column}: {message}")
            }
            None => message.to_string(),
        })
    })?;
    let (nx, nu) = (file.states.len(), file.inputs.len());
    let size = |item: &str, expected: usize, got: usize| {
        if expected == got {
            Ok(())
        } else {
            Err(invalid(format!(
                "{item} has {got} entries, but there are {expected}"
            )))
        }
    };
    size("[target] x", nx, file.target.x.len())?;
    size("[target] u", nu, file.target.u.len())?;
    size(
        "[simulation] initial_deviation",
        nx,
        file.simulation.initial_deviation.len(),
    )?;
    let q = weight(&file.lqr.q, nx).map_err(|m| invalid(format!("[lqr] Q: {m}")))?;
    let s = weight(&file.lqr.s, nu).map_err(|m| invalid(format!("[lqr] S: {m}")))?;
    let (mut unknown_x, mut unknown_u) = (Vec::new(), Vec::new());
    for name in &file.target.unknown {
        match (position(&file.states, name), position(&file.inputs, name)) {
            (Some(i), _) => unknown_x.push(i),
            (None, Some(i)) => unknown_u.push(i),
            (None, None) => {
                return Err(invalid(format!(
                    "[target] unknown: {name} is neither a listed state nor a listed input"
                )))
            }
        }
    }
    let residual_rows = file
        .target
        .residual_rows
        .iter()
        .map(|name| {
            position(&file.states, name).ok_or_else(|| {
                invalid(format!(
                    "[target] residual_rows: {name} is not a listed state"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if residual_rows.len() != file.target.unknown.len() {
        return Err(invalid(format!(
            "[target] residual_rows names {} rows but unknown names {} entries: give one row of r per unknown",
            residual_rows.len(),
            file.target.unknown.len()
        )));
    }
    if file.design.is_empty() {
        return Err(invalid("no [[design]] parameter: name at least one".into()));
    }
    for d in &file.design {
        if !(d.min <= d.start && d.start <= d.max) {
            return Err(invalid(format!(
                "[[design]] {}: start {} is not within [{}, {}]",
                d.name, d.start, d.min, d.max
            )));
        }
    }
    let names: Vec<String> = file.design.iter().map(|d| d.name.clone()).collect();
    let constraints = file
        .constraint
        .iter()
        .map(|c| constraint(c, &names).map_err(|m| invalid(format!("[[constraint]] {m}"))))
        .collect::<Result<Vec<_>>>()?;
    let fmu = path.parent().unwrap_or(Path::new(".")).join(&file.fmu);
    Ok(CodesignFile {
        fmu,
        plant: FmuPlantSpec {
            states: file.states.clone(),
            inputs: file.inputs.clone(),
            design: names,
            fixed: file.parameters.into_iter().collect(),
        },
        problem: Problem {
            x_target: file.target.x,
            u_target: file.target.u,
            unknown_x,
            unknown_u,
            residual_rows,
            q,
            s,
            dx0: DVector::from_vec(file.simulation.initial_deviation),
            dt: file.simulation.dt,
            steps: file.simulation.steps,
        },
        design: file.design,
        constraints,
        optimize: file.optimize,
    })
}

fn position(names: &[String], name: &str) -> Option<usize> {
    names.iter().position(|n| n == name)
}

/// The n × n matrix a [`Weight`] stands for.
fn weight(w: &Weight, n: usize) -> Result<DMatrix<f64>, String> {
    match w {
        Weight::Scalar(v) => Ok(DMatrix::identity(n, n) * *v),
        Weight::Diagonal(d) if d.len() == n => {
            Ok(DMatrix::from_diagonal(&DVector::from_column_slice(d)))
        }
        Weight::Rows(rows) if rows.len() == n && rows.iter().all(|r| r.len() == n) => {
            Ok(DMatrix::from_fn(n, n, |i, j| rows[i][j]))
        }
        _ => Err(format!(
            "expected a number, a diagonal of {n} entries or {n} rows of {n}"
        )),
    }
}

/// A constraint over the design parameters `names`.
fn constraint(c: &ConstraintEntry, names: &[String]) -> Result<LinearConstraint, String> {
    let text = c
        .terms
        .iter()
        .map(|(n, a)| format!("{a}·{n}"))
        .collect::<Vec<_>>()
        .join(" + ");
    let mut coefficients = vec![0.0; names.len()];
    for (name, a) in &c.terms {
        let i = position(names, name)
            .ok_or_else(|| format!("{text}: {name} is not a design parameter"))?;
        coefficients[i] = *a;
    }
    if c.min.is_none() && c.max.is_none() {
        return Err(format!("{text}: give min, max or both"));
    }
    Ok(LinearConstraint {
        coefficients,
        min: c.min,
        max: c.max,
        text,
    })
}
