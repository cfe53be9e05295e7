//! Gradients through the energy correction of power bonds, on the double linear oscillator of
//! Tandem's FMI 3.0 FMUs in the force-displacement split of the energy study
//! (`systems/energy-double-oscillator*.toml`: `m1` with the coupling spring, `m2` driven by its
//! force, one bond `m1.f x m2.velocity`). The gradient's runs must apply the very corrections
//! `tandem run` applies, and the adjoint must agree with central differences of the corrected
//! co-simulation, single- and multi-rate; without the correction's derivative it must not.

mod common;

use std::path::Path;

use common::energy::{run_system, system_file, Variant};
use common::gradient::adjoint_and_differences;
use tandem::gradient::{Checkpointing, CostSpec, Problem};
use tandem::system::{LoadOptions, System};
use tandem_tests::fmus::{self, FmiVersion};

/// The parameters differentiated: both springs and the mass of `m1`, the mass and spring of `m2`.
const PARAMETERS: [&str; 5] = ["m1.kc", "m1.k", "m1.m", "m2.m", "m2.k"];

/// The length of the runs (s): 300 macro steps of 1 ms.
const STOP: f64 = 0.3;

/// The system file `name` of `systems/` changed by `edits`, written to `dir`.
fn write_system(dir: &Path, name: &str, edits: &[(&str, &str)]) -> std::path::PathBuf {
    let text = std::fs::read_to_string(system_file(name)).expect("read the system file");
    let text = edits.iter().fold(text, |text, (from, to)| {
        assert!(text.contains(from), "{from:?} is not in {name}.toml");
        text.replacen(from, to, 1)
    });
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write the system file");
    path
}

/// The gradient problem of `cost` on system file `name` changed by `edits`, run to [`STOP`].
fn problem(name: &str, edits: &[(&str, &str)], cost: &str) -> Problem {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = write_system(dir.path(), name, edits);
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        stop_time: Some(STOP),
        ..LoadOptions::default()
    };
    let system = System::load(&path, options).expect("the system loads");
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    let cost = CostSpec::Integral {
        output: cost.into(),
    };
    Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves")
}

const CORRECTED: (&str, &str) = ("correction = false", "correction = true");

/// Asserts that the adjoint of system `name` changed by `edits` (a variant called `variant`)
/// agrees with central differences to 1e-6 relative for every parameter.
fn agrees(name: &str, variant: &str, edits: &[(&str, &str)]) {
    let mut problem = problem(name, edits, "m2.position");
    let label = format!("{name}, {variant}:");
    for (i, error) in adjoint_and_differences(&mut problem, &label)
        .into_iter()
        .enumerate()
    {
        assert!(error < 1e-6, "{label} {}: error {error:.1e}", PARAMETERS[i]);
    }
}

#[test]
fn the_gradient_runs_apply_the_corrections_of_tandem_run() {
    for output in ["m2.position", "m1.f"] {
        let mut problem = problem("energy-double-oscillator", &[CORRECTED], output);
        assert!(problem.corrects_energy());
        let values = problem.start_values();
        let outputs = problem.outputs(&values).expect("the outputs");
        let (name, simulated, _) = &outputs.columns[0];
        assert_eq!(name, output);
        let variant = |correction| Variant {
            correction: Some(correction),
            stop_time: Some(STOP),
            ..Variant::default()
        };
        let corrected = run_system("energy-double-oscillator", &variant(true));
        let column = corrected.column(output);
        // The run's rows are the macro points t_0 .. t_N; the cost's points stop at t_{N-1}.
        assert_eq!(simulated.len() + 1, column.len());
        for (k, (a, b)) in simulated.iter().zip(&column).enumerate() {
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "{output} at point {k}: {a} vs {b}"
            );
        }
        // The correction acts: the uncorrected run differs.
        let uncorrected = run_system("energy-double-oscillator", &variant(false));
        let largest = simulated
            .iter()
            .zip(uncorrected.column(output))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!("{output}: largest change by the correction {largest:e}");
        assert!(largest > 1e-3, "{output}: {largest}");
    }
}

#[test]
fn the_adjoint_through_the_correction_agrees_with_finite_differences_single_rate() {
    agrees("energy-double-oscillator", "uncorrected", &[]);
    agrees("energy-double-oscillator", "corrected", &[CORRECTED]);
    agrees(
        "energy-double-oscillator",
        "corrected, leftover U (nu > 0), cap binding at many points",
        &[
            CORRECTED,
            ("[energy]\n", "[energy]\nnu = 0.5\ncap_fraction = 0.05\n"),
        ],
    );
    agrees(
        "energy-double-oscillator",
        "corrected, Gauss-Seidel (m1 reads m2's values of the same point), FOH",
        &[
            CORRECTED,
            (
                "kind = \"jacobi\"",
                "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]",
            ),
            ("extrapolation = \"zoh\"", "extrapolation = \"foh\""),
            ("[energy]\n", "[energy]\nmu = 0.5\n"),
        ],
    );
    agrees(
        "energy-double-oscillator",
        "corrected, m2 a Model Exchange FMU integrated by the master",
        &[
            CORRECTED,
            (
                "fmu = \"../../target/fmus/fmi3/mass.fmu\"\n",
                "fmu = \"../../target/fmus/fmi3/mass.fmu\"\ninterface = \"me\"\ntolerance = 1e-12\n",
            ),
        ],
    );
}

#[test]
fn the_adjoint_through_the_correction_agrees_with_finite_differences_multi_rate() {
    agrees("energy-double-oscillator-multirate", "uncorrected", &[]);
    agrees(
        "energy-double-oscillator-multirate",
        "corrected",
        &[CORRECTED],
    );
}

#[test]
fn without_the_correction_derivative_the_adjoint_is_wrong() {
    let mut problem = problem("energy-double-oscillator", &[CORRECTED], "m2.position")
        .with_correction_derivative(false);
    let errors = adjoint_and_differences(&mut problem, "without the correction's derivative");
    let largest = errors.iter().copied().fold(0.0, f64::max);
    assert!(largest > 1e-2, "largest error {largest:.1e}");
}

#[test]
fn forward_sensitivities_through_the_correction_agree_with_the_adjoint() {
    for name in [
        "energy-double-oscillator",
        "energy-double-oscillator-multirate",
    ] {
        let mut problem = problem(
            name,
            &[
                CORRECTED,
                ("[energy]\n", "[energy]\nnu = 0.5\ncap_fraction = 0.05\n"),
            ],
            "m1.position",
        );
        let values = problem.start_values();
        let adjoint = problem.gradient(&values).expect("the adjoint");
        let forward = problem
            .forward_gradient(&values)
            .expect("the forward sweep");
        assert_eq!(forward.cost, adjoint.cost);
        for (i, (&f, &a)) in forward.gradient.iter().zip(&adjoint.gradient).enumerate() {
            let error = (f - a).abs() / a.abs();
            println!(
                "{name} {}: forward {f:e}, adjoint {a:e}, {error:.1e}",
                PARAMETERS[i]
            );
            assert!(error < 1e-10, "{name} {}: {f} vs {a}", PARAMETERS[i]);
        }
    }
}

#[test]
fn the_command_line_switch_turns_the_correction_in_the_gradient_off_and_on() {
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let path = system_file("energy-double-oscillator-gradient");
    let gradient = |extra: &[&str]| {
        let mut args = vec![
            "gradient",
            path.to_str().expect("a UTF-8 path"),
            "--stop-time",
            "0.1",
            "--fmu-dir",
            fmu_dir.to_str().expect("a UTF-8 path"),
        ];
        args.extend(extra);
        let run = common::tandem(&args);
        run.assert_success();
        run.stdout
    };
    let (file, on, off) = (
        gradient(&[]),
        gradient(&["--energy-correction", "on"]),
        gradient(&["--energy-correction", "off"]),
    );
    assert!(file.contains("energy correction on"), "{file}");
    assert_eq!(on, file);
    assert!(!off.contains("energy correction on"), "{off}");
    let cost = |stdout: &str| stdout.lines().next().unwrap_or_default().to_string();
    assert_ne!(cost(&off), cost(&on), "{off}\n{on}");
    // A system without power bonds cannot be corrected, and says so.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plain = write_system(dir.path(), "double-oscillator-jacobi", &[]);
    let run = common::tandem(&[
        "gradient",
        plain.to_str().expect("a UTF-8 path"),
        "--energy-correction",
        "on",
        "--fmu-dir",
        fmu_dir.to_str().expect("a UTF-8 path"),
    ]);
    run.assert_fails_with("the energy correction needs energy monitoring");
}

#[test]
fn the_shipped_gradient_system_file_gives_the_adjoint_through_the_correction() {
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let path = system_file("energy-double-oscillator-gradient");
    let run = common::tandem(&[
        "gradient",
        path.to_str().expect("a UTF-8 path"),
        "--check",
        "--fmu-dir",
        fmu_dir.to_str().expect("a UTF-8 path"),
    ]);
    run.assert_success();
    assert!(
        run.stdout.contains("energy correction on"),
        "{}",
        run.stdout
    );
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("parameter"))
        .skip(1)
        .collect();
    assert_eq!(rows.len(), 4, "{}", run.stdout);
    for row in rows {
        assert!(row.contains("adjoint"), "{row}");
        let error: f64 = row
            .split_whitespace()
            .last()
            .and_then(|e| e.parse().ok())
            .expect("a relative error");
        assert!(error < 1e-6, "{row}");
    }
}

#[test]
fn with_checkpoints_the_corrected_gradient_is_that_of_the_whole_record() {
    let leftover_and_cap = ("[energy]\n", "[energy]\nnu = 0.5\ncap_fraction = 0.05\n");
    let gauss_seidel = (
        "kind = \"jacobi\"",
        "kind = \"gauss-seidel\"\norder = [\"m2\", \"m1\"]",
    );
    let foh = ("extrapolation = \"zoh\"", "extrapolation = \"foh\"");
    let variants: [(&str, &[(&str, &str)]); 3] = [
        ("energy-double-oscillator", &[CORRECTED, leftover_and_cap]),
        (
            "energy-double-oscillator",
            &[
                CORRECTED,
                leftover_and_cap,
                gauss_seidel,
                foh,
                ("[energy]\n", "[energy]\nmu = 0.5\n"),
            ],
        ),
        ("energy-double-oscillator-multirate", &[CORRECTED]),
    ];
    let steps = (STOP / 1e-3).round() as usize;
    for (name, edits) in variants {
        let gradients = |checkpointing| {
            let mut problem = problem(name, edits, "m2.position").with_checkpointing(checkpointing);
            let values = problem.start_values();
            let adjoint = problem.gradient(&values).expect("the adjoint").gradient;
            let adjoint_peak = problem.peak_steps_recorded();
            let forward = problem
                .forward_gradient(&values)
                .expect("the forward sweep")
                .gradient;
            let forward_peak = problem.peak_steps_recorded();
            (adjoint, forward, adjoint_peak.max(forward_peak))
        };
        let (adjoint, forward, peak) = gradients(Checkpointing::Off);
        assert_eq!(peak, steps, "{name}: without checkpoints, the whole run");
        for interval in [3, 7] {
            let (checkpointed, checkpointed_forward, peak) =
                gradients(Checkpointing::Interval(interval));
            assert!(
                peak <= interval,
                "{name}, every {interval}: {peak} macro steps recorded at once"
            );
            // A re-run reproduces the first run bit for bit, and the sweeps do the same
            // operations in the same order: the gradients are the same numbers.
            for (label, with, without) in [
                ("adjoint", &checkpointed, &adjoint),
                ("forward", &checkpointed_forward, &forward),
            ] {
                for (i, (a, b)) in with.iter().zip(without).enumerate() {
                    assert_eq!(
                        a.to_bits(),
                        b.to_bits(),
                        "{name}, every {interval}, {label} {}: {a:e} vs {b:e}",
                        PARAMETERS[i]
                    );
                }
            }
        }
    }
}
