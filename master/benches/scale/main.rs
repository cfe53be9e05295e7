//! Systems of 1 to 1000 cheap components through the whole `tandem run` process: start-up,
//! memory, FMU calls and the cost per component and macro step, under Gauss-Seidel and Jacobi
//! on 1 and 2 threads. The systems are the generated ones of the tests
//! (`master/tests/common/generated_systems.rs`): the Reference-FMUs' Dahlquist and Feedthrough
//! chain and Feedthrough ring, and Tandem masses and springs; for these, also the adjoint
//! gradient's peak memory and wall time against the run's, with checkpoints and without. Prints
//! Markdown tables; nothing is asserted about the numbers.
//!
//! Usage: `scale --tandem <tandem binary> --reference <Reference-FMUs folder>
//! [--fmus <Tandem FMI 3.0 FMUs folder>] [--sizes 1,10,100,1000] [--repetitions N]`.

#[path = "../../tests/common/generated_systems.rs"]
mod generated_systems;
#[path = "../machine.rs"]
mod machine;
mod measure;

use std::path::{Path, PathBuf};

use generated_systems::{masses_and_springs_gradient, system_file, Shape};
use measure::{median_of, Measured};

/// Command-line settings.
struct Settings {
    tandem: PathBuf,
    reference: PathBuf,
    fmus: Option<PathBuf>,
    sizes: Vec<usize>,
    repetitions: usize,
}

/// Macro steps of the timed runs; the start-up runs take one.
const STEPS: usize = 1000;

/// A schedule and its threads.
struct Layout {
    label: &'static str,
    kind: &'static str,
    threads: Option<&'static str>,
}

const LAYOUTS: [Layout; 3] = [
    Layout {
        label: "Gauss-Seidel",
        kind: "gauss-seidel",
        threads: None,
    },
    Layout {
        label: "Jacobi, 1 thread",
        kind: "jacobi",
        threads: Some("1"),
    },
    Layout {
        label: "Jacobi, 2 threads",
        kind: "jacobi",
        threads: Some("2"),
    },
];

fn main() {
    let settings = parse_arguments();
    machine::print_machine();
    let folder = tempfile::tempdir().expect("create a temporary folder");
    let mut shapes = vec![
        (Shape::Chain, &settings.reference),
        (Shape::Ring, &settings.reference),
    ];
    if let Some(fmus) = &settings.fmus {
        shapes.push((Shape::MassesAndSprings, fmus));
    }
    for (shape, fmu_dir) in shapes {
        println!("## {}, {STEPS} macro steps of 1 ms\n", shape.label());
        println!(
            "| components | schedule | FMU calls outside the steps | start-up (ms) | \
             max RSS (MB) | whole run per component and step (us) | steps alone per \
             component and step (us) |"
        );
        println!("|---:|---|---:|---:|---:|---:|---:|");
        for &n in &settings.sizes {
            for layout in &LAYOUTS {
                let row = measure_case(&settings, folder.path(), shape, n, layout, fmu_dir);
                println!(
                    "| {n} | {} | {} | {:.1} | {:.1} | {:.3} | {:.3} |",
                    layout.label,
                    row.calls_outside_steps,
                    row.start_up.wall * 1e3,
                    row.start_up.max_rss_kb as f64 / 1024.0,
                    row.whole.wall / (STEPS * n) as f64 * 1e6,
                    (row.whole.wall - row.start_up.wall) / (STEPS * n) as f64 * 1e6,
                );
            }
        }
        println!();
    }
    if let Some(fmus) = &settings.fmus {
        gradient_memory(&settings, folder.path(), fmus);
    }
}

/// The adjoint gradient of masses and springs (Jacobi, one thread, [`STEPS`] macro steps, 4
/// parameters) against the run: peak memory and wall time, with the default checkpoints and
/// with every state kept (`--checkpoint-interval 0`).
fn gradient_memory(settings: &Settings, folder: &Path, fmus: &Path) {
    println!("## Adjoint gradient of masses and springs, {STEPS} macro steps, 4 parameters\n");
    println!(
        "| components | run max RSS (MB) | gradient max RSS, checkpoints (MB) | gradient max \
         RSS, every state (MB) | gradient / run, wall |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for &n in settings.sizes.iter().filter(|&&n| n >= 2) {
        let path = folder.join(format!("gradient-{n}.toml"));
        let text = system_file(Shape::MassesAndSprings, n, "jacobi", STEPS)
            + &masses_and_springs_gradient(n);
        std::fs::write(&path, text).expect("write a system");
        let output = folder.join("result.csv");
        let command = |words: &[&str]| -> Vec<String> {
            let common = [
                path.display().to_string(),
                "--fmu-dir".into(),
                fmus.display().to_string(),
                "--threads".into(),
                "1".into(),
            ];
            let (verb, rest) = words.split_first().expect("a verb");
            std::iter::once(verb.to_string())
                .chain(common)
                .chain(rest.iter().map(|w| w.to_string()))
                .collect()
        };
        let output = output.display().to_string();
        let (mut run, mut checkpoints, mut every) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..settings.repetitions {
            run.push(measure::run(
                &settings.tandem,
                &command(&["run", "--output-file", &output]),
            ));
            checkpoints.push(measure::run(&settings.tandem, &command(&["gradient"])));
            every.push(measure::run(
                &settings.tandem,
                &command(&["gradient", "--checkpoint-interval", "0"]),
            ));
        }
        let (run, checkpoints, every) =
            (median_of(&run), median_of(&checkpoints), median_of(&every));
        let megabytes = |m: &Measured| m.max_rss_kb as f64 / 1024.0;
        println!(
            "| {n} | {:.1} | {:.1} | {:.1} | {:.2} |",
            megabytes(&run),
            megabytes(&checkpoints),
            megabytes(&every),
            checkpoints.wall / run.wall,
        );
    }
    println!();
}

/// What one case measured: medians of a run of one macro step and of [`STEPS`], and the FMU
/// calls outside the steps (initialization and terminate).
struct Row {
    start_up: Measured,
    whole: Measured,
    calls_outside_steps: u64,
}

/// Runs `n` components shaped `shape` under `layout`, the short and the long run taking turns.
fn measure_case(
    settings: &Settings,
    folder: &Path,
    shape: Shape,
    n: usize,
    layout: &Layout,
    fmu_dir: &Path,
) -> Row {
    let path = folder.join(format!("{shape:?}-{n}-{}.toml", layout.kind));
    std::fs::write(&path, system_file(shape, n, layout.kind, STEPS)).expect("write a system");
    let output = folder.join("result.csv");
    let run = |steps: usize| {
        let mut args: Vec<String> = vec![
            "run".into(),
            path.display().to_string(),
            "--fmu-dir".into(),
            fmu_dir.display().to_string(),
            "--output-file".into(),
            output.display().to_string(),
            "--stop-time".into(),
            format!("{}", steps as f64 * 1e-3),
        ];
        if let Some(threads) = layout.threads {
            args.extend(["--threads".into(), threads.into()]);
        }
        measure::run(&settings.tandem, &args)
    };
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for _ in 0..settings.repetitions {
        short.push(run(1));
        long.push(run(STEPS));
    }
    let two = run(2);
    let one = short[0].fmu_calls;
    Row {
        // The second step of a run of two costs what the first does.
        calls_outside_steps: 2 * one - two.fmu_calls,
        start_up: median_of(&short),
        whole: median_of(&long),
    }
}

/// Reads the arguments; panics with the usage on anything else.
fn parse_arguments() -> Settings {
    let usage = "usage: scale --tandem <binary> --reference <folder> [--fmus <folder>] \
                 [--sizes 1,10,100,1000] [--repetitions N]";
    let mut settings = Settings {
        tandem: PathBuf::new(),
        reference: PathBuf::new(),
        fmus: None,
        sizes: vec![1, 10, 100, 1000],
        repetitions: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{arg} takes a value; {usage}"))
        };
        match arg.as_str() {
            "--tandem" => settings.tandem = value().into(),
            "--reference" => settings.reference = value().into(),
            "--fmus" => settings.fmus = Some(value().into()),
            "--sizes" => {
                settings.sizes = value()
                    .split(',')
                    .map(|n| {
                        n.parse()
                            .unwrap_or_else(|_| panic!("--sizes: {n}; {usage}"))
                    })
                    .collect()
            }
            "--repetitions" => {
                settings.repetitions =
                    value().parse().ok().filter(|&n| n > 0).unwrap_or_else(|| {
                        panic!("--repetitions takes a positive integer; {usage}")
                    })
            }
            "--bench" => {}
            other => panic!("unknown argument {other}; {usage}"),
        }
    }
    if settings.tandem.as_os_str().is_empty() || settings.reference.as_os_str().is_empty() {
        panic!("{usage}");
    }
    settings
}
