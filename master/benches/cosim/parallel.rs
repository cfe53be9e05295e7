//! Part 3: eight uncoupled engine mounts (HHT, internal step 0.1 ms) co-simulated in parallel
//! (Jacobi, one thread per component) and one after another (Gauss-Seidel, calling thread).
//! Without connections both schedules compute the same numbers, so the difference is the
//! threads alone.

use std::path::Path;
use std::time::Duration;

use tandem::system::LoadOptions;

use crate::master;
use crate::statistics::{median, seconds};

/// Components in the system.
const COMPONENTS: usize = 8;
/// Macro step (s): ten internal HHT steps of the engine mount per macro step.
const MACRO_STEP: f64 = 1e-3;
/// Simulated time (s), chosen so that a sequential run takes one to three seconds.
const STOP: f64 = 0.5;

/// The system file: `COMPONENTS` engine mounts with no connections, under `kind`.
fn system_file(kind: &str) -> String {
    let components: String = (1..=COMPONENTS)
        .map(|i| format!("[[component]]\nname = \"mount{i}\"\nfmu = \"engine_mount.fmu\"\n\n"))
        .collect();
    format!(
        "[experiment]\nstart = 0.0\nstop = {STOP:?}\nstep = {MACRO_STEP:?}\n\n{components}\
         [schedule]\nkind = \"{kind}\"\nextrapolation = \"zoh\"\n"
    )
}

/// Times both schedules `repetitions` times each, alternating, taking the FMUs from `fmu_dir`,
/// and prints the table.
pub fn compare(fmu_dir: &Path, repetitions: usize) {
    let folder = tempfile::tempdir().expect("create a temporary folder");
    let options = LoadOptions {
        fmu_dir: Some(fmu_dir),
        ..LoadOptions::default()
    };
    let kinds = ["jacobi", "gauss-seidel"];
    let paths: Vec<_> = kinds
        .iter()
        .map(|kind| {
            let path = folder.path().join(format!("mounts-{kind}.toml"));
            std::fs::write(&path, system_file(kind)).expect("write a system file");
            path
        })
        .collect();
    let mut times: [Vec<Duration>; 2] = Default::default();
    let mut finals: [Vec<(String, f64)>; 2] = Default::default();
    let mut steps = 0;
    for _ in 0..repetitions {
        for (i, path) in paths.iter().enumerate() {
            let run =
                master::run(path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            times[i].push(run.stepping);
            steps = run.macro_steps;
            finals[i] = run.final_values;
        }
    }
    let identical = finals[0] == finals[1];
    println!("## {COMPONENTS} engine mounts, {STOP} s at H = {MACRO_STEP} s: Jacobi (parallel) vs Gauss-Seidel (sequential)\n");
    println!("| schedule | macro steps | runs | stepping, each run (s) | median (s) |");
    println!("|---|---:|---:|---|---:|");
    let mut medians = Vec::new();
    for (kind, runs) in kinds.iter().zip(&mut times) {
        let list = crate::cell(runs);
        let m = median(runs);
        medians.push(m);
        println!(
            "| {kind} | {steps} | {repetitions} | {list} | {:.3} |",
            seconds(m)
        );
    }
    println!(
        "\nSpeed-up Gauss-Seidel / Jacobi (medians): {:.2}; final outputs bit-identical: {identical}\n",
        seconds(medians[1]) / seconds(medians[0])
    );
}
