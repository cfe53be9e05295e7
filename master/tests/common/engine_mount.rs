//! The engine mount FMU (seed 000) for identification tests: its system files, alone or with
//! `[[experiments]]`, measurements made by a run at known parameters, and the fitted values
//! that `tandem identify` writes.

use std::path::{Path, PathBuf};

use tandem::gradient::{CostSpec, Problem};
use tandem::system::{LoadOptions, System};
use tandem_tests::fmus::{self, FmiVersion};

/// Writes the measurements of `output` made by a run of `system` with `values` of `names`:
/// the columns `time` and `output` at the cost points.
pub fn measure(system: &Path, names: &[&str], values: &[f64], output: &str, into: &Path) {
    let system = System::load(system, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let cost = CostSpec::Integral {
        output: output.into(),
    };
    let mut problem =
        Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves");
    let outputs = problem.outputs(values).expect("the run");
    let mut text = format!("time,{output}\n");
    for (t, y) in outputs.times.iter().zip(&outputs.columns[0].1) {
        text += &format!("{t:?},{y:?}\n");
    }
    std::fs::write(into, text).expect("write the measurements");
}

/// The fitted values from a `parameter,start,fitted,lower,upper` file, by name.
pub fn fitted(path: &Path) -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(path).expect("the fitted parameters");
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[0].to_string(), fields[2].parse().expect("a number"))
        })
        .collect()
}

/// The engine mount alone, at u_init, with its load acceleration recorded.
pub fn engine_mount(dir: &Path, stop: f64, step: f64) -> PathBuf {
    engine_mount_file(dir, "engine-mount.toml", stop, step, "", "")
}

/// [`engine_mount`] into `file`, with `parameters` more (`, A = 50.0`) and `after` written after
/// the component's parameters (its start table, or tables of the system file).
pub fn engine_mount_file(
    dir: &Path,
    file: &str,
    stop: f64,
    step: f64,
    parameters: &str,
    after: &str,
) -> PathBuf {
    let fmu = fmus::find("engine_mount", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let text = format!(
        r#"[experiment]
stop = {stop:?}
step = {step:?}

[[component]]
name = "mount"
fmu = '{fmu}'
parameters = {{ c_E1 = 1.5e5, c_E2 = 8.0e9, d_E = 300.0, d_H2 = 5.0{parameters} }}
{after}
[output]
variables = ["mount.load_acceleration"]
"#
    );
    let path = dir.join(file);
    std::fs::write(&path, text).expect("write the system file");
    path
}

/// The three experiments of the multi-experiment tests: force amplitude (N), initial load
/// displacement (m) and weight.
pub const EXPERIMENTS: [(f64, f64, f64); 3] =
    [(50.0, 0.0, 1.0), (100.0, 1e-3, 2.0), (200.0, -1e-3, 0.5)];

/// Writes each experiment's measurements, made at `optimum` of `names`, and a system file with
/// their `[[experiments]]` entries; returns it and each experiment's own system file (its
/// settings as parameters and start values of the component), each `stop` seconds long at
/// steps of 1 ms.
pub fn three_experiments(
    dir: &Path,
    names: &[&str],
    optimum: &[f64],
    stop: f64,
) -> (PathBuf, Vec<PathBuf>) {
    let step = 1e-3;
    let mut entries = String::new();
    let mut singles = Vec::new();
    for (k, (amplitude, x1, weight)) in EXPERIMENTS.into_iter().enumerate() {
        // Each experiment's own system: its amplitude and initial displacement in the file.
        let single = engine_mount_file(
            dir,
            &format!("experiment-{k}.toml"),
            stop,
            step,
            &format!(", A = {amplitude:?}"),
            &format!("start = {{ x1 = {x1:?} }}\n"),
        );
        let data = dir.join(format!("measured-{k}.csv"));
        measure(&single, names, optimum, "mount.load_acceleration", &data);
        entries += &format!(
            "\n[[experiments]]\ndata = \"measured-{k}.csv\"\nweight = {weight:?}\nstart = {{ \"mount.A\" = {amplitude:?}, \"mount.x1\" = {x1:?} }}\n"
        );
        singles.push(single);
    }
    let system = engine_mount_file(dir, "engine-mount.toml", stop, step, "", &entries);
    (system, singles)
}
