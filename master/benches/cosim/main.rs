//! Co-simulation benchmark (run by `cargo xtask bench-cosim`, which builds the FMUs and passes
//! their folder): the master against a native loop on the double oscillator, against FMPy on
//! the same system as an SSP package, Jacobi in parallel against in turn on two and eight
//! heavier components, and the Jacobi layouts against Gauss-Seidel on a chain of three cheap C
//! FMUs. Prints Markdown tables; nothing is asserted about the times.
//!
//! Usage: `cosim --fmus <folder with fmi2/ and fmi3/> [--repetitions N]`.

#[path = "../arguments.rs"]
mod arguments;
mod chain;
mod fmpy;
mod layouts;
#[path = "../machine.rs"]
mod machine;
mod master;
mod native;
mod parallel;
mod statistics;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use native::DoubleOscillator;
use statistics::{median, seconds};
use tandem::system::LoadOptions;

/// Command-line settings.
struct Settings {
    /// The FMU folder (`fmi2/`, `fmi3/`).
    fmus: PathBuf,
    /// Runs of each timed side.
    repetitions: usize,
}

fn main() {
    let settings = parse_arguments();
    machine::print_machine();
    overhead(&settings);
    fmpy::compare(&settings.fmus, settings.repetitions.min(3));
    parallel::compare(&settings.fmus.join("fmi3"), settings.repetitions.min(3));
    chain::compare(settings.repetitions.min(5));
}

/// Reads `--fmus` and `--repetitions`.
fn parse_arguments() -> Settings {
    let (fmus, repetitions) = arguments::fmus_and_repetitions("cosim", 11);
    Settings { fmus, repetitions }
}

/// Part 1: the double oscillator through the master (FMI 3.0 FMUs) against the native loop of
/// the same schedule, alternating, with a check that both end on the same state.
fn overhead(settings: &Settings) {
    let systems = Path::new(env!("CARGO_MANIFEST_DIR")).join("systems");
    let fmu_dir = settings.fmus.join("fmi3");
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        // The shipped files keep a [gradient] section.
        sections: tandem::cli::SYSTEM_FILE_SECTIONS,
        ..LoadOptions::default()
    };
    type Loop = fn(&DoubleOscillator, native::State, f64, usize) -> native::State;
    let cases: [(&str, &str, Loop); 2] = [
        (
            "Jacobi",
            "double-oscillator-jacobi.toml",
            DoubleOscillator::jacobi,
        ),
        (
            "Gauss-Seidel",
            "double-oscillator-gauss-seidel.toml",
            DoubleOscillator::gauss_seidel,
        ),
    ];
    println!("## Double oscillator, 10 s at H = 1 ms: master vs native loop\n");
    println!("| schedule | macro steps | runs | master setup (ms) | master stepping (ms) | native (ms) | ratio | overhead (ns/macro step) | max final-state difference |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, file, native_loop) in cases {
        let path = systems.join(file);
        let (mut setups, mut masters, mut natives) = (Vec::new(), Vec::new(), Vec::new());
        let mut difference: f64 = 0.0;
        let mut steps = 0;
        for _ in 0..settings.repetitions {
            let run =
                master::run(&path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            steps = run.macro_steps;
            let h = 1e-3;
            let started = Instant::now();
            let state = native_loop(
                std::hint::black_box(&DoubleOscillator::UNDAMPED),
                std::hint::black_box(DoubleOscillator::INITIAL_STATE),
                std::hint::black_box(h),
                std::hint::black_box(steps),
            );
            natives.push(started.elapsed());
            let names = [
                "mass1.position",
                "mass1.velocity",
                "mass2.position",
                "mass2.velocity",
            ];
            for (name, native) in names.iter().zip(std::hint::black_box(state)) {
                difference = difference.max((run.value(name) - native).abs());
            }
            setups.push(run.setup);
            masters.push(run.stepping);
        }
        let (master, native) = (median(&mut masters), median(&mut natives));
        let overhead_ns = (master.as_secs_f64() - native.as_secs_f64()) / steps as f64 * 1e9;
        println!(
            "| {name} | {steps} | {} | {:.2} | {:.2} | {:.3} | {:.0} | {overhead_ns:.0} | {difference:e} |",
            settings.repetitions,
            seconds(median(&mut setups)) * 1e3,
            seconds(master) * 1e3,
            seconds(native) * 1e3,
            master.as_secs_f64() / native.as_secs_f64(),
        );
    }
    println!();
}

/// Formats durations for a table cell, in seconds.
pub fn cell(times: &[Duration]) -> String {
    let list: Vec<String> = times
        .iter()
        .map(|t| format!("{:.3}", seconds(*t)))
        .collect();
    list.join(", ")
}
