//! FMPy's command line (`fmpy validate`, `fmpy simulate`) as an independent FMI client.

use std::path::Path;
use std::process::Command;

use crate::python;
use crate::trajectory::Trajectory;

/// Runs `fmpy validate`; `Err` holds FMPy's list of problems.
pub fn validate(fmu: &Path) -> Result<(), String> {
    let output = Command::new(python::tool("fmpy"))
        .arg("validate")
        .arg(fmu)
        .output()
        .map_err(|e| format!("cannot run fmpy: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The interface FMPy simulates through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    /// Model Exchange, integrated by FMPy (CVode).
    ModelExchange,
    /// Co-Simulation: the FMU's own integrator, one `doStep` per output interval.
    CoSimulation,
}

/// Settings of one `fmpy simulate` run; `None` leaves FMPy's default (the model's
/// DefaultExperiment where it has one).
#[derive(Clone, Debug)]
pub struct Simulation<'a> {
    /// Interface to simulate.
    pub interface: Interface,
    /// Stop time.
    pub stop_time: Option<f64>,
    /// Output interval, which is the communication step size in co-simulation.
    pub output_interval: Option<f64>,
    /// CVode's relative tolerance (Model Exchange).
    pub relative_tolerance: Option<f64>,
    /// Start values set before initialization.
    pub start_values: &'a [(&'a str, f64)],
    /// Start values of arrays (FMI 3.0), each all its elements in row-major order.
    pub start_arrays: &'a [(&'a str, &'a [f64])],
    /// Variables to record (empty: FMPy records the outputs).
    pub outputs: &'a [&'a str],
}

impl<'a> Simulation<'a> {
    /// FMPy's defaults for `interface`.
    pub fn new(interface: Interface) -> Self {
        Simulation {
            interface,
            stop_time: None,
            output_interval: None,
            relative_tolerance: None,
            start_values: &[],
            start_arrays: &[],
            outputs: &[],
        }
    }
}

/// Runs `fmpy simulate` and reads its result; `Err` holds FMPy's messages.
pub fn simulate(fmu: &Path, s: &Simulation) -> Result<Trajectory, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let result = dir.path().join("result.csv");
    let mut command = Command::new(python::tool("fmpy"));
    command
        .arg("simulate")
        .arg(fmu)
        .arg("--output-file")
        .arg(&result);
    command.args([
        "--interface-type",
        match s.interface {
            Interface::ModelExchange => "ModelExchange",
            Interface::CoSimulation => "CoSimulation",
        },
    ]);
    if s.interface == Interface::ModelExchange {
        command.args(["--solver", "CVode"]);
    }
    let numbers = [
        ("--stop-time", s.stop_time),
        ("--output-interval", s.output_interval),
        ("--relative-tolerance", s.relative_tolerance),
    ];
    for (flag, value) in numbers {
        if let Some(value) = value {
            command.args([flag, &format!("{value:e}")]);
        }
    }
    if !s.start_values.is_empty() || !s.start_arrays.is_empty() {
        command.arg("--start-values");
        for (name, value) in s.start_values {
            // Positional notation: argparse takes `-9e0` for an option, but reads `-9` and
            // `-0.6` as negative numbers (Rust's shortest digits round-trip either way).
            command.args([name.to_string(), value.to_string()]);
        }
        for (name, values) in s.start_arrays {
            // One argument of space-separated elements, which FMPy splits for an array.
            let elements: Vec<String> = values.iter().map(f64::to_string).collect();
            command.args([name.to_string(), elements.join(" ")]);
        }
    }
    if !s.outputs.is_empty() {
        command.arg("--output-variables").args(s.outputs);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run fmpy: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "fmpy simulate {} failed ({}):\n{}\n{}",
            fmu.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Trajectory::read_csv(&result)
}

/// Runs `tests/python/strings.py` on `fmu`: sets the String parameter `parameter` to `value`,
/// simulates Co-Simulation to `stop` and returns what FMPy read back (see the script).
pub fn strings(
    fmu: &Path,
    parameter: &str,
    value: &str,
    output: &str,
    stop: f64,
) -> Result<serde_json::Value, String> {
    let script = python::workspace_root()
        .join("tests")
        .join("python")
        .join("strings.py");
    let output = Command::new(python::tool("python"))
        .arg(script)
        .arg(fmu)
        .args([parameter, value, output, &stop.to_string()])
        .output()
        .map_err(|e| format!("cannot run python: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "strings.py {} failed ({}):\n{stdout}\n{}",
            fmu.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).map_err(|e| format!("strings.py printed no JSON ({e}):\n{stdout}"))
}
