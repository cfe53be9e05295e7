//! Several experiments of one system: `[[experiments]]` entries of a system file, each with its
//! measurements, its own start values (excitation parameters, initial states) and a weight. The
//! cost of a parameter set is the weighted sum of the experiments' costs, its gradient the
//! weighted sum of their gradients; the experiments are evaluated on threads, one problem
//! each, and summed in file order, so the result does not depend on the number of threads.
//!
//! Under MPI the experiments are dealt out to the ranks (experiment k to rank k mod N); each
//! rank evaluates its own, all ranks exchange every experiment's result (an all-gather of
//! bytes), and every rank sums them in file order. The sum is then the same on every rank and
//! for every number of ranks, which an all-reduce sum would not promise: its order of
//! additions depends on the number of ranks and the library's algorithm, and floating-point
//! addition is not associative, so the iterates of an identification would differ in the last
//! bits and drift apart.

mod wire;

use rayon::prelude::*;

use crate::cluster::wire::{decode, encode, Wire};
use crate::cluster::{malformed, Cluster};
use crate::error::{Error, Result};
use crate::gradient::section::resolve;
use crate::gradient::{CostSpec, Differences, Evaluation, Outputs, Problem, Setup};
use crate::identify::Fittable;
use crate::interrupt;
use crate::start_values::check_settable;
use crate::system::{resolve_port, System};

/// The entries as the system file gives them, read by the gradient crate.
pub use tandem_gradient::experiments::{read, ExperimentEntry, SECTION};

/// The problems of the experiments this rank evaluates, and every experiment's weight.
pub struct Experiments<'a> {
    /// By experiment: the problem where this rank evaluates it, and the first experiment's on
    /// a rank that evaluates none (for the parameters' names and start values).
    problems: Vec<Option<Problem>>,
    weights: Vec<f64>,
    cluster: &'a Cluster,
}

impl<'a> Experiments<'a> {
    /// One problem per entry that this rank of `cluster` evaluates: the system loaded, the
    /// entry's start values written, its data the cost's measurements. Not collective: the
    /// caller agrees.
    pub fn new(
        entries: &[ExperimentEntry],
        setup: &Setup<'_>,
        cluster: &'a Cluster,
    ) -> Result<Experiments<'a>> {
        if entries.is_empty() {
            return Err(Error::input_file(
                setup.system.to_path_buf(),
                "no [[experiments]] entries",
            ));
        }
        let (rank, size) = (cluster.rank(), cluster.size());
        let problems = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let needed = owner(index, size) == rank || (index == 0 && rank >= entries.len());
                if !needed {
                    return Ok(None);
                }
                let mut system = System::read(setup.system, setup.load)?;
                system.set_energy_correction(setup.correction)?;
                for (name, &value) in &entry.start {
                    write_start(&mut system, name, value).map_err(|message| {
                        Error::input_file(
                            setup.system.to_path_buf(),
                            format!(
                                "[[experiments]] entry {}: start {name}: {message}",
                                index + 1
                            ),
                        )
                    })?;
                }
                let data = resolve(setup.system, &entry.data);
                let cost = CostSpec::new(
                    setup.cost,
                    Some(data),
                    setup.weights.clone(),
                    &setup.cost_source,
                )?;
                let problem = Problem::new(system, setup.parameters, &cost, setup.option)?
                    .with_checkpointing(setup.checkpointing)
                    .with_log(setup.log.clone());
                if let Some(fitted) = problem
                    .parameters()
                    .iter()
                    .find(|p| entry.start.contains_key(&p.name))
                {
                    return Err(Error::input_file(
                        setup.system.to_path_buf(),
                        format!(
                            "[[experiments]] entry {}: start {} is a parameter being fitted",
                            index + 1,
                            fitted.name
                        ),
                    ));
                }
                Ok(Some(problem))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Experiments {
            problems,
            weights: entries.iter().map(|entry| entry.weight).collect(),
            cluster,
        })
    }

    /// The parameters' values as the system gives them.
    pub fn start_values(&self) -> Vec<f64> {
        self.first().start_values()
    }

    /// How many experiments there are (at least one).
    pub fn count(&self) -> usize {
        self.weights.len()
    }

    /// The first experiment's problem on rank 0 (for the parameters' names and methods); on
    /// another rank the first this rank loaded, whose parameters are the same.
    pub fn first(&self) -> &Problem {
        self.problems
            .iter()
            .flatten()
            .next()
            .expect("every rank loads at least one experiment")
    }

    /// The weighted sum of the experiments' `J` and `dJ/dp` at `values`.
    pub fn gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        let evaluations = self.each(|problem| Ok(problem.gradient(values)?))?;
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
        let parts =
            self.each(|problem| Ok(problem.finite_differences(values, which, differences)?))?;
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
        let outputs = self.each(|problem| Ok(problem.outputs(values)?))?;
        Ok(outputs.into_iter().map(|(outputs, _)| outputs).collect())
    }

    /// `evaluate` of every experiment, with its weight, in experiment order: this rank's on
    /// threads, the others' exchanged (collective); the first failure by experiment order is
    /// the error, naming the experiment, on every rank. A signal that interrupted any rank is
    /// the error on every rank, so that all of them stop together.
    fn each<T: Send + Wire>(
        &mut self,
        evaluate: impl Fn(&mut Problem) -> Result<T> + Sync,
    ) -> Result<Vec<(T, f64)>> {
        let (rank, size) = (self.cluster.rank(), self.cluster.size());
        let mine: Vec<Outcome<T>> = self
            .problems
            .par_iter_mut()
            .enumerate()
            .filter(|(index, _)| owner(*index, size) == rank)
            .map(|(_, problem)| {
                let problem = problem
                    .as_mut()
                    .expect("a rank loads the experiments it owns");
                evaluate(problem).map_err(|error| error.to_string())
            })
            .collect();
        let (signal, results) = if size == 1 {
            (interrupt::number(), mine)
        } else {
            self.exchange(mine)?
        };
        if signal != 0 {
            return Err(Error::stopped(
                interrupt::signal_name(signal),
                "the experiments' runs were stopped",
            ));
        }
        results
            .into_iter()
            .zip(&self.weights)
            .enumerate()
            .map(|(index, (result, weight))| {
                result.map(|value| (value, *weight)).map_err(|message| {
                    Error::invalid_value(format!("experiment {}", index + 1), message)
                })
            })
            .collect()
    }

    /// Every experiment's result in experiment order, from this rank's `mine` and the other
    /// ranks' (collective), with the signal that interrupted the lowest rank (0: none did).
    fn exchange<T: Wire>(&self, mine: Vec<Outcome<T>>) -> Result<(usize, Vec<Outcome<T>>)> {
        let size = self.cluster.size();
        let mut by_rank = Vec::with_capacity(size);
        let mut signal = 0;
        let sent = encode(&(interrupt::number(), mine));
        for (rank, bytes) in self.cluster.all_gather(&sent).iter().enumerate() {
            let (interrupted, results): (usize, Vec<Outcome<T>>) =
                decode(bytes).ok_or_else(|| {
                    Error::invalid_value("tandem identify, gradient", malformed(rank))
                })?;
            if signal == 0 {
                signal = interrupted;
            }
            by_rank.push(results.into_iter());
        }
        let results = (0..self.count())
            .map(|index| {
                by_rank[owner(index, size)].next().ok_or_else(|| {
                    Error::invalid_value(
                        format!("experiment {}", index + 1),
                        malformed(owner(index, size)),
                    )
                })
            })
            .collect::<Result<_>>()?;
        Ok((signal, results))
    }
}

/// One experiment's result as ranks exchange it: the value, or the error's message.
type Outcome<T> = std::result::Result<T, String>;

/// The rank that evaluates experiment `index` of ranks `size`.
fn owner(index: usize, size: usize) -> usize {
    index % size
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

impl Fittable for Experiments<'_> {
    fn start_values(&self) -> Vec<f64> {
        Experiments::start_values(self)
    }

    fn gradient(&mut self, values: &[f64]) -> tandem_cosim::Result<Evaluation> {
        Ok(Experiments::gradient(self, values)?)
    }
}
