//! Energy monitoring and correction on the nonlinear benchmarks of Rodríguez et al. (2022),
//! run from the system files in `master/systems/`: the double nonlinear oscillator, the
//! coupled pendula and the hydraulic crane (against the published monolithic reference of the
//! LIM co-simulation benchmarks, copied into `tests/data/lim-cosim-benchmarks/`).

mod common;

use std::path::PathBuf;

use common::energy::{run_system, Finished, Variant};
use tandem::energy::monitor::residual_power;

/// Runs system file `name` with the correction on or off.
fn run(name: &str, correction: bool) -> Finished {
    run_system(
        name,
        &Variant {
            correction: Some(correction),
            ..Variant::default()
        },
    )
}

/// |E(end) - E(start)|.
fn energy_error(run: &Finished) -> f64 {
    let (e0, e1) = run.ends("total_energy");
    (e1 - e0).abs()
}

#[test]
fn the_correction_cuts_the_nonlinear_oscillators_energy_error() {
    let (off, on) = (
        run("energy-nonlinear-oscillator", false),
        run("energy-nonlinear-oscillator", true),
    );
    // Measured: 872 J uncorrected, 109 J corrected (mu = 0.5, nu = 0.25): a factor of 8.0.
    let factor = energy_error(&off) / energy_error(&on);
    assert!(
        factor > 5.0,
        "{} J / {} J",
        energy_error(&off),
        energy_error(&on)
    );
}

#[test]
fn the_correction_removes_the_pendulas_energy_error() {
    let (off, on) = (run("energy-pendula", false), run("energy-pendula", true));
    // With HHT in both pendula the energy error is the whole residual energy (measured
    // 1.006), not half of it as with symplectic Euler: hence mu = 1 in the system file.
    let ratio = off.energy_ratio();
    assert!((0.9..1.1).contains(&ratio), "(E - E0) / dE = {ratio}");
    // Measured: 0.103 J uncorrected, 6.6e-4 J corrected: a factor of about 150.
    let factor = energy_error(&off) / energy_error(&on);
    assert!(
        factor > 50.0,
        "{} J / {} J",
        energy_error(&off),
        energy_error(&on)
    );
    // The force is a vector along mass 2's velocity.
    assert!(on.header.iter().any(|h| h == "bond1.f_corr[2]"));
}

/// One row of the monolithic reference: time, actuator length and rate, actuator force.
struct ReferenceRow {
    t: f64,
    s: f64,
    rate: f64,
    force: f64,
}

/// The monolithic reference (columns `t,s,sd,p1,p2,f`), every 10 ms.
fn reference() -> Vec<ReferenceRow> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/lim-cosim-benchmarks/hydraulicManipulator_refM2.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the crane reference {}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next().map(str::trim),
        Some("t,s,sd,p1,p2,f"),
        "{}",
        path.display()
    );
    lines
        .map(|line| {
            let values: Vec<f64> = line.split(',').map(|v| v.trim().parse().unwrap()).collect();
            ReferenceRow {
                t: values[0],
                s: values[1],
                rate: values[2],
                force: values[5],
            }
        })
        .collect()
}

/// The largest |s_c - s_ref| (m) over the reference's times.
fn largest_deviation(run: &Finished) -> f64 {
    let (time, length) = (run.column("time"), run.column("arm.s_c"));
    reference()
        .iter()
        .map(|row| {
            let k = time
                .iter()
                .position(|&tk| (tk - row.t).abs() < 1e-9)
                .unwrap_or_else(|| panic!("no result row at t = {}", row.t));
            (length[k] - row.s).abs()
        })
        .fold(0.0, f64::max)
}

#[test]
fn the_uncorrected_multi_rate_crane_follows_the_reference_and_raises_no_warning() {
    // H = 10 ms, cylinder at 0.25 ms with FOH (the paper's Fig. 35 set-up), uncorrected.
    // Measured: 1.18 mm (first order in H: 0.14 mm at H = 1 ms, 0.64 mm at 5 ms).
    let off = run("energy-crane-multirate", false);
    let deviation = largest_deviation(&off);
    assert!(deviation < 2e-3, "uncorrected: {deviation} m");
    assert_eq!(off.warnings(), Vec::<String>::new());
}

#[test]
fn the_crane_residual_energy_is_that_of_the_sampled_reference() {
    // On exact signals f_k v_{k+1} - f_{k+1} v_k = H (f v' - f' v) + O(H^2): the residual
    // energy has a part of order H that owes nothing to the coupling. Here it is all of it:
    // the reference sampled at the macro step gives 136.89 J, the co-simulation 136.84 J
    // (measured), so its sign is the trajectory's, whatever the integrators or extrapolation.
    let off = run("energy-crane-multirate", false);
    let sampled: f64 = reference()
        .windows(2)
        .map(|w| {
            (w[1].t - w[0].t)
                * residual_power(&[w[0].force], &[w[0].rate], &[w[1].force], &[w[1].rate])
        })
        .sum();
    let (_, measured) = off.ends("bond1.dE");
    assert!(sampled > 100.0, "reference: {sampled} J");
    assert!(
        (measured - sampled).abs() < 0.01 * sampled,
        "co-simulation {measured} J, reference {sampled} J"
    );
}

#[test]
fn the_corrected_multi_rate_crane_stays_within_three_millimetres() {
    // The paper's Fig. 35: mu = 0.0125, nu = 0, cap min(10 % |f|, 100 N). The paper reports
    // 2 mm; here the residual energy is positive (that of the sampled reference, checked
    // above), so the correction removes energy and the arm sinks a little further: measured
    // 2.81 mm at 10 s (docs/benchmarks.md explains the sign). 3 mm bounds that, and a wrong
    // correction (a sign error or a missing cap: 6.09 mm with a 1000 N cap) exceeds it.
    let on = run("energy-crane-multirate", true);
    let deviation = largest_deviation(&on);
    assert!(deviation < 3e-3, "corrected: {deviation} m");
    assert!(deviation > largest_deviation(&run("energy-crane-multirate", false)));
    assert_eq!(on.warnings(), Vec::<String>::new());
}

#[test]
fn the_crane_near_its_stability_limit_is_flagged() {
    // H = 11.5 ms, cylinder at 0.1 ms with FOH, uncorrected (the paper's Figs. 36-37): a
    // spurious oscillation grows from about 2 s and dies out by about 5 s.
    let run = run("energy-crane-jacobi-limit", false);
    let warnings = &run.summary.energy.as_ref().unwrap().warnings;
    assert!(
        warnings.iter().any(|w| w.from < 4.0 && w.to > 3.0),
        "{:?}",
        run.warnings()
    );
    // The oscillation shows in the actuator rate, far beyond the reference's.
    let rate = run.column("arm.s_c_dot");
    assert!(rate.iter().any(|v| v.abs() > 0.3));
}
