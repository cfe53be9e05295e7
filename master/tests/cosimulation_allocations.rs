//! The master's macro step allocates nothing: a chain of the Reference-FMUs (`benches/fmus`),
//! `Dahlquist.x -> Feedthrough -> Feedthrough`, stepped under Gauss-Seidel and under Jacobi
//! in turn makes (almost) no heap allocation over a thousand macro steps, counted by a global
//! allocator. (The FMUs' own code allocates nothing per step either.)

#[path = "common/counting_allocator.rs"]
mod counting_allocator;

use std::path::Path;

use counting_allocator::{allocations, Counting};
use tandem::coupling::Threads;
use tandem::instance::LogSettings;
use tandem::schedule::{CoSimulation, Progress};
use tandem::system::{LoadOptions, System};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The chain's system file (the co-simulation bench's), under schedule `kind`.
fn system_file(kind: &str) -> String {
    include_str!("../benches/cosim/chain.toml")
        .replace(r#"kind = "gauss-seidel""#, &format!(r#"kind = "{kind}""#))
}

/// Allocations made by macro steps 1001 to 2000 of the chain under `kind` (the first thousand
/// let every kept buffer reach its size).
fn allocations_of_steps(kind: &str) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.toml");
    std::fs::write(&path, system_file(kind)).unwrap();
    let fmu_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fmus/fmi3");
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        threads: Some(Threads::Count(1.try_into().unwrap())),
        ..LoadOptions::default()
    };
    let system = System::load(&path, options).unwrap();
    let mut cosimulation = CoSimulation::initialize(&system, &LogSettings::default()).unwrap();
    let mut step = |k: usize| {
        let progress = cosimulation.step(k as f64 * system.macro_step).unwrap();
        assert!(
            progress == Progress::Reached,
            "{kind}: step {k} ended the run"
        );
    };
    (1..=1000).for_each(&mut step);
    let before = allocations();
    (1001..=2000).for_each(&mut step);
    allocations() - before
}

#[test]
fn a_macro_step_allocates_nothing_under_gauss_seidel_and_jacobi_in_turn() {
    for kind in ["gauss-seidel", "jacobi"] {
        let count = allocations_of_steps(kind);
        assert!(
            count < 10,
            "{kind}: {count} allocations in 1000 macro steps"
        );
    }
}
