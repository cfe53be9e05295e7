//! Systems of a thousand components: the values at the start are propagated along the
//! components' dependency order, so initialization costs a bounded number of FMU calls per
//! component (passes over the whole system cost twice the square of the components), and the
//! start values are the settled ones.

mod common;

use std::path::{Path, PathBuf};

use common::generated_systems::{system_file, Shape};
use tandem::run::{run, RunOptions, RunSummary};
use tandem_tests::fmus::{self, FmiVersion};

/// The Reference-FMUs (FMI 3.0) of the fixtures.
fn reference_fmus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-fmus/fmi3")
}

/// Runs `n` components shaped `shape` under `kind` for `steps` macro steps with the FMUs of
/// `fmu_dir`: the summary and the result rows.
fn run_generated(
    shape: Shape,
    n: usize,
    kind: &str,
    steps: usize,
    fmu_dir: &Path,
) -> (RunSummary, Vec<Vec<f64>>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("system.toml");
    std::fs::write(&path, system_file(shape, n, kind, steps)).expect("write the system file");
    let output = dir.path().join("result.csv");
    let options = RunOptions {
        output_file: Some(output.clone()),
        fmu_dir: Some(fmu_dir.to_path_buf()),
        ..RunOptions::default()
    };
    let summary = run(&path, &options).unwrap_or_else(|e| panic!("{shape:?} of {n}: {e}"));
    (summary, common::read_csv(&output).1)
}

/// The FMU calls before the first macro step and at the end (terminate): a run of one macro
/// step less the second step of a run of two.
fn calls_outside_steps(shape: Shape, n: usize, kind: &str, fmu_dir: &Path) -> usize {
    let one = run_generated(shape, n, kind, 1, fmu_dir).0.fmu_calls;
    let two = run_generated(shape, n, kind, 2, fmu_dir).0.fmu_calls;
    2 * one - two
}

#[test]
fn initialization_of_a_chain_costs_four_calls_per_component() {
    // Per Feedthrough: enter initialization mode, its input, exit (its input is final: its
    // source left before it), its output; then terminate. The Dahlquist at the head has no
    // input.
    let n = 1000;
    for kind in ["gauss-seidel", "jacobi"] {
        let calls = calls_outside_steps(Shape::Chain, n, kind, &reference_fmus());
        assert_eq!(calls, 5 * n - 1, "{kind}: calls outside the steps");
    }
}

#[test]
fn a_chain_starts_from_the_settled_values() {
    // Under Gauss-Seidel every Feedthrough passes Dahlquist's x on within the macro point, at
    // the start too: the chain's last output is the Dahlquist alone's x, row by row (x
    // changes every 0.1 s, its internal step).
    let (_, alone) = run_generated(Shape::Chain, 1, "gauss-seidel", 201, &reference_fmus());
    let (_, chain) = run_generated(Shape::Chain, 1000, "gauss-seidel", 201, &reference_fmus());
    assert_eq!(chain, alone);
    assert_eq!(chain[0][1], 1.0);
    assert!(chain[200][1] < chain[100][1] && chain[100][1] < 1.0);
}

#[test]
fn a_ring_settles_in_a_bounded_number_of_passes() {
    // One algebraic loop through every component: two passes of the propagation (the second
    // finds nothing changed) and, under Gauss-Seidel, one pass of the loop solver, besides
    // entering and leaving initialization mode, a reading after it and terminate.
    let n = 1000;
    for (kind, per_component) in [("jacobi", 8), ("gauss-seidel", 10)] {
        let calls = calls_outside_steps(Shape::Ring, n, kind, &reference_fmus());
        assert!(
            calls <= per_component * n + 10,
            "{kind}: {calls} calls outside the steps"
        );
    }
}

#[test]
fn masses_and_springs_start_with_every_input_consistent() {
    // A cycle of components at every spring, but no algebraic loop: the masses are read
    // first, the springs after, and the masses' forces set once more from the springs.
    let fmu_dir = fmus::folder().join(FmiVersion::Fmi3.folder());
    fmus::all();
    let n: usize = 201;
    let (masses, springs) = (n.div_ceil(2), n / 2);
    // Each mass has 5 parameter and start values to set, each spring 3.
    let start_values = 5 * masses + 3 * springs;
    let calls = calls_outside_steps(Shape::MassesAndSprings, n, "jacobi", &fmu_dir);
    assert!(
        calls <= start_values + 7 * n,
        "{calls} calls outside the steps"
    );
    // The same system under Gauss-Seidel, whose masses see the springs' forces at once, ends
    // close to it: both start from the same consistent state.
    let (_, jacobi) = run_generated(Shape::MassesAndSprings, n, "jacobi", 100, &fmu_dir);
    let (_, gauss_seidel) =
        run_generated(Shape::MassesAndSprings, n, "gauss-seidel", 100, &fmu_dir);
    assert_eq!(jacobi[0], gauss_seidel[0]);
    let (end_j, end_g) = (jacobi.last().unwrap()[1], gauss_seidel.last().unwrap()[1]);
    assert!((end_j - end_g).abs() < 1e-3, "{end_j} against {end_g}");
}
