//! Gradients through a Model Exchange component on which the default solver (auto) changes to
//! the implicit method: a mass of 1 g on a soft spring and a strong damper to ground, whose
//! fast mode (-c/m = -1e4 per second) makes Dormand–Prince's steps stability-limited after the
//! first hundredth of a second. The adjoint then goes through the ESDIRK stages too and must
//! still agree with central differences of whole runs. `tandem run` names the methods that
//! ran in its summary.

mod common;

use common::gradient::adjoint_and_differences;
use tandem::gradient::{CostSpec, Problem};
use tandem::system::{LoadOptions, System};
use tandem_tests::fmus::{self, FmiVersion};

/// The stiff mass's parameters and start position.
const VALUES: [(&str, &str); 4] = [("m", "1e-3"), ("k", "1"), ("c", "10"), ("x", "1")];
/// The relative tolerance of the master's integrator.
const TOLERANCE: &str = "1e-8";

fn stiff_mass_system(version: FmiVersion) -> String {
    let fmu = &fmus::find("mass", version).path;
    let [m, k, c, x] = VALUES.map(|(_, value)| value);
    format!(
        "[experiment]\nstop = 2.0\nstep = 0.1\n\n\
         [[component]]\nname = \"mass\"\nfmu = {fmu:?}\ninterface = \"me\"\ntolerance = {TOLERANCE}\n\n\
         [component.parameters]\nm = {m}\nk = {k}\nc = {c}\n\n\
         [component.start]\nx = {x}\n"
    )
}

#[test]
fn auto_switches_to_esdirk_on_the_stiff_mass() {
    let fmu = &fmus::find("mass", FmiVersion::Fmi3).path;
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "simulate".to_string(),
        fmu.display().to_string(),
        "--interface-type".into(),
        "me".into(),
        "--stop-time".into(),
        "2".into(),
        "--relative-tolerance".into(),
        TOLERANCE.into(),
        "--output-file".into(),
        dir.path().join("out.csv").display().to_string(),
    ];
    for (name, value) in VALUES {
        args.extend(["--start-value".into(), format!("{name}={value}")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = common::tandem(&args);
    run.assert_success();
    assert!(
        run.stderr.contains("(auto: dopri5 0–") && run.stderr.contains(", esdirk "),
        "{}",
        run.stderr
    );
}

#[test]
fn tandem_run_names_the_methods_each_model_exchange_component_ran() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, system: String| {
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, system).unwrap();
        let output = dir.path().join(format!("{name}.csv"));
        let run = common::tandem(&[
            "run",
            file.to_str().unwrap(),
            "--output-file",
            output.to_str().unwrap(),
        ]);
        run.assert_success();
        run.stderr
    };
    let auto = run("auto", stiff_mass_system(FmiVersion::Fmi3));
    let line = auto
        .lines()
        .find(|line| line.starts_with("component mass: "))
        .unwrap_or_else(|| panic!("no line for the component: {auto}"));
    assert!(
        line.starts_with("component mass: Model Exchange (auto: dopri5 0–")
            && line.contains(", esdirk ")
            && line.contains("(1 switch)), "),
        "{line}"
    );
    let steps: usize = line
        .split("), ")
        .nth(1)
        .and_then(|tail| tail.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no step count: {line}"));
    assert!(steps > 0, "{line}");
    let esdirk = stiff_mass_system(FmiVersion::Fmi3).replace(
        "interface = \"me\"\n",
        "interface = \"me\"\nsolver = \"esdirk\"\n",
    );
    let fixed = run("esdirk", esdirk);
    assert!(
        fixed.contains("component mass: Model Exchange (esdirk), "),
        "{fixed}"
    );
}

#[test]
fn the_adjoint_through_implicit_steps_agrees_with_finite_differences() {
    // FMI 3.0 gives adjoint derivatives; FMI 2.0 only directional ones, from which the
    // transposed products and the implicit stages' Jacobians are assembled.
    for version in [FmiVersion::Fmi3, FmiVersion::Fmi2] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stiff-mass.toml");
        std::fs::write(&path, stiff_mass_system(version)).unwrap();
        let system = System::load(&path, LoadOptions::default()).expect("the system loads");
        let names = ["mass.k".to_string(), "mass.c".to_string()];
        let cost = CostSpec::Integral {
            output: "mass.position".into(),
        };
        let mut problem =
            Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves");
        let label = format!("stiff mass {version:?}");
        for (name, error) in names
            .iter()
            .zip(adjoint_and_differences(&mut problem, &label))
        {
            assert!(error < 1e-6, "{label} {name}: error {error:.1e}");
        }
    }
}
