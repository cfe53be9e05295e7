//! Part 3: the chain of part 1 with its masses as Model Exchange components, which the master
//! integrates (Dormand-Prince) and differentiates through its own integrator: one adjoint
//! gradient against one forward run, p = 4, and central differences as the check.

use std::path::Path;
use std::time::Duration;

use tandem::gradient::{CostSpec, Differences, Problem};
use tandem::system::{LoadOptions, System};

use crate::{chain, chain_parameters, largest_difference, timed, Settings};

/// Relative tolerance of the masses' integration.
const TOLERANCE: f64 = 1e-8;

/// The chain of part 1 written into `dir`, with every mass a Model Exchange component.
fn model_exchange_chain(settings: &Settings, dir: &Path) -> std::path::PathBuf {
    let path = chain(&settings.fmus, settings.steps, &settings.threads, dir);
    let text = std::fs::read_to_string(&path).expect("read the chain");
    let text = text.replace(
        "summing_mass.fmu'\n",
        &format!("summing_mass.fmu'\ninterface = \"me\"\ntolerance = {TOLERANCE:e}\n"),
    );
    std::fs::write(&path, text).expect("write the chain");
    path
}

/// Prints the table of part 3.
pub fn cost_model_exchange(settings: &Settings) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = model_exchange_chain(settings, dir.path());
    let cost = CostSpec::Integral {
        output: "mass1.position".into(),
    };
    let system = System::load(&path, LoadOptions::default()).expect("the chain loads");
    let names = chain_parameters(4);
    let mut problem =
        Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves");
    let integrated = problem.integrated_components().len();
    let values = problem.start_values();
    let repetitions = settings.repetitions;
    let (run, _) = timed(repetitions, || problem.cost(&values).expect("a run"));
    let (adjoint_time, adjoint) = timed(repetitions, || {
        problem.gradient(&values).expect("the adjoint")
    });
    let all: Vec<usize> = (0..names.len()).collect();
    let (differences_time, differences) = timed(1, || {
        problem
            .finite_differences(&values, &all, Differences::CHECK)
            .expect("the differences")
    });
    let difference = largest_difference(&adjoint.gradient, &differences);
    let secs = |d: Duration| d.as_secs_f64();
    println!(
        "The same chain with its {integrated} masses as Model Exchange components (Dormand-Prince, \
         relative tolerance {TOLERANCE:e}, differentiated through the master's integrator), \
         p = {}; median of {repetitions} runs (differences: 1 run).\n",
        names.len()
    );
    println!(
        "| p | forward run (s) | adjoint (s) | adjoint / run | central differences (s) | \
         differences / run | max. diff. adjoint vs differences |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {:.3} | {:.3} | {:.2} | {:.3} | {:.1} | {difference:.1e} |\n",
        names.len(),
        secs(run.wall),
        secs(adjoint_time.wall),
        secs(adjoint_time.wall) / secs(run.wall),
        secs(differences_time.wall),
        secs(differences_time.wall) / secs(run.wall),
    );
}
