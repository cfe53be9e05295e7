//! The fuzzing loop. Case `n` of seed `s` is a pure function of `(s, n)`: a seed input chosen
//! and mutated by a ChaCha8 generator seeded from both, so any case can be regenerated from its
//! number alone (`cargo xtask fuzz TARGET --seed S --case N`). A panic is caught, its input
//! saved and the loop goes on; a case running longer than [`HANG_LIMIT`] ends the process
//! with its reproduce command; a case that kills the process (stack overflow, abort) is named
//! by the signal handler of [`crate::signals`].

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::mutate::mutate;
use crate::signals;
use crate::targets::{Harness, Target};

/// A case running longer than this is a hang.
pub const HANG_LIMIT: Duration = Duration::from_secs(10);

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Number of cases.
    pub runs: u64,
    /// The seed every case is derived from.
    pub seed: u64,
    /// Where the inputs of failing cases are saved (none: kept in the report only).
    pub crashes: Option<PathBuf>,
}

/// A case whose input made the reader panic.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Case number.
    pub case: u64,
    /// The panic message and location.
    pub message: String,
    /// The input.
    pub input: Vec<u8>,
    /// Where the input was saved.
    pub saved: Option<PathBuf>,
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Cases run.
    pub cases: u64,
    /// Cases the reader accepted (the rest it rejected with an error).
    pub accepted: u64,
    /// Cases that panicked.
    pub failures: Vec<Failure>,
    /// The longest case.
    pub slowest: Duration,
}

/// The input of case `case` of `seed`.
pub fn input(seeds: &[Vec<u8>], seed: u64, case: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ case);
    let mut input = seeds
        .choose(&mut rng)
        .expect("every target has seeds")
        .clone();
    let others: Vec<&[u8]> = seeds.iter().map(Vec::as_slice).collect();
    mutate(&mut rng, &mut input, &others);
    input
}

/// The command that runs case `case` of `seed` alone.
pub fn reproduce_command(target: Target, seed: u64, case: u64) -> String {
    format!(
        "cargo xtask fuzz {} --seed {seed} --case {case}",
        target.name()
    )
}

/// Runs `options.runs` cases of `target`.
pub fn run(target: Target, options: &Options) -> std::io::Result<Report> {
    let harness = Harness::new(target)?;
    let seeds = target.corpus();
    let started = Arc::new(AtomicU64::new(u64::MAX));
    let current = Arc::new(AtomicU64::new(0));
    let epoch = Instant::now();
    let watchdog = spawn_watchdog(
        target,
        options.seed,
        epoch,
        Arc::clone(&started),
        Arc::clone(&current),
    );
    signals::install(target, options.seed);
    let mut report = Report::default();
    let result = with_quiet_panics(|last_panic| {
        for case in 0..options.runs {
            let input = input(&seeds, options.seed, case);
            current.store(case, Ordering::Relaxed);
            signals::set_case(case);
            let t0 = Instant::now();
            started.store(
                t0.duration_since(epoch).as_millis() as u64,
                Ordering::Relaxed,
            );
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| harness.run(&input)));
            started.store(u64::MAX, Ordering::Relaxed);
            report.slowest = report.slowest.max(t0.elapsed());
            report.cases += 1;
            match outcome {
                Ok(accepted) => report.accepted += u64::from(accepted),
                Err(_) => {
                    let message = last_panic
                        .lock()
                        .expect("not poisoned")
                        .take()
                        .unwrap_or_default();
                    let saved = match &options.crashes {
                        Some(dir) => Some(save(dir, target, options.seed, case, &input, &message)?),
                        None => None,
                    };
                    report.failures.push(Failure {
                        case,
                        message,
                        input,
                        saved,
                    });
                }
            }
        }
        Ok(())
    });
    drop(watchdog);
    result.map(|()| report)
}

/// Runs `body` with a panic hook that stores the message and location of the last panic
/// instead of printing it (the loop reports panics itself), then restores the previous hook.
fn with_quiet_panics<T>(body: impl FnOnce(&Mutex<Option<String>>) -> T) -> T {
    let last = Arc::new(Mutex::new(None));
    let store = Arc::clone(&last);
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        *store.lock().expect("not poisoned") = Some(info.to_string());
    }));
    let result = body(&last);
    panic::set_hook(previous);
    result
}

/// Writes the input of a failing case to `dir` with a note saying how to reproduce it.
fn save(
    dir: &Path,
    target: Target,
    seed: u64,
    case: u64,
    input: &[u8],
    message: &str,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}-seed{seed}-case{case}.input", target.name()));
    std::fs::write(&path, input)?;
    let note = format!(
        "{message}\n\nreproduce: {}\n       or: cargo xtask fuzz {} --input {}\n",
        reproduce_command(target, seed, case),
        target.name(),
        path.display()
    );
    std::fs::write(path.with_extension("txt"), note)?;
    Ok(path)
}

/// Ends the process with the reproduce command when a case runs longer than [`HANG_LIMIT`]
/// (a hang cannot be interrupted inside the process). Stops when the returned guard drops.
fn spawn_watchdog(
    target: Target,
    seed: u64,
    epoch: Instant,
    started: Arc<AtomicU64>,
    current: Arc<AtomicU64>,
) -> WatchdogGuard {
    let stop = Arc::new(AtomicU64::new(0));
    let stopped = Arc::clone(&stop);
    std::thread::spawn(move || {
        while stopped.load(Ordering::Relaxed) == 0 {
            std::thread::sleep(Duration::from_millis(200));
            let since = started.load(Ordering::Relaxed);
            let now = epoch.elapsed().as_millis() as u64;
            if since != u64::MAX && now.saturating_sub(since) > HANG_LIMIT.as_millis() as u64 {
                let case = current.load(Ordering::Relaxed);
                eprintln!(
                    "fuzz: case {case} of {} ran for more than {} s (a hang); reproduce with: {}",
                    target.name(),
                    HANG_LIMIT.as_secs(),
                    reproduce_command(target, seed, case)
                );
                std::process::exit(2);
            }
        }
    });
    WatchdogGuard(stop)
}

/// Stops the watchdog when dropped.
struct WatchdogGuard(Arc<AtomicU64>);

impl Drop for WatchdogGuard {
    fn drop(&mut self) {
        self.0.store(1, Ordering::Relaxed);
    }
}
