//! Several experiments of one system: `[[experiments]]` entries of a system file, each with its
//! measurements, its own start values (excitation parameters, initial states) and a weight. The
//! cost of a parameter set is the weighted sum of the experiments' costs, its gradient the
//! weighted sum of their gradients; the experiments are evaluated on threads, one problem
//! each, and summed in file order, so the result does not depend on the number of threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::gradient::section::{self, resolve};
use crate::gradient::{Checkpointing, CostSpec, Differences, Evaluation, Outputs, Problem};
use crate::identify::Fittable;
use crate::instance::LogSettings;
use crate::simulate::start_values::check_settable;
use crate::system::{resolve_port, LoadOptions, System};

/// One `[[experiments]]` entry as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentEntry {
    /// The measurements (CSV), relative to the system file.
    pub data: PathBuf,
    /// Values of this experiment, `component.variable = number` (parameters or start values).
    #[serde(default)]
    pub start: BTreeMap<String, f64>,
    /// The weight of its cost in the sum (default 1).
    #[serde(default = "one")]
    pub weight: f64,
}

fn one() -> f64 {
    1.0
}

/// The `[[experiments]]` entries of the system file `path` (none when it has none).
pub fn read(path: &Path) -> Result<Vec<ExperimentEntry>> {
    let entries: Vec<ExperimentEntry> = section::read(path, "experiments")?.unwrap_or_default();
    for (index, entry) in entries.iter().enumerate() {
        if !(entry.weight.is_finite() && entry.weight > 0.0) {
            return Err(Error::InputFile {
                path: path.to_path_buf(),
                message: format!(
                    "[[experiments]] entry {}: weight = {} must be a positive number",
                    index + 1,
                    entry.weight
                ),
            });
        }
    }
    Ok(entries)
}

/// The problems of every experiment, with their weights.
pub struct Experiments {
    problems: Vec<(Problem, f64)>,
}

/// What [`Experiments::new`] needs besides the entries.
pub struct Setup<'a> {
    /// The system file.
    pub system: &'a Path,
    /// How to load it.
    pub load: LoadOptions<'a>,
    /// The energy correction switch (`None`: the file's).
    pub correction: Option<bool>,
    /// The parameters, `component.parameter`.
    pub parameters: &'a [String],
    /// The cost text (default least squares against each experiment's data).
    pub cost: Option<&'a str>,
    /// Weights of measured columns.
    pub weights: Vec<(String, f64)>,
    /// Which FMU states the adjoint keeps.
    pub checkpointing: Checkpointing,
    /// The FMUs' logging.
    pub log: LogSettings,
    /// Where the parameter names came from, for messages.
    pub option: &'a str,
}

impl Experiments {
    /// One problem per entry: the system loaded, the entry's start values written, its data
    /// the cost's measurements.
    pub fn new(entries: &[ExperimentEntry], setup: &Setup<'_>) -> Result<Experiments> {
        if entries.is_empty() {
            return Err(Error::InputFile {
                path: setup.system.to_path_buf(),
                message: "no [[experiments]] entries".into(),
            });
        }
        let problems = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let mut system = System::read(setup.system, setup.load)?;
                system.set_energy_correction(setup.correction)?;
                for (name, &value) in &entry.start {
                    write_start(&mut system, name, value).map_err(|message| Error::InputFile {
                        path: setup.system.to_path_buf(),
                        message: format!(
                            "[[experiments]] entry {}: start {name}: {message}",
                            index + 1
                        ),
                    })?;
                }
                let data = resolve(setup.system, &entry.data);
                let cost = CostSpec::new(setup.cost, Some(data), setup.weights.clone())?;
                let problem = Problem::new(system, setup.parameters, &cost, setup.option)?
                    .with_checkpointing(setup.checkpointing)
                    .with_log(setup.log.clone());
                if let Some(fitted) = problem
                    .parameters()
                    .iter()
                    .find(|p| entry.start.contains_key(&p.name))
                {
                    return Err(Error::InputFile {
                        path: setup.system.to_path_buf(),
                        message: format!(
                            "[[experiments]] entry {}: start {} is a parameter being fitted",
                            index + 1,
                            fitted.name
                        ),
                    });
                }
                Ok((problem, entry.weight))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Experiments { problems })
    }

    /// The parameters' values as the system gives them.
    pub fn start_values(&self) -> Vec<f64> {
        self.problems[0].0.start_values()
    }

    /// How many experiments there are (at least one).
    pub fn count(&self) -> usize {
        self.problems.len()
    }

    /// The first experiment's problem (for the parameters' names and methods).
    pub fn first(&self) -> &Problem {
        &self.problems[0].0
    }

    /// The weighted sum of the experiments' `J` and `dJ/dp` at `values`.
    pub fn gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        let evaluations = self.each(|problem| problem.gradient(values))?;
        let mut sum = Evaluation {
            cost: 0.0,
            gradient: vec![0.0; values.len()],
            methods: evaluations[0].0.methods.clone(),
        };
        for (evaluation, weight) in &evaluations {
            sum.cost += weight * evaluation.cost;
            for (total, part) in sum.gradient.iter_mut().zip(&evaluation.gradient) {
                *total += weight * part;
            }
        }
        Ok(sum)
    }

    /// The weighted sum of the experiments' finite differences of whole runs.
    pub fn finite_differences(
        &mut self,
        values: &[f64],
        which: &[usize],
        differences: Differences,
    ) -> Result<Vec<f64>> {
        let parts = self.each(|problem| problem.finite_differences(values, which, differences))?;
        let mut sum = vec![0.0; which.len()];
        for (part, weight) in &parts {
            for (total, value) in sum.iter_mut().zip(part) {
                *total += weight * value;
            }
        }
        Ok(sum)
    }

    /// Each experiment's cost outputs at `values`.
    pub fn outputs(&mut self, values: &[f64]) -> Result<Vec<Outputs>> {
        let outputs = self.each(|problem| problem.outputs(values))?;
        Ok(outputs.into_iter().map(|(outputs, _)| outputs).collect())
    }

    /// `evaluate` of every experiment on threads, with its weight, in experiment order; the
    /// first failure by experiment order is the error, naming the experiment.
    fn each<T: Send>(
        &mut self,
        evaluate: impl Fn(&mut Problem) -> Result<T> + Sync,
    ) -> Result<Vec<(T, f64)>> {
        let results: Vec<Result<T>> = self
            .problems
            .par_iter_mut()
            .map(|(problem, _)| evaluate(problem))
            .collect();
        results
            .into_iter()
            .zip(&self.problems)
            .enumerate()
            .map(|(index, (result, (_, weight)))| {
                result
                    .map(|value| (value, *weight))
                    .map_err(|error| Error::InvalidValue {
                        item: format!("experiment {}", index + 1),
                        message: error.to_string(),
                    })
            })
            .collect()
    }
}

/// Writes the start value `value` of the float variable `name` (`component.variable`).
fn write_start(system: &mut System, name: &str, value: f64) -> std::result::Result<(), String> {
    let port = resolve_port(name, &system.components)?;
    let variable = port.variable(&system.components);
    if !variable.ty.is_float() {
        return Err(format!(
            "{} is a {} variable, not a float",
            variable.name, variable.ty
        ));
    }
    check_settable(variable)?;
    system.set_start_value(port, value);
    Ok(())
}

impl Fittable for Experiments {
    fn start_values(&self) -> Vec<f64> {
        Experiments::start_values(self)
    }

    fn gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        Experiments::gradient(self, values)
    }
}
