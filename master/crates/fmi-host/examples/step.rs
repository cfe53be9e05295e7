//! Loads an FMU, steps it in Co-Simulation and prints its Float64 outputs at every step.
//!
//! ```text
//! cargo run -p fmi-host --example step -- path/to/Model.fmu [stop time] [step size]
//! ```
//!
//! Without arguments it runs the Modelica Reference-FMU `BouncingBall` (FMI 3.0) that the
//! repository keeps for its tests.

use std::path::PathBuf;

use fmi_host::instance::LogSettings;
use fmi_host::model_description::{Causality, InterfaceType, VariableType};
use fmi_host::Fmu;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/reference-fmus/fmi3/BouncingBall.fmu")
    });
    let stop: f64 = args.next().map_or(Ok(1.0), |a| a.parse())?;
    let step: f64 = args.next().map_or(Ok(0.1), |a| a.parse())?;

    let fmu = Fmu::open(&path)?;
    let md = fmu.model_description();
    let outputs: Vec<_> = md
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output && v.ty == VariableType::Float64)
        .collect();
    let references: Vec<u32> = outputs.iter().map(|v| v.value_reference).collect();
    let mut values = vec![0.0; references.len()];

    let mut instance = fmu.instantiate(
        InterfaceType::CoSimulation,
        "example",
        LogSettings::default(),
    )?;
    instance.enter_initialization_mode(None, 0.0, Some(stop))?;
    instance.exit_initialization_mode()?;

    let names: Vec<&str> = outputs.iter().map(|v| v.name.as_str()).collect();
    println!("time,{}", names.join(","));
    let (mut time, mut steps) = (0.0, 0u32);
    loop {
        instance.get_real(&references, &mut values)?;
        let row: Vec<String> = values.iter().map(f64::to_string).collect();
        println!("{time},{}", row.join(","));
        if time >= stop - 1e-9 * step {
            break;
        }
        let outcome = instance.do_step(time, step)?;
        // Times as multiples of the step, so that they do not drift by repeated sums.
        steps += 1;
        time = if outcome.partial {
            outcome.last_time
        } else {
            f64::from(steps) * step
        };
        if outcome.terminate {
            break;
        }
    }
    instance.terminate()?;
    Ok(())
}
