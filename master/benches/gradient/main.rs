//! Gradient benchmark: the cost of one gradient of a co-simulation of Tandem's FMI 3.0 FMUs
//! relative to one forward run, by the adjoint, by forward sensitivities and by central finite
//! differences, for 4 and 64 parameters of one chain of oscillators; and the peak memory of an
//! adjoint gradient over a long run with and without checkpointing (each in a child process
//! that reports its own peak resident set size); and the adjoint through Model Exchange
//! components the master integrates. Prints Markdown tables; nothing is asserted.
//!
//! Usage: `gradient --fmus <folder with fmi3/> [--steps N] [--repetitions R]
//! [--memory-steps M] [--part cost|model-exchange|memory] [--adjoint-only]
//! [--threads auto|N]` (`--threads`: the chain's `[schedule] threads`, default `auto`).

#[path = "../machine.rs"]
mod machine;
mod model_exchange;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tandem::gradient::{Checkpointing, CostSpec, Differences, Problem};
use tandem::system::{LoadOptions, System};

/// Masses in the chain (with one spring between neighbours).
const MASSES: usize = 17;
/// The macro step.
const MACRO_STEP: f64 = 1e-3;

/// Command-line settings.
struct Settings {
    fmus: PathBuf,
    steps: usize,
    repetitions: usize,
    memory_steps: usize,
    /// `cost` or `memory`: only that part (default: both).
    part: Option<String>,
    /// Part 1 times only the forward run and the adjoint (to profile the adjoint alone).
    adjoint_only: bool,
    /// Set in a child process: measure one gradient's peak memory with this checkpointing.
    child: Option<String>,
    /// The chain's `[schedule] threads`, as written in the system file.
    threads: String,
}

fn main() {
    let settings = parse_arguments();
    if let Some(mode) = &settings.child {
        measure_memory(&settings, mode);
        return;
    }
    machine::print_machine();
    let wants = |part: &str| settings.part.as_deref().is_none_or(|p| p == part);
    if wants("cost") {
        cost(&settings);
    }
    if wants("model-exchange") {
        model_exchange::cost_model_exchange(&settings);
    }
    if wants("memory") {
        memory(&settings);
    }
}

/// Reads the arguments (cargo's own `--bench` flag is ignored).
fn parse_arguments() -> Settings {
    const USAGE: &str = "usage: gradient --fmus <folder> [--steps N] [--repetitions R] \
                         [--memory-steps M] [--part cost|model-exchange|memory] [--adjoint-only] \
                         [--threads auto|N]";
    let mut settings = Settings {
        fmus: PathBuf::new(),
        steps: 1000,
        repetitions: 3,
        memory_steps: 1_000_000,
        part: None,
        adjoint_only: false,
        child: None,
        threads: "\"auto\"".into(),
    };
    let mut args = std::env::args().skip(1);
    let number = |value: Option<String>| -> usize {
        value
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .expect(USAGE)
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--fmus" => settings.fmus = args.next().map(PathBuf::from).expect(USAGE),
            "--steps" => settings.steps = number(args.next()),
            "--repetitions" => settings.repetitions = number(args.next()),
            "--memory-steps" => settings.memory_steps = number(args.next()),
            "--part" => settings.part = args.next(),
            "--adjoint-only" => settings.adjoint_only = true,
            "--child" => settings.child = args.next(),
            "--threads" => {
                settings.threads = match args.next().expect(USAGE).as_str() {
                    "auto" => "\"auto\"".into(),
                    n => number(Some(n.to_string())).to_string(),
                }
            }
            "--bench" => {}
            other => panic!("unknown argument {other}; {USAGE}"),
        }
    }
    assert!(!settings.fmus.as_os_str().is_empty(), "{USAGE}");
    settings
}

/// The chain: `MASSES` masses (`summing_mass`: force from the left spring on `F1`, from the
/// right one on `F2`), each on a spring to ground, neighbours coupled by a spring and damper; Jacobi, zero-order hold, `steps` macro steps on `threads`. Written into `dir`.
fn chain(fmus: &Path, steps: usize, threads: &str, dir: &Path) -> PathBuf {
    let folder = fmus.join("fmi3");
    let folder = folder
        .canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    let mass = folder.join("summing_mass.fmu");
    let spring = folder.join("spring_damper.fmu");
    let mut connections = Vec::new();
    let mut components = String::new();
    for i in 1..=MASSES {
        let velocity = if i % 2 == 0 { -1.0 } else { 1.0 };
        components += &format!(
            "[[component]]\nname = \"mass{i}\"\nfmu = '{}'\n\
             parameters = {{ m = {:?}, k = {:?}, c = 0.1 }}\nstart = {{ x = 0.0, v = {velocity:?} }}\n\n",
            mass.display(),
            1.0 + 0.05 * i as f64,
            10.0 * i as f64,
        );
    }
    for i in 1..MASSES {
        let (a, b) = (format!("mass{i}"), format!("mass{}", i + 1));
        components += &format!(
            "[[component]]\nname = \"spring{i}\"\nfmu = '{}'\n\
             parameters = {{ k = {:?}, c = 0.5, l0 = 0.0 }}\n\n",
            spring.display(),
            100.0 + i as f64,
        );
        for (from, to) in [
            (format!("{a}.position"), format!("spring{i}.x_a")),
            (format!("{a}.velocity"), format!("spring{i}.v_a")),
            (format!("{b}.position"), format!("spring{i}.x_b")),
            (format!("{b}.velocity"), format!("spring{i}.v_b")),
            (format!("spring{i}.f_a"), format!("{a}.F2")),
            (format!("spring{i}.f_b"), format!("{b}.F1")),
        ] {
            connections.push(format!("    \"{from} -> {to}\",\n"));
        }
    }
    let text = format!(
        "connections = [\n{}]\n\n[experiment]\nstop = {:?}\nstep = {MACRO_STEP:?}\n\n{components}\
         [schedule]\nkind = \"jacobi\"\nextrapolation = \"zoh\"\nthreads = {}\n",
        connections.concat(),
        steps as f64 * MACRO_STEP,
        threads,
    );
    let path = dir.join("chain.toml");
    std::fs::write(&path, text).expect("write the chain's system file");
    path
}

/// The chain's parameters in the order they are taken: per mass `m`, `k`, then per spring
/// `k`, `c`, interleaved along the chain.
fn chain_parameters(count: usize) -> Vec<String> {
    let mut names = Vec::new();
    for i in 1..=MASSES {
        names.push(format!("mass{i}.m"));
        names.push(format!("mass{i}.k"));
        if i < MASSES {
            names.push(format!("spring{i}.k"));
            names.push(format!("spring{i}.c"));
        }
    }
    assert!(
        count <= names.len(),
        "the chain has {} parameters",
        names.len()
    );
    names.truncate(count);
    names
}

/// The largest entry-wise difference of `other` to `reference`, relative to `reference`'s
/// largest entry: parameters far from the cost's output have derivatives many orders smaller,
/// which differences cannot resolve.
fn largest_difference(reference: &[f64], other: &[f64]) -> f64 {
    let scale = reference.iter().fold(0.0, |m: f64, a| m.max(a.abs()));
    reference
        .iter()
        .zip(other)
        .map(|(a, b)| (a - b).abs() / scale)
        .fold(0.0, f64::max)
}

/// Wall and CPU time of one piece of work.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Times {
    wall: Duration,
    cpu: Duration,
}

/// The median wall and CPU times of `repetitions` calls of `work` (each median on its own),
/// and its last result.
fn timed<T>(repetitions: usize, mut work: impl FnMut() -> T) -> (Times, T) {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut result = None;
    for _ in 0..repetitions {
        let (start, cpu_start) = (Instant::now(), process_cpu_time());
        result = Some(work());
        walls.push(start.elapsed());
        cpus.push(process_cpu_time().saturating_sub(cpu_start));
    }
    let median = |mut times: Vec<Duration>| {
        times.sort();
        times[(times.len() - 1) / 2]
    };
    let times = Times {
        wall: median(walls),
        cpu: median(cpus),
    };
    (times, result.expect("at least one repetition"))
}

/// The CPU time the process has run so far, all its threads together (those of the
/// co-simulations' Jacobi pools too, their spinning included): unlike wall time, it does not
/// count the time other programs on a loaded machine hold the processors.
fn process_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points to one.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "the process's CPU clock");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Part 1: one gradient against one forward run, three methods, p = 4 and 64.
fn cost(settings: &Settings) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = chain(
        &settings.fmus,
        settings.steps,
        &settings.threads,
        dir.path(),
    );
    // The parameters are taken from mass1 on: the cost watches their end of the chain.
    let cost = CostSpec::Integral {
        output: "mass1.position".into(),
    };
    println!(
        "Chain of {MASSES} masses and {} springs ({} FMI 3.0 FMUs), Jacobi ZOH, {} macro steps \
         of {MACRO_STEP} s, threads = {}, cost integral of mass1.position; median of {} runs \
         (finite differences: 1 run); the ratios are of wall times, except the one of CPU \
         times (the process's time on processors, all threads, which a loaded machine \
         inflates less). \
         Differences between methods: the largest entry-wise difference relative to the \
         gradient's largest entry.\n",
        MASSES - 1,
        2 * MASSES - 1,
        settings.steps,
        settings.threads,
        settings.repetitions
    );
    println!(
        "| p | forward run (s) | adjoint (s) | adjoint / run | adjoint / run (CPU time) | \
         adjoint, every state kept / run | forward sensitivities (s) | forw. sens. / run | \
         central differences (s) | differences / run | max. diff. adjoint vs forw. sens. | \
         vs differences |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in [4, 64] {
        let system = System::load(&path, LoadOptions::default()).expect("the chain loads");
        let names = chain_parameters(p);
        let mut problem =
            Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves");
        let values = problem.start_values();
        let repetitions = settings.repetitions;
        let (run, _) = timed(repetitions, || problem.cost(&values).expect("a run"));
        let (adjoint_time, adjoint) = timed(repetitions, || {
            problem.gradient(&values).expect("the adjoint")
        });
        problem = problem.with_checkpointing(Checkpointing::Off);
        let (kept_time, _) = timed(repetitions, || {
            problem
                .gradient(&values)
                .expect("the adjoint, every state kept")
        });
        problem = problem.with_checkpointing(Checkpointing::Automatic);
        let secs = |d: Duration| d.as_secs_f64();
        let ratio = |t: Times| secs(t.wall) / secs(run.wall);
        print!(
            "| {p} | {:.3} | {:.3} | {:.2} | {:.2} | {:.2} |",
            secs(run.wall),
            secs(adjoint_time.wall),
            ratio(adjoint_time),
            secs(adjoint_time.cpu) / secs(run.cpu),
            ratio(kept_time),
        );
        if settings.adjoint_only {
            println!(" - | - | - | - | - | - |");
            continue;
        }
        let (forward_time, forward) = timed(repetitions, || {
            problem
                .forward_gradient(&values)
                .expect("the forward sensitivities")
        });
        let all: Vec<usize> = (0..p).collect();
        let (differences_time, differences) = timed(1, || {
            problem
                .finite_differences(&values, &all, Differences::CHECK)
                .expect("the differences")
        });
        println!(
            " {:.3} | {:.2} | {:.3} | {:.1} | {:.1e} | {:.1e} |",
            secs(forward_time.wall),
            ratio(forward_time),
            secs(differences_time.wall),
            ratio(differences_time),
            largest_difference(&adjoint.gradient, &forward.gradient),
            largest_difference(&adjoint.gradient, &differences),
        );
    }
    println!();
}

/// The double oscillator of `master/systems`, with its FMUs from `fmus`, over `steps` macro
/// steps.
fn double_oscillator(fmus: &Path, steps: usize) -> System {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("systems")
        .join("double-oscillator-jacobi.toml");
    let fmu_dir = fmus.join("fmi3");
    let mut system = System::load(
        &path,
        LoadOptions {
            fmu_dir: Some(&fmu_dir),
            stop_time: Some(steps as f64 * MACRO_STEP),
            // The shipped file keeps a [gradient] section.
            sections: tandem::cli::SYSTEM_FILE_SECTIONS,
            ..LoadOptions::default()
        },
    )
    .expect("the double oscillator loads");
    system.set_recorded(Vec::new());
    system
}

/// Part 2: peak memory over a long run, each case in a child process.
fn memory(settings: &Settings) {
    println!(
        "Double oscillator (3 FMI 3.0 FMUs, master/systems/double-oscillator-jacobi.toml), \
         {} macro steps, cost integral of mass1.position, gradient by 3 parameters \
         (mass1.k, spring.k, mass2.m); peak resident set size (VmHWM) of a child process doing \
         one thing.\n",
        settings.memory_steps
    );
    println!(
        "| what | checkpoints | wall time (s) | peak RSS (MiB) | macro steps recorded at once |"
    );
    println!("|---|---|---:|---:|---:|");
    let program = std::env::current_exe().expect("the benchmark's own path");
    for mode in ["run", "automatic", "off"] {
        let start = Instant::now();
        let output = Command::new(&program)
            .arg("--fmus")
            .arg(&settings.fmus)
            .args(["--memory-steps", &settings.memory_steps.to_string()])
            .args(["--child", mode])
            .output()
            .expect("the child process starts");
        let elapsed = start.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            println!(
                "| {mode} | - | {elapsed:.1} | failed: {} | - |",
                String::from_utf8_lossy(&output.stderr).trim()
            );
            continue;
        }
        let (what, checkpoints) = match mode {
            "run" => ("forward run (cost only)", "-".to_string()),
            "automatic" => (
                "adjoint gradient",
                format!(
                    "every {}th point",
                    (settings.memory_steps as f64).sqrt().ceil()
                ),
            ),
            _ => ("adjoint gradient", "none (every state kept)".to_string()),
        };
        let (rss, recorded) = stdout
            .trim()
            .split_once(' ')
            .unwrap_or((stdout.trim(), "?"));
        println!("| {what} | {checkpoints} | {elapsed:.1} | {rss} | {recorded} |");
    }
    println!();
}

/// In the child: one run or one gradient, then the peak resident set size in MiB and the most
/// macro steps a component's record held at once.
fn measure_memory(settings: &Settings, mode: &str) {
    let system = double_oscillator(&settings.fmus, settings.memory_steps);
    let names: Vec<String> = ["mass1.k", "spring.k", "mass2.m"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let cost = CostSpec::Integral {
        output: "mass1.position".into(),
    };
    let checkpointing = match mode {
        "off" => Checkpointing::Off,
        _ => Checkpointing::Automatic,
    };
    let mut problem = Problem::new(system, &names, &cost, "--parameters")
        .expect("the problem resolves")
        .with_checkpointing(checkpointing);
    let values = problem.start_values();
    if mode == "run" {
        problem.cost(&values).expect("the run");
    } else {
        problem.gradient(&values).expect("the gradient");
    }
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    println!("{:.0} {}", kib / 1024.0, problem.peak_steps_recorded());
}
