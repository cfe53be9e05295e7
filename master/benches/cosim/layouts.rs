//! Timing one system under several Jacobi thread settings (and Gauss-Seidel), alternating the
//! variants run by run, with a check that the variants of the first one's system file (the
//! Jacobi layouts) end on the same values, bit for bit.

use std::path::Path;
use std::time::Duration;

use tandem::coupling::Threads;
use tandem::system::LoadOptions;

use crate::master;
use crate::statistics::{median, seconds};

/// One way of running a system: a label and the system file.
pub struct Variant<'a> {
    /// The table's row label.
    pub label: &'a str,
    /// The system file.
    pub path: &'a Path,
    /// Replaces `[schedule] threads`.
    pub threads: Option<Threads>,
    /// How many copies of the system run at once, each on a thread of its own; the time is
    /// the slowest copy's. More than one measures what the threads give without any
    /// synchronization between them.
    pub copies: usize,
}

/// The medians of the stepping times of `variants` over `repetitions` alternating runs each,
/// FMUs from `fmu_dir`; prints a table row per variant with the time per macro step and per
/// component and macro step, then whether the final values of all variants are bit-identical.
pub fn compare(
    variants: &[Variant<'_>],
    fmu_dir: &Path,
    components: usize,
    repetitions: usize,
) -> Vec<Duration> {
    let mut times = vec![Vec::new(); variants.len()];
    let mut finals = vec![Vec::new(); variants.len()];
    let mut steps = 0;
    for _ in 0..repetitions {
        for (i, variant) in variants.iter().enumerate() {
            let run = || {
                let options = LoadOptions {
                    fmu_dir: Some(fmu_dir),
                    threads: variant.threads,
                    ..LoadOptions::default()
                };
                master::run(variant.path, options)
                    .unwrap_or_else(|e| panic!("{}: {e}", variant.path.display()))
            };
            let runs: Vec<master::Run> = std::thread::scope(|scope| {
                let copies: Vec<_> = (0..variant.copies).map(|_| scope.spawn(run)).collect();
                copies
                    .into_iter()
                    .map(|copy| copy.join().expect("a copy panicked"))
                    .collect()
            });
            let slowest = runs
                .iter()
                .map(|run| run.stepping)
                .max()
                .expect("one copy or more");
            times[i].push(slowest);
            steps = runs[0].macro_steps;
            finals[i] = runs
                .into_iter()
                .next()
                .expect("one copy or more")
                .final_values;
        }
    }
    println!("| variant | macro steps | runs | stepping, each run (s) | median (s) | per macro step (us) | per component and macro step (us) |");
    println!("|---|---:|---:|---|---:|---:|---:|");
    let mut medians = Vec::new();
    for (variant, runs) in variants.iter().zip(&mut times) {
        let list = crate::cell(runs);
        let m = median(runs);
        medians.push(m);
        let per_step = seconds(m) / steps as f64 * 1e6;
        println!(
            "| {} | {steps} | {repetitions} | {list} | {:.3} | {per_step:.2} | {:.2} |",
            variant.label,
            seconds(m),
            per_step / components as f64
        );
    }
    // Only the same schedule computes the same numbers: Jacobi in any layout.
    let identical = variants
        .iter()
        .zip(&finals)
        .filter(|(v, _)| v.path == variants[0].path)
        .all(|(_, f)| *f == finals[0]);
    println!("\nFinal values bit-identical across the rows of the first row's system file: {identical}\n");
    medians
}
