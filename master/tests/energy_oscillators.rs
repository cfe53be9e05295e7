//! Energy monitoring and correction on the linear oscillators of Rodríguez et al. (2022), run
//! from the system files in `master/systems/` with the `coupled_mass`, `mass` and
//! `summing_mass` FMUs, against the numbers of the paper and of our independent reproduction
//! (digest of the paper, Part C):
//!
//! - single-rate Jacobi ZOH, H = 1 ms, 10 s: uncorrected, the energy about doubles and the
//!   energy error is about half the residual energy (mu = 0.5); corrected with mu = 0.5, nu = 0
//!   and a 100 % cap, the energy stays within 3 % of its start;
//! - multi-rate, 2 s: the ratio of energy error to residual energy follows the mu rules.

mod common;

use common::energy::{run_system, Finished, Variant};
use tandem_tests::double_oscillator::DoubleOscillator;

const DOUBLE: &str = "energy-double-oscillator";

/// The energy of the undamped benchmark from the recorded states.
fn energy_from_states(run: &Finished, k: usize) -> f64 {
    let p = DoubleOscillator::UNDAMPED;
    let value = |name: &str| run.column(name)[k];
    let (x1, x2) = (value("m1.position"), value("m2.position"));
    let (v1, v2) = (value("m1.velocity"), value("m2.velocity"));
    0.5 * (p.m1 * v1 * v1 + p.m2 * v2 * v2 + p.k1 * x1 * x1 + p.k2 * x2 * x2)
        + 0.5 * p.kc * (x1 - x2) * (x1 - x2)
}

#[test]
fn uncorrected_the_energy_doubles_by_half_the_residual_energy_and_is_flagged() {
    let run = run_system(DOUBLE, &Variant::default());
    let (e0, e1) = run.ends("total_energy");
    assert_eq!(e0, 10_000.0);
    // The total energy sums the subsystems' energy outputs read with the actual states of
    // both masses (not the held inputs): it is the coupled system's energy.
    for k in [1, 2_500, 5_000, 10_000] {
        let expected = energy_from_states(&run, k);
        let total = run.column("total_energy")[k];
        assert!(
            (total - expected).abs() < 1e-9 * expected,
            "row {k}: {total} vs {expected}"
        );
    }
    // Paper: the energy about doubles over 10 s; digest: E(10 s) = 20 243 J.
    assert!((e1 / e0 - 2.02).abs() < 0.05, "E(10 s) / E0 = {}", e1 / e0);
    let ratio = run.energy_ratio();
    assert!((0.45..=0.55).contains(&ratio), "(E - E0) / dE = {ratio}");
    let warnings = run.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("positive on average from t = 0 s")),
        "{warnings:?}"
    );
}

#[test]
fn corrected_with_mu_one_half_the_energy_stays_within_three_percent() {
    let run = run_system(
        DOUBLE,
        &Variant {
            correction: Some(true),
            ..Variant::default()
        },
    );
    let report = run.summary.energy.as_ref().unwrap();
    assert!(report.corrected);
    assert_eq!(report.bonds[0].mu, Ok(0.5), "mu = \"auto\": single-rate");
    let (e0, e1) = run.ends("total_energy");
    assert!((e1 - e0).abs() < 0.03 * e0, "E(10 s) - E0 = {} J", e1 - e0);
    assert_eq!(run.warnings(), Vec::<String>::new());
    // The correction force is recorded and does act.
    let force = run.column("bond1.f_corr");
    assert!(force.iter().any(|f| f.abs() > 100.0));
}

/// Runs the double oscillator for 2 s with mass 1 (feedthrough side) at `h1`, mass 2 at `h2`
/// and `extrapolation`; mass 1 holds its inputs when it is the slower side.
fn multi_rate(h1: &str, h2: &str, extrapolation: &str) -> Finished {
    let step = |h: &str| h.parse::<f64>().expect("a step");
    let slower_holds = if step(h1) > step(h2) {
        "\nextrapolation = \"zoh\""
    } else {
        ""
    };
    let m1 = format!("name = \"m1\"\nstep = {h1}{slower_holds}");
    let m2 = format!("name = \"m2\"\nstep = {h2}");
    let hold = format!("extrapolation = \"{extrapolation}\"");
    run_system(
        DOUBLE,
        &Variant {
            // The schedule's hold first: mass 1 may get a hold line of its own.
            edits: &[
                ("extrapolation = \"zoh\"", &hold),
                ("name = \"m1\"", &m1),
                ("name = \"m2\"", &m2),
            ],
            stop_time: Some(2.0),
            ..Variant::default()
        },
    )
}

#[test]
fn multi_rate_energy_errors_follow_the_mu_rules() {
    // (mass 1 step, mass 2 step, extrapolation, the rules' mu); h_df / h_ndf = 10 or 0.1.
    let cases = [
        ("1e-3", "1e-4", "zoh", 0.725),
        ("1e-3", "1e-4", "foh", 0.5),
        ("1e-4", "1e-3", "zoh", 0.5),
        ("1e-4", "1e-3", "foh", 0.05),
    ];
    for (h1, h2, extrapolation, mu) in cases {
        let run = multi_rate(h1, h2, extrapolation);
        let ratio = run.energy_ratio();
        assert!(
            (ratio - mu).abs() < 0.05,
            "h1 = {h1}, h2 = {h2}, {extrapolation}: (E - E0) / dE = {ratio}, rule {mu}"
        );
        let automatic = &run.summary.energy.as_ref().unwrap().bonds[0].mu;
        assert_eq!(automatic, &Ok(mu), "mu = \"auto\"");
    }
}

#[test]
fn the_n_dof_oscillators_gain_and_lose_what_the_double_one_does() {
    let double = run_system(DOUBLE, &Variant::default())
        .ends("total_energy")
        .1;
    for n in [3, 5] {
        let name = format!("energy-oscillator-{n}dof");
        let run = run_system(&name, &Variant::default());
        let (e0, e1) = run.ends("total_energy");
        assert!(
            (e1 - double).abs() < 1e-9 * double,
            "n = {n}: {e1} J vs {double} J"
        );
        // Each of the n - 1 bonds carries 1 / (n - 1) of the residual energy.
        let residual: f64 = (1..n).map(|i| run.ends(&format!("bond{i}.dE")).1).sum();
        assert!((0.45..=0.55).contains(&((e1 - e0) / residual)), "n = {n}");
        let corrected = run_system(
            &name,
            &Variant {
                correction: Some(true),
                ..Variant::default()
            },
        );
        let (e0, e1) = corrected.ends("total_energy");
        assert!(
            (e1 - e0).abs() < 0.03 * e0,
            "n = {n}, corrected: {} J",
            e1 - e0
        );
    }
}
