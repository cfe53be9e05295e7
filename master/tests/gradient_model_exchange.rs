//! Gradients through Model Exchange FMUs integrated by the master: the double oscillator with
//! both masses as Model Exchange components (Dormand–Prince at a tight tolerance) and the
//! spring as a Co-Simulation FMU. The masses' step derivatives come from their FMUs' partial
//! derivatives through the solver's stages, so the adjoint must agree with central differences
//! of whole runs, with forward sensitivities, and across checkpoint intervals; a Model Exchange
//! component whose inputs follow an extrapolation within the step is reported as a fallback.

mod common;

use common::double_oscillator::Setup;
use common::gradient::adjoint_and_differences;
use tandem::gradient::{Checkpointing, CostSpec, Method, Problem};
use tandem::system::{LoadOptions, System};
use tandem_tests::fmus::{self, FmiVersion};

/// Parameters of both kinds of component: the Model Exchange masses' and the spring's.
const PARAMETERS: [&str; 4] = ["mass1.k", "mass2.m", "spring.k", "mass1.m"];

/// The double oscillator with Model Exchange masses integrated at relative tolerance 1e-12 (so
/// that the step-size controller's own response to a parameter, which the sensitivities leave
/// out, stays far below the differences' accuracy).
fn problem(setup: Setup, cost: &CostSpec) -> Problem {
    problem_of_masses(setup, cost, FmiVersion::Fmi3)
}

/// [`problem`] with the masses' FMU of FMI `version` (the spring's stays FMI 3.0, with the
/// adjoint extension).
fn problem_of_masses(setup: Setup, cost: &CostSpec, version: FmiVersion) -> Problem {
    let setup = Setup {
        mass_interface: "me",
        ..setup
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("double-oscillator.toml");
    let mass = |version| fmus::find("mass", version).path.display().to_string();
    let text = setup
        .toml()
        .replace(&mass(FmiVersion::Fmi3), &mass(version))
        .replace(
            "interface = \"me\"\n",
            "interface = \"me\"\ntolerance = 1e-12\n",
        );
    assert_eq!(text.matches("tolerance = 1e-12").count(), 2, "{text}");
    std::fs::write(&path, text).expect("write the system file");
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    Problem::new(system, &names, cost, "--parameters").expect("the problem resolves")
}

fn position_cost() -> CostSpec {
    CostSpec::Integral {
        output: "mass2.position".into(),
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn the_adjoint_through_the_masters_integrator_agrees_with_finite_differences() {
    // FMI 3.0 masses give adjoint derivatives (one call per stage); FMI 2.0 ones only
    // directional derivatives, from which the transposed products are assembled.
    for (setup, version) in [
        (Setup::jacobi("zoh", 1e-2), FmiVersion::Fmi3),
        (
            Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-2),
            FmiVersion::Fmi3,
        ),
        (Setup::jacobi("zoh", 1e-2), FmiVersion::Fmi2),
    ] {
        let label = format!("{} {} {version:?}", setup.kind, setup.extrapolation);
        let mut problem =
            problem_of_masses(Setup { stop: 0.5, ..setup }, &position_cost(), version);
        for (i, error) in adjoint_and_differences(&mut problem, &label)
            .into_iter()
            .enumerate()
        {
            assert!(error < 1e-6, "{label} {}: error {error:.1e}", PARAMETERS[i]);
        }
    }
}

#[test]
fn the_gradient_runs_compute_what_tandem_run_computes() {
    // The held-input steps integrate with the same solver, inputs and step sizes as a
    // co-simulation participant integrating the Model Exchange FMU under a zero-order hold.
    let setup = Setup {
        mass_interface: "me",
        stop: 0.5,
        ..Setup::jacobi("zoh", 1e-2)
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let system =
        System::load(&setup.write(dir.path()), LoadOptions::default()).expect("the system loads");
    let names = vec!["mass1.k".to_string()];
    let mut problem =
        Problem::new(system, &names, &position_cost(), "--parameters").expect("the problem");
    let values = problem.start_values();
    let outputs = problem.outputs(&values).expect("the outputs");
    let (_, simulated, _) = &outputs.columns[0];
    let run = setup.run();
    assert_eq!(simulated.len() + 1, run.states.len());
    for (k, (a, state)) in simulated.iter().zip(&run.states).enumerate() {
        assert_eq!(
            a.to_bits(),
            state[1].to_bits(),
            "mass2.position at point {k}: {a} vs {}",
            state[1]
        );
    }
    assert!(simulated.iter().any(|&x| x.abs() > 1e-3), "{simulated:?}");
}

#[test]
fn forward_sensitivities_and_checkpoints_give_the_same_model_exchange_gradient() {
    let cost = CostSpec::Integral {
        output: "mass1.velocity".into(),
    };
    let setup = Setup {
        stop: 0.3,
        ..Setup::jacobi("zoh", 1e-2)
    };
    let mut every_state = problem(setup.clone(), &cost).with_checkpointing(Checkpointing::Off);
    let values = every_state.start_values();
    let reference = every_state.gradient(&values).expect("the adjoint");
    let forward = every_state
        .forward_gradient(&values)
        .expect("the forward sensitivities");
    assert_eq!(forward.cost, reference.cost);
    for (i, (&f, &a)) in forward.gradient.iter().zip(&reference.gradient).enumerate() {
        let error = relative(f, a);
        println!(
            "{}: forward {f:e}, adjoint {a:e}, {error:.1e}",
            PARAMETERS[i]
        );
        assert!(error < 1e-10, "{}: forward {f}, adjoint {a}", PARAMETERS[i]);
    }
    // Re-running segments from checkpoints restores the solver's state with the FMU's, so the
    // re-runs repeat the first run's steps exactly.
    let mut checkpointed = problem(setup, &cost).with_checkpointing(Checkpointing::Interval(7));
    let again = checkpointed.gradient(&values).expect("the adjoint");
    assert_eq!(again.cost, reference.cost);
    assert_eq!(again.gradient, reference.gradient);
}

#[test]
fn a_model_exchange_component_under_an_extrapolation_falls_back_to_differences_and_says_why() {
    let mut problem = problem(
        Setup {
            stop: 0.1,
            ..Setup::jacobi("foh", 1e-2)
        },
        &position_cost(),
    );
    let values = problem.start_values();
    let evaluation = problem.gradient(&values).expect("the gradient");
    for method in &evaluation.methods {
        match method {
            Method::FiniteDifferences { reason } => {
                assert!(reason.contains("mass1"), "{reason}");
                assert!(reason.contains("FOH extrapolation"), "{reason}");
            }
            other => panic!("expected the fallback, got {other:?}"),
        }
    }
}

#[test]
fn the_command_says_which_components_the_master_differentiates_and_checks_them() {
    let setup = Setup {
        mass_interface: "me",
        stop: 0.3,
        ..Setup::jacobi("zoh", 1e-2)
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("system.toml");
    let section = "\n[gradient]\nparameters = [\"mass1.k\", \"spring.k\"]\ncost = \"integral:mass2.position\"\n";
    let text = setup.toml().replace(
        "interface = \"me\"\n",
        "interface = \"me\"\ntolerance = 1e-12\n",
    );
    std::fs::write(&path, text + section).expect("write the system file");
    let run = common::tandem(&["gradient", path.to_str().expect("a UTF-8 path"), "--check"]);
    run.assert_success();
    assert!(
        run.stdout
            .contains("Model Exchange components mass1, mass2: their steps are differentiated"),
        "{}",
        run.stdout
    );
    let rows: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("parameter"))
        .skip(1)
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    for row in rows {
        assert_eq!(row[3], "adjoint", "{row:?}");
        let error: f64 = row[5].parse().expect("a relative error");
        assert!(error < 1e-6, "{row:?}");
    }
}
