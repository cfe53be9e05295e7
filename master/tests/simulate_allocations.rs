//! The host loops of `simulate` allocate nothing per row: a run of twice the rows makes
//! (almost) the same number of heap allocations, counted by a global allocator. The FMU is
//! the Reference-FMUs' van der Pol oscillator (`benches/fmus`), in Co-Simulation (a row per
//! step) and in Model Exchange (a row per output point, from the integrator's dense output).

#[path = "common/counting_allocator.rs"]
mod counting_allocator;

use std::path::Path;

use counting_allocator::{allocations as allocated, Counting};
use tandem::model_description::InterfaceType;
use tandem::simulate::{simulate, SimulationOptions};
use tandem::Fmu;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations of one run to `stop` (grid 1 ms), from opening the FMU to the summary.
fn allocations(interface: InterfaceType, stop: f64, output: &Path) -> u64 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fmus/fmi3/VanDerPol.fmu");
    let before = allocated();
    let fmu = Fmu::open(&path).unwrap();
    let options = SimulationOptions {
        interface: Some(interface),
        stop_time: Some(stop),
        step_size: Some(1e-3),
        output_interval: Some(1e-3),
        output_file: Some(output.to_path_buf()),
        ..SimulationOptions::default()
    };
    let summary = simulate(&fmu, &options).unwrap();
    assert_eq!(summary.rows, (stop * 1e3).round() as usize + 1);
    drop(fmu);
    allocated() - before
}

#[test]
fn co_simulation_allocates_nothing_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    let short = allocations(InterfaceType::CoSimulation, 2.0, &output);
    let long = allocations(InterfaceType::CoSimulation, 4.0, &output);
    // 2000 more steps and rows: room for a few buffer growths, not one per step.
    assert!(
        long.saturating_sub(short) < 50,
        "{short} allocations for 2 s, {long} for 4 s"
    );
}

#[test]
fn model_exchange_allocates_nothing_per_output_row() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    let short = allocations(InterfaceType::ModelExchange, 2.0, &output);
    let long = allocations(InterfaceType::ModelExchange, 4.0, &output);
    // 2000 more rows over a few dozen more integrator steps, whose dense output is refilled
    // in place: room for a few buffer growths, not one per row or step.
    assert!(
        long.saturating_sub(short) < 50,
        "{short} allocations for 2 s, {long} for 4 s"
    );
}
