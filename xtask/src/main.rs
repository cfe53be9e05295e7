//! `cargo xtask <command>`: the project's own build tasks, written in Rust so that they run
//! wherever cargo does.

mod archive;
mod bench;
mod bench_cosim;
mod bench_simulate;
mod cargo;
mod demo;
mod energy_bench;
mod fmus;
mod fuzz;
mod platform;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Tandem's project tasks.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build every model crate under models/ and package its FMI 2.0 and FMI 3.0 FMUs
    /// (Model Exchange and Co-Simulation) as OUT/fmi2/<model>.fmu and OUT/fmi3/<model>.fmu.
    Fmus {
        /// Output folder [default: <target dir>/fmus].
        #[arg(long, value_name = "OUT")]
        out: Option<PathBuf>,
    },
    /// Run a benchmark. `abi` (default): the cost of the FMI 3.0 C ABI, every model crate with
    /// a bench target `abi` stepped through fmi3DoStep (set inputs, doStep, get outputs)
    /// against its integrator called directly in Rust; prints the median time per step of each
    /// and their ratio. `energy`: the energy-correction benchmarks at several macro steps,
    /// uncorrected and corrected, against their monolithic references (Markdown tables).
    Bench {
        /// Which benchmark.
        #[arg(value_enum, default_value = "abi")]
        suite: Suite,
        /// abi: communication steps per run.
        #[arg(long, default_value_t = 100_000)]
        steps: usize,
        /// abi: runs of each side (alternating); the medians are reported.
        #[arg(long, default_value_t = 5)]
        repetitions: usize,
    },
    /// Co-simulation benchmarks: the double oscillator through the master against a native
    /// loop and against FMPy's SSP simulator, and Jacobi in parallel against Gauss-Seidel.
    BenchCosim {
        /// Runs of each side of the double-oscillator comparison (longer parts: at most 3).
        #[arg(long, default_value_t = 11)]
        repetitions: usize,
    },
    /// Whole-process time of `tandem simulate` against fmi-sim and FMPy on the Reference-FMUs'
    /// VanDerPol.fmu (CS, 10^5 steps, every step recorded): runs taking turns, medians,
    /// ratios to fmi-sim (installed under <target dir>/fmi-sim when missing).
    BenchSimulate {
        /// Runs of each host.
        #[arg(long, default_value_t = 11)]
        repetitions: usize,
    },
    /// Fuzz a reader on stable Rust (built in release): mutants of the repository's own valid
    /// files, each of which must be accepted or rejected with an error, never panic, hang or
    /// abort. Inputs that fail are saved with their reproduce command. Targets:
    /// fmi2-model-description, fmi3-model-description, system-toml, ssd, ssp, adjoint-manifest,
    /// all; or fmi-calls: --runs random FMI call sequences per model and version (the
    /// interfaces taking turns) on the exported FMUs (tests/tests/call_sequences.rs, release).
    Fuzz {
        /// What to fuzz.
        target: String,
        /// Number of cases.
        #[arg(long, default_value_t = 1_000_000)]
        runs: u64,
        /// Seed the cases are derived from.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run only this case (of --seed), printing its input and outcome.
        #[arg(long, conflicts_with = "input")]
        case: Option<u64>,
        /// Run only this saved input.
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Where inputs that fail are saved [default: <target dir>/fuzz-crashes].
        #[arg(long, value_name = "DIR")]
        crashes: Option<PathBuf>,
    },
    /// Build the FMUs and `tandem`, run the double oscillator (two FMUs) uncorrected and with
    /// the energy correction, write results and plots into <target dir>/demo/ and print a
    /// summary.
    Demo,
}

/// The benchmarks of `cargo xtask bench`.
#[derive(ValueEnum, Clone, Copy)]
enum Suite {
    /// The cost of the FMI 3.0 C ABI.
    Abi,
    /// Energy monitoring and correction.
    Energy,
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Fmus { out } => fmus::run(out),
        Command::Bench {
            suite: Suite::Abi,
            steps,
            repetitions,
        } => bench::run(steps, repetitions),
        Command::Bench {
            suite: Suite::Energy,
            ..
        } => energy_bench::run(),
        Command::BenchCosim { repetitions } => bench_cosim::run(repetitions),
        Command::BenchSimulate { repetitions } => bench_simulate::run(repetitions),
        Command::Demo => demo::run(),
        Command::Fuzz {
            target,
            runs,
            seed,
            case,
            input,
            crashes,
        } => fuzz::run(&target, runs, seed, case, input, crashes),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
