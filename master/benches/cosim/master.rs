//! A system co-simulated in-process by the master library, timed in two parts: loading and
//! initialization, and the macro-step loop.

use std::path::Path;
use std::time::{Duration, Instant};

use tandem::instance::LogSettings;
use tandem::schedule::{CoSimulation, Progress};
use tandem::simulate::{grid_intervals, grid_point};
use tandem::system::{LoadOptions, System};

/// What one co-simulation took and where it ended.
pub struct Run {
    /// Loading the system file, unpacking and instantiating the FMUs, initialization.
    pub setup: Duration,
    /// The macro-step loop (FMI calls and communication), termination excluded.
    pub stepping: Duration,
    /// Macro steps taken.
    pub macro_steps: usize,
    /// The recorded variables at the stop time, as `component.variable` and value.
    pub final_values: Vec<(String, f64)>,
}

impl Run {
    /// The final value of `name` (`component.variable`), NaN if it is not recorded.
    pub fn value(&self, name: &str) -> f64 {
        self.final_values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(f64::NAN, |&(_, v)| v)
    }
}

/// Co-simulates `path` (TOML, `.ssd` or `.ssp`) from its start to its stop time.
pub fn run(path: &Path, options: LoadOptions<'_>) -> tandem::Result<Run> {
    let started = Instant::now();
    let system = System::load(path, options)?;
    let mut cosimulation = CoSimulation::initialize(&system, &LogSettings::default())?;
    let setup = started.elapsed();
    let started = Instant::now();
    let intervals = grid_intervals(system.start, system.macro_step, system.stop);
    for k in 1..=intervals {
        let to = grid_point(system.start, system.macro_step, k, system.stop);
        if let Progress::Terminated { component, time } = cosimulation.step(to)? {
            panic!(
                "{}: {component} ended the run at t = {time}",
                path.display()
            );
        }
    }
    let stepping = started.elapsed();
    let final_values = system
        .recorded
        .iter()
        .map(|&port| {
            let name = port.display(&system.components).to_string();
            (name, cosimulation.value(port))
        })
        .collect();
    cosimulation.terminate()?;
    Ok(Run {
        setup,
        stepping,
        macro_steps: cosimulation.macro_steps(),
        final_values,
    })
}
