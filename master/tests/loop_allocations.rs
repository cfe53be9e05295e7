//! Solving an algebraic loop at every communication point allocates nothing once the loop's
//! factors are kept: the double oscillator under Gauss-Seidel with mass1's acceleration fed to
//! the spring's x_a (a loop through the spring's force on mass1), a thousand macro steps
//! counted by a global allocator after a thousand that let every buffer reach its size.

mod common;
#[path = "common/counting_allocator.rs"]
mod counting_allocator;

use common::double_oscillator::Setup;
use counting_allocator::{allocations, Counting};
use tandem::instance::LogSettings;
use tandem::schedule::{CoSimulation, Progress};
use tandem::system::{LoadOptions, System};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn macro_steps_through_a_solved_loop_allocate_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        stop: 10.0,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3)
    };
    let text = setup.acceleration_loop_toml(dir.path());
    let path = dir.path().join("looped.toml");
    std::fs::write(&path, text).unwrap();
    let system = System::load(&path, LoadOptions::default()).unwrap();
    let mut cosimulation = CoSimulation::initialize(&system, &LogSettings::default()).unwrap();
    let mut step = |k: usize| {
        let progress = cosimulation.step(k as f64 * system.macro_step).unwrap();
        assert!(progress == Progress::Reached, "step {k} ended the run");
    };
    (1..=1000).for_each(&mut step);
    let before = allocations();
    (1001..=2000).for_each(&mut step);
    let count = allocations() - before;
    assert!(count < 10, "{count} allocations in 1000 macro steps");
}
