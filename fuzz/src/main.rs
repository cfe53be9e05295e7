//! `tandem-fuzz TARGET [--runs N] [--seed S] [--case N | --input FILE] [--crashes DIR]`, which
//! `cargo xtask fuzz` builds and runs: fuzzes one target (or `all`), prints a summary per
//! target and exits with status 1 if any input made a reader panic.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tandem_fuzz::{engine, Harness, Options, Target};

/// Mutation fuzzing of Tandem's readers.
#[derive(Parser)]
struct Args {
    /// fmi2-model-description, fmi3-model-description, system-toml, ssd, ssp, adjoint-manifest or all.
    target: String,
    /// Number of cases.
    #[arg(long, default_value_t = 1_000_000)]
    runs: u64,
    /// Seed the cases are derived from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run only this case, printing its input and outcome.
    #[arg(long, conflicts_with = "input")]
    case: Option<u64>,
    /// Run only this saved input.
    #[arg(long)]
    input: Option<PathBuf>,
    /// Where inputs that fail are saved.
    #[arg(long, default_value = "fuzz-crashes")]
    crashes: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let targets = if args.target == "all" {
        Target::ALL.to_vec()
    } else {
        match Target::named(&args.target) {
            Some(target) => vec![target],
            None => {
                let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
                eprintln!(
                    "error: unknown target {}; the targets are {} and all",
                    args.target,
                    names.join(", ")
                );
                return ExitCode::FAILURE;
            }
        }
    };
    let mut failed = false;
    for target in targets {
        let outcome = match (&args.input, args.case) {
            (Some(path), _) => std::fs::read(path).map(|input| single(target, &input)),
            (None, Some(case)) => Ok(single(
                target,
                &engine::input(&target.corpus(), args.seed, case),
            )),
            (None, None) => many(target, &args),
        };
        match outcome {
            Ok(ok) => failed |= !ok,
            Err(e) => {
                eprintln!("error: {}: {e}", target.name());
                return ExitCode::FAILURE;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs one input, printing it and the outcome (a panic prints its own message); whether it
/// did not panic.
fn single(target: Target, input: &[u8]) -> bool {
    println!(
        "input ({} bytes):\n{}",
        input.len(),
        String::from_utf8_lossy(input)
    );
    let harness = Harness::new(target).expect("create a scratch folder");
    match std::panic::catch_unwind(|| harness.run(input)) {
        Ok(accepted) => {
            println!(
                "{}: {}",
                target.name(),
                if accepted {
                    "accepted"
                } else {
                    "rejected with an error"
                }
            );
            true
        }
        Err(_) => false,
    }
}

/// Runs `args.runs` cases; whether none panicked.
fn many(target: Target, args: &Args) -> std::io::Result<bool> {
    let options = Options {
        runs: args.runs,
        seed: args.seed,
        crashes: Some(args.crashes.clone()),
    };
    let started = std::time::Instant::now();
    let report = engine::run(target, &options)?;
    println!(
        "{}: {} cases from seed {} in {:.1} s ({} accepted, {} rejected with an error), slowest {:.1} ms, {} panics",
        target.name(),
        report.cases,
        args.seed,
        started.elapsed().as_secs_f64(),
        report.accepted,
        report.cases - report.accepted,
        report.slowest.as_secs_f64() * 1e3,
        report.failures.len()
    );
    for failure in &report.failures {
        println!(
            "  case {}: {}\n    saved: {}\n    reproduce: {}",
            failure.case,
            failure.message.lines().next().unwrap_or_default(),
            failure
                .saved
                .as_ref()
                .map_or("-".into(), |p| p.display().to_string()),
            engine::reproduce_command(target, args.seed, failure.case)
        );
    }
    Ok(report.failures.is_empty())
}
