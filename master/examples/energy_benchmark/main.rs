//! The energy-correction benchmark: every benchmark system of `master/systems/energy-*.toml`
//! co-simulated uncorrected and corrected at its macro step H and at 2H, 5H and 10H (every
//! component step scaled alike, so multi-rate ratios stay), compared with its monolithic
//! reference; the largest macro step whose state error stays within 5 % of the reference's
//! range; and the cost of monitoring and correction per macro step. Prints Markdown.
//!
//! Run with `cargo xtask bench energy` (a release build of this example).

mod reference;

use std::path::Path;
use std::time::Duration;

use tandem::instance::{LogLevel, LogSettings};
use tandem::run::{run, RunOptions, RunSummary};
use tandem_tests::double_oscillator::DoubleOscillator;
use tandem_tests::fmus::{self, FmiVersion};

use reference::{LinearOscillator, Reference, Sampled};

/// Step multiples of the tables.
const MULTIPLES: [f64; 4] = [1.0, 2.0, 5.0, 10.0];
/// Step multiples searched for the largest accurate step (a superset of [`MULTIPLES`]),
/// ascending.
const SWEEP: [f64; 14] = [
    0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0,
];
/// The accuracy: the largest state error at most this fraction of the reference's
/// peak-to-peak range of the compared states.
const ACCURACY: f64 = 0.05;
/// Runs per variant in the cost measurement (the median is reported).
const COST_RUNS: usize = 7;

/// One benchmark: a system file, the result columns compared with the reference, and the
/// reference.
struct Benchmark {
    label: &'static str,
    system: &'static str,
    compared: Vec<String>,
    reference: Box<dyn Reference>,
}

/// What one run gave.
#[derive(Clone)]
enum Outcome {
    /// Energy error at the end (J) and largest state error (in the states' unit).
    Done { energy: f64, state: f64 },
    /// The run failed.
    Failed(String),
}

impl Outcome {
    fn state_error(&self) -> Option<f64> {
        match self {
            Outcome::Done { state, .. } => Some(*state),
            Outcome::Failed(_) => None,
        }
    }

    fn cells(&self) -> [String; 2] {
        match self {
            Outcome::Done { energy, state } => [format!("{energy:.3e}"), format!("{state:.3e}")],
            Outcome::Failed(why) => [why.clone(), "-".into()],
        }
    }
}

fn main() {
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let runner = Runner {
        fmu_dir: &fmu_dir,
        scratch: scratch.path(),
    };
    println!("## Energy monitoring and correction\n");
    let benchmarks = benchmarks(&runner);
    let mut largest = Vec::new();
    for benchmark in &benchmarks {
        eprintln!("benchmark {} ...", benchmark.label);
        let sweep: Vec<[Outcome; 2]> = SWEEP
            .iter()
            .map(|&multiple| {
                [false, true].map(|correct| runner.compare(benchmark, multiple, correct))
            })
            .collect();
        print_table(benchmark, &runner, &sweep);
        largest.push((benchmark, largest_accurate(benchmark, &sweep)));
    }
    println!(
        "### Largest macro step within {:.0} % of the reference's range\n",
        ACCURACY * 100.0
    );
    println!("| benchmark | H (file) | uncorrected | corrected |");
    println!("|---|---:|---:|---:|");
    for (benchmark, [off, on]) in largest {
        let h = runner.macro_step(benchmark.system);
        let cell = |m: Option<f64>| {
            m.map_or(format!("below {}H", SWEEP[0]), |m| {
                format!("{:e} s ({m}H)", m * h)
            })
        };
        println!(
            "| {} | {h:e} | {} | {} |",
            benchmark.label,
            cell(off),
            cell(on)
        );
    }
    println!();
    print_cost(&runner);
}

/// A finished run: its summary and its result file's header and rows.
struct Finished {
    summary: RunSummary,
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
}

/// Runs system files with scaled steps and the test FMUs.
struct Runner<'a> {
    fmu_dir: &'a Path,
    scratch: &'a Path,
}

impl Runner<'_> {
    /// The text of `master/systems/<system>.toml`.
    fn text(&self, system: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("systems")
            .join(format!("{system}.toml"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The macro step of a system file.
    fn macro_step(&self, system: &str) -> f64 {
        let table: toml::Table = self.text(system).parse().expect("a valid system file");
        table["experiment"]["step"]
            .as_float()
            .expect("[experiment] step")
    }

    /// Runs `text` (a system file) with the correction on or off; the result file's header
    /// and rows, or the error.
    fn run(&self, text: &str, correct: bool) -> Result<Finished, tandem::Error> {
        let path = self.scratch.join("system.toml");
        std::fs::write(&path, text).expect("write the system file");
        let output = self.scratch.join("result.csv");
        let options = RunOptions {
            output_file: Some(output.clone()),
            fmu_dir: Some(self.fmu_dir.to_path_buf()),
            log: LogSettings {
                level: LogLevel::Off,
                ..LogSettings::default()
            },
            correction: Some(correct),
            ..RunOptions::default()
        };
        let summary = run(&path, &options)?;
        let mut reader = csv::Reader::from_path(&output).expect("read the result file");
        let header = reader
            .headers()
            .expect("a header")
            .iter()
            .map(String::from)
            .collect();
        let rows = reader
            .records()
            .map(|r| {
                r.expect("a row")
                    .iter()
                    .map(|v| v.parse().expect("a number"))
                    .collect()
            })
            .collect();
        Ok(Finished {
            summary,
            header,
            rows,
        })
    }

    /// Runs `benchmark` with every step times `multiple` and compares it with its reference.
    fn compare(&self, benchmark: &Benchmark, multiple: f64, correct: bool) -> Outcome {
        let text = scaled(&self.text(benchmark.system), multiple);
        let Finished { header, rows, .. } = match self.run(&text, correct) {
            Ok(result) => result,
            Err(tandem::Error::Cosim(tandem_cosim::Error::Simulation { time, .. })) => {
                return Outcome::Failed(format!("fails at t = {time:.3} s"))
            }
            Err(other) => return Outcome::Failed(other.to_string()),
        };
        let column = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("{}: no column {name}", benchmark.system))
        };
        let compared: Vec<usize> = benchmark.compared.iter().map(|c| column(c)).collect();
        let energy = column("total_energy");
        let mut state = 0.0f64;
        for row in rows.iter().filter(|row| benchmark.reference.covers(row[0])) {
            let expected = benchmark.reference.states(row[0]);
            for (&c, e) in compared.iter().zip(expected) {
                state = state.max((row[c] - e).abs());
            }
        }
        let last = rows.last().expect("rows");
        Outcome::Done {
            energy: (last[energy] - benchmark.reference.energy(last[0])).abs(),
            state,
        }
    }
}

/// `text` with the experiment's and every component's step times `multiple`.
fn scaled(text: &str, multiple: f64) -> String {
    let mut table: toml::Table = text.parse().expect("a valid system file");
    let scale = |value: &mut toml::Value| {
        let step = value.as_float().expect("a step");
        *value = toml::Value::Float(step * multiple);
    };
    scale(
        table
            .get_mut("experiment")
            .and_then(|e| e.get_mut("step"))
            .expect("[experiment] step"),
    );
    if let Some(components) = table
        .get_mut("component")
        .and_then(toml::Value::as_array_mut)
    {
        for component in components {
            if let Some(step) = component.get_mut("step") {
                scale(step);
            }
        }
    }
    table.to_string()
}

/// The benchmarks with their references.
fn benchmarks(runner: &Runner<'_>) -> Vec<Benchmark> {
    let positions = |names: &[&str]| names.iter().map(|n| format!("{n}.position")).collect();
    let linear = |label, system, compared: Vec<String>, oscillator| Benchmark {
        label,
        system,
        compared,
        reference: Box::new(LinearOscillator(oscillator)),
    };
    let light = DoubleOscillator {
        m2: 0.1,
        ..DoubleOscillator::DAMPED
    };
    vec![
        linear(
            "double oscillator, case 0",
            "energy-double-oscillator",
            positions(&["m1", "m2"]),
            DoubleOscillator::UNDAMPED,
        ),
        linear(
            "double oscillator, damped",
            "energy-double-oscillator-damped",
            positions(&["m1", "m2"]),
            DoubleOscillator::DAMPED,
        ),
        linear(
            "double oscillator, m2 = 0.1 kg",
            "energy-double-oscillator-light-mass",
            positions(&["m1", "m2"]),
            light,
        ),
        linear(
            "double oscillator, multi-rate",
            "energy-double-oscillator-multirate",
            positions(&["m1", "m2"]),
            DoubleOscillator::UNDAMPED,
        ),
        linear(
            "3-DOF oscillator",
            "energy-oscillator-3dof",
            positions(&["m1", "m3"]),
            DoubleOscillator::UNDAMPED,
        ),
        linear(
            "5-DOF oscillator",
            "energy-oscillator-5dof",
            positions(&["m1", "m5"]),
            DoubleOscillator::UNDAMPED,
        ),
        Benchmark {
            label: "nonlinear oscillator",
            system: "energy-nonlinear-oscillator",
            compared: positions(&["m1", "m2"]),
            reference: Box::new(reference::nonlinear_oscillator(10.0)),
        },
        Benchmark {
            label: "coupled pendula",
            system: "energy-pendula",
            compared: ["p1.tip_x", "p1.tip_y", "p2.tip_x", "p2.tip_y"]
                .map(String::from)
                .to_vec(),
            reference: Box::new(reference::pendula(10.0)),
        },
        Benchmark {
            label: "hydraulic crane, multi-rate",
            system: "energy-crane-multirate",
            compared: vec!["arm.s_c".into()],
            reference: Box::new(monolithic_crane(runner)),
        },
    ]
}

/// The monolithic crane FMU (`crane-monolithic.toml`): actuator length and arm energy every 10 ms.
fn monolithic_crane(runner: &Runner<'_>) -> Sampled {
    let Finished { header, rows, .. } = runner
        .run(&runner.text("crane-monolithic"), false)
        .expect("the monolithic crane runs");
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (s, energy) = (column("crane.s_c"), column("total_energy"));
    let interval = rows[1][0] - rows[0][0];
    Sampled::from_samples(
        interval,
        rows.iter().map(|r| vec![r[s]]).collect(),
        rows.iter().map(|r| r[energy]).collect(),
    )
}

/// The table of one benchmark at the step multiples of [`MULTIPLES`].
fn print_table(benchmark: &Benchmark, runner: &Runner<'_>, sweep: &[[Outcome; 2]]) {
    let h = runner.macro_step(benchmark.system);
    println!(
        "### {} (`master/systems/{}.toml`, H = {h:e} s)\n\nCompared: {}.\n",
        benchmark.label,
        benchmark.system,
        benchmark.compared.join(", ")
    );
    println!("| macro step | uncorrected: energy error (J) | max state error | corrected: energy error (J) | max state error |");
    println!("|---|---:|---:|---:|---:|");
    for multiple in MULTIPLES {
        let index = SWEEP
            .iter()
            .position(|&m| m == multiple)
            .expect("MULTIPLES within SWEEP");
        let [off, on] = &sweep[index];
        let [e0, s0] = off.cells();
        let [e1, s1] = on.cells();
        println!(
            "| {multiple}H = {:e} s | {e0} | {s0} | {e1} | {s1} |",
            multiple * h
        );
    }
    println!();
}

/// The largest multiple of the sweep, uncorrected and corrected, up to which every run stays
/// within the accuracy.
fn largest_accurate(benchmark: &Benchmark, sweep: &[[Outcome; 2]]) -> [Option<f64>; 2] {
    let range = reference_range(benchmark);
    [0, 1].map(|side| {
        let mut largest = None;
        for (&multiple, outcomes) in SWEEP.iter().zip(sweep) {
            match outcomes[side].state_error() {
                Some(error) if error <= ACCURACY * range => largest = Some(multiple),
                _ => break,
            }
        }
        largest
    })
}

/// The peak-to-peak range of the reference's compared states over 10 s, sampled every 10 ms.
fn reference_range(benchmark: &Benchmark) -> f64 {
    let samples: Vec<Vec<f64>> = (0..=1000)
        .map(|k| k as f64 * 0.01)
        .filter(|&t| benchmark.reference.covers(t))
        .map(|t| benchmark.reference.states(t))
        .collect();
    (0..benchmark.compared.len())
        .map(|j| {
            let values = samples.iter().map(|s| s[j]);
            values.clone().fold(f64::NEG_INFINITY, f64::max) - values.fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max)
}

/// The double oscillator without energy monitoring, monitored, and corrected: median wall time
/// (loading and initialization included) and FMU calls per macro step.
fn print_cost(runner: &Runner<'_>) {
    let monitored = runner.text("energy-double-oscillator");
    let start = monitored.find("[[bond]]").expect("a bond");
    let end = monitored.find("[output]").expect("an [output] table");
    let plain = format!("{}{}", &monitored[..start], &monitored[end..]);
    let variants = [
        ("no monitoring", plain.as_str(), false),
        ("monitoring", monitored.as_str(), false),
        ("monitoring and correction", monitored.as_str(), true),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    let mut calls = vec![0.0; variants.len()];
    // Alternate the variants so that load changes on the machine hit them alike.
    for _ in 0..COST_RUNS {
        for (i, (_, text, correct)) in variants.iter().enumerate() {
            let Finished { summary, .. } = runner
                .run(text, *correct)
                .expect("the double oscillator runs");
            let steps = summary.macro_steps as u32;
            times[i].push(summary.wall_time / steps);
            calls[i] = summary.fmu_calls as f64 / f64::from(steps);
        }
    }
    println!("### Cost per macro step (double oscillator, H = 1 ms, 10 s, {COST_RUNS} runs each, median)\n");
    println!("| variant | wall time per macro step (us) | relative | FMU calls per macro step |");
    println!("|---|---:|---:|---:|");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort();
            t[t.len() / 2].as_secs_f64() * 1e6
        })
        .collect();
    for (i, (label, _, _)) in variants.iter().enumerate() {
        println!(
            "| {label} | {:.2} | {:.2} | {:.1} |",
            medians[i],
            medians[i] / medians[0],
            calls[i]
        );
    }
    println!();
}
