//! Part 2: the double oscillator as an SSP package of FMI 2.0 Co-Simulation FMUs, simulated by
//! FMPy's SSP simulator (`fmpy.ssp.simulation.simulate_ssp`) and by the master, each timed
//! in-process from opening the package to the stop time.
//!
//! FMPy's SSP simulator takes FMI 1.0/2.0 Co-Simulation FMUs only, steps at a fixed step, every
//! component from the values of the previous step (Jacobi with ZOH, in one thread), and applies
//! start values only through its `parameter_set` argument (not the SSD's parameter bindings):
//! the package carries the values for the master and the script passes the same ones to FMPy.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use tandem::system::LoadOptions;

use crate::master;
use crate::statistics::{median, seconds};

/// Stop time (s) and macro step (s), as in part 1.
const STOP: f64 = 10.0;
const STEP: f64 = 1e-3;

/// Start values of the three components, `component.variable = value` (LIM case 0).
const START_VALUES: [(&str, f64); 12] = [
    ("mass1.m", 1.0),
    ("mass1.k", 10.0),
    ("mass1.c", 0.0),
    ("mass1.x", 0.0),
    ("mass1.v", 100.0),
    ("spring.k", 100.0),
    ("spring.c", 0.0),
    ("mass2.m", 1.0),
    ("mass2.k", 1000.0),
    ("mass2.c", 0.0),
    ("mass2.x", 0.0),
    ("mass2.v", -100.0),
];

/// Times FMPy's SSP simulator `repetitions` times in one Python process and prints, as its
/// last line, `seconds of each run` then the final `x1 v1 x2 v2`.
const SCRIPT: &str = r#"
import sys, time, types
from fmpy.ssp.simulation import simulate_ssp
path, stop, step, repetitions = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
values = [types.SimpleNamespace(name=n, value=float(v)) for n, v in (a.split('=') for a in sys.argv[5:])]
parameters = types.SimpleNamespace(parameters=values)
times = []
for _ in range(repetitions):
    started = time.perf_counter()
    result = simulate_ssp(path, stop_time=stop, step_size=step, parameter_set=parameters)
    times.append(time.perf_counter() - started)
last = result[-1]
final = [last[n] for n in ('mass1.position', 'mass1.velocity', 'mass2.position', 'mass2.velocity')]
print(' '.join(repr(t) for t in times), '|', ' '.join(repr(float(v)) for v in final), '|', len(result))
"#;

/// The system structure description: three components with their connectors, the start
/// values inline, and the Tandem annotation for the macro step (one element: FMPy validates the
/// description against the SSP schema, which allows one element per annotation); the schedule
/// is the default, Jacobi with ZOH.
fn ssd() -> String {
    let connectors = |list: &[(&str, &str)]| -> String {
        list.iter()
            .map(|(name, kind)| {
                format!("          <ssd:Connector name=\"{name}\" kind=\"{kind}\"><ssc:Real/></ssd:Connector>\n")
            })
            .collect()
    };
    let mass = connectors(&[
        ("F", "input"),
        ("position", "output"),
        ("velocity", "output"),
    ]);
    let spring = connectors(&[
        ("x_a", "input"),
        ("v_a", "input"),
        ("x_b", "input"),
        ("v_b", "input"),
        ("f_a", "output"),
        ("f_b", "output"),
    ]);
    let component = |name: &str, source: &str, connectors: &str| {
        let parameters: String = START_VALUES
            .iter()
            .filter_map(|(full, value)| {
                let variable = full.strip_prefix(name)?.strip_prefix('.')?;
                Some(format!(
                    "                <ssv:Parameter name=\"{variable}\"><ssv:Real value=\"{value:?}\"/></ssv:Parameter>\n"
                ))
            })
            .collect();
        format!(
            "      <ssd:Component name=\"{name}\" type=\"application/x-fmu-sharedlibrary\" source=\"resources/{source}\">\n\
             \x20       <ssd:Connectors>\n{connectors}        </ssd:Connectors>\n\
             \x20       <ssd:ParameterBindings>\n          <ssd:ParameterBinding>\n            <ssd:ParameterValues>\n\
             \x20             <ssv:ParameterSet version=\"1.0\" name=\"{name}\">\n              <ssv:Parameters>\n{parameters}\
             \x20             </ssv:Parameters>\n              </ssv:ParameterSet>\n\
             \x20           </ssd:ParameterValues>\n          </ssd:ParameterBinding>\n        </ssd:ParameterBindings>\n\
             \x20     </ssd:Component>\n"
        )
    };
    let connections: String = [
        ("mass1", "position", "spring", "x_a"),
        ("mass1", "velocity", "spring", "v_a"),
        ("mass2", "position", "spring", "x_b"),
        ("mass2", "velocity", "spring", "v_b"),
        ("spring", "f_a", "mass1", "F"),
        ("spring", "f_b", "mass2", "F"),
    ]
    .iter()
    .map(|(a, ac, b, bc)| {
        format!("      <ssd:Connection startElement=\"{a}\" startConnector=\"{ac}\" endElement=\"{b}\" endConnector=\"{bc}\"/>\n")
    })
    .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    version="1.0" name="DoubleOscillator">
  <ssd:System name="DoubleOscillator">
    <ssd:Elements>
{}{}{}    </ssd:Elements>
    <ssd:Connections>
{connections}    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="tandem">
        <Experiment step="{STEP:?}"/>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0.0" stopTime="{STOP:?}"/>
</ssd:SystemStructureDescription>
"#,
        component("mass1", "mass.fmu", &mass),
        component("spring", "spring_damper.fmu", &spring),
        component("mass2", "mass.fmu", &mass),
    )
}

/// Writes the package `path` with the FMI 2.0 FMUs of `fmi2_dir`.
fn write_package(path: &Path, fmi2_dir: &Path) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).expect("create the package"));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let fmu = |name: &str| {
        let file = fmi2_dir.join(name);
        std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    };
    let entries = [
        ("SystemStructure.ssd", ssd().into_bytes()),
        ("resources/mass.fmu", fmu("mass.fmu")),
        ("resources/spring_damper.fmu", fmu("spring_damper.fmu")),
    ];
    for (name, content) in entries {
        writer
            .start_file(name, options)
            .expect("start a package entry");
        writer.write_all(&content).expect("write a package entry");
    }
    writer.finish().expect("finish the package");
}

/// Builds the package from the FMUs under `fmus/fmi2`, times FMPy and the master on it
/// `repetitions` times each, and prints the table.
pub fn compare(fmus: &Path, repetitions: usize) {
    let folder = tempfile::tempdir().expect("create a temporary folder");
    let package = folder.path().join("double-oscillator.ssp");
    write_package(&package, &fmus.join("fmi2"));

    let mut tandem_times = Vec::new();
    let mut tandem_final = [f64::NAN; 4];
    for _ in 0..repetitions {
        let run = master::run(&package, LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", package.display()));
        tandem_times.push(run.setup + run.stepping);
        let names = [
            "mass1.position",
            "mass1.velocity",
            "mass2.position",
            "mass2.velocity",
        ];
        tandem_final = names.map(|n| run.value(n));
    }

    let python = tandem_tests::python::python();
    let output = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(&package)
        .args([STOP.to_string(), STEP.to_string(), repetitions.to_string()])
        .args(START_VALUES.iter().map(|(n, v)| format!("{n}={v:?}")))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let parts: Vec<&str> = line.split(" | ").collect();
    let numbers = |i: usize| -> Vec<f64> {
        parts
            .get(i)
            .map(|p| {
                p.split_whitespace()
                    .filter_map(|n| n.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (fmpy_seconds, fmpy_final) = (numbers(0), numbers(1));
    if !output.status.success() || fmpy_seconds.len() != repetitions || fmpy_final.len() != 4 {
        println!("## Double oscillator through FMPy's SSP simulator\n");
        println!(
            "FMPy could not run the package ({}):\n\n```\n{}{}\n```\n",
            output.status,
            stdout,
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    let mut fmpy_times: Vec<Duration> = fmpy_seconds
        .iter()
        .map(|&s| Duration::from_secs_f64(s))
        .collect();
    let difference = fmpy_final
        .iter()
        .zip(tandem_final)
        .fold(0.0_f64, |d, (a, b)| d.max((a - b).abs()));
    println!("## Double oscillator, {STOP} s at H = {STEP} s, SSP package of FMI 2.0 FMUs: FMPy vs master\n");
    println!("| simulator | runs | each run (s) | median (s) |");
    println!("|---|---:|---|---:|");
    let fmpy_list = crate::cell(&fmpy_times);
    let tandem_list = crate::cell(&tandem_times);
    let (fmpy, tandem) = (median(&mut fmpy_times), median(&mut tandem_times));
    println!(
        "| FMPy `simulate_ssp` | {repetitions} | {fmpy_list} | {:.3} |",
        seconds(fmpy)
    );
    println!(
        "| tandem (Jacobi, ZOH) | {repetitions} | {tandem_list} | {:.3} |",
        seconds(tandem)
    );
    println!(
        "\nRatio FMPy / tandem (medians): {:.2}; FMPy rows: {}; max final-state difference: {difference:e}\n",
        seconds(fmpy) / seconds(tandem),
        parts.get(2).unwrap_or(&"?")
    );
}
