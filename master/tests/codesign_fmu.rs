//! `tandem codesign` on the plant FMUs: the reference values of the seed digest through the
//! FMU's derivatives (FMI 3.0 with adjoint derivatives, FMI 2.0 with directional ones only)
//! for the cart-pole and the quadrotor, the adjoint against central differences for every
//! example problem, the command's check, and its errors.

mod common;

use std::path::{Path, PathBuf};

use tandem::codesign::fmu_plant::FmuPlant;
use tandem::codesign::problem_file;
use tandem::codesign::{analyze, central_differences, gradient};
use tandem::Fmu;
use tandem_tests::fmus::{self, FmiVersion};

/// The example problem of the repository.
fn example() -> PathBuf {
    example_named("cart-pole")
}

/// The example problem `name` of the repository.
fn example_named(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/codesign/{name}.toml"))
}

#[test]
fn every_example_plant_fmu_has_the_adjoint_of_central_differences() {
    // (problem, FMU, f at the start design if the digest gives it)
    let examples = [
        ("quadrotor", "quadrotor", Some(7.944627)),
        ("duffing", "duffing", None),
        ("mass-spring-damper", "mass_spring_damper", None),
        ("mass-chain", "mass_chain", None),
    ];
    for (name, model, reference) in examples {
        let file = problem_file::read(&example_named(name)).expect("read the example");
        for version in FmiVersion::ALL {
            let fmu = Fmu::open(&fmus::find(model, version).path).expect("open the FMU");
            let mut plant = FmuPlant::new(&fmu, &file.plant).expect("instantiate the plant");
            let d = file.start();
            let a = analyze(&mut plant, &file.problem, &d).expect("analysis");
            if let Some(f) = reference {
                assert!(
                    (a.f / f - 1.0).abs() < 1e-7,
                    "{name} {version:?}: f = {}",
                    a.f
                );
            }
            if name == "quadrotor" {
                for speed in &a.u_target {
                    assert!((speed - 585.9607).abs() < 1e-4, "hover {:?}", a.u_target);
                }
            }
            let g = gradient(&mut plant, &file.problem, &a).expect("gradient");
            let fd = central_differences(&mut plant, &file.problem, &d, 1e-4).expect("check");
            for (i, (adjoint, difference)) in g.df_dd.iter().zip(fd.iter()).enumerate() {
                let scale = g.df_dd.amax();
                assert!(
                    (adjoint - difference).abs() < 1e-6 * scale,
                    "{name} {version:?} d{i}: adjoint {adjoint} vs differences {difference}"
                );
            }
        }
    }
}

#[test]
fn cart_pole_fmu_reproduces_the_reference_cost_and_gradient() {
    let file = problem_file::read(&example()).expect("read the example");
    for version in FmiVersion::ALL {
        let fmu = Fmu::open(&fmus::find("cart_pole", version).path).expect("open the FMU");
        let mut plant = FmuPlant::new(&fmu, &file.plant).expect("instantiate the plant");
        let a = analyze(&mut plant, &file.problem, &file.start()).expect("analysis");
        assert!(
            (a.f / 20598.28538 - 1.0).abs() < 1e-7,
            "{version:?}: f = {}",
            a.f
        );
        let g = gradient(&mut plant, &file.problem, &a).expect("gradient");
        for (value, reference) in g.df_dd.iter().zip([4700.90306, 6741.01294, 6255.47446]) {
            assert!(
                (value / reference - 1.0).abs() < 1e-6,
                "{version:?}: df/dd = {}",
                g.df_dd
            );
        }
    }
}

/// The example with `replace` applied, written into `dir`.
fn variant(dir: &Path, replace: (&str, &str)) -> PathBuf {
    let text = std::fs::read_to_string(example()).expect("read the example");
    assert!(text.contains(replace.0), "the example has {}", replace.0);
    let path = dir.join("problem.toml");
    std::fs::write(&path, text.replace(replace.0, replace.1)).expect("write the problem");
    path
}

fn fmu_dir() -> String {
    fmu_dir_of(FmiVersion::Fmi3)
}

/// The folder of the cart-pole FMU of `version`.
fn fmu_dir_of(version: FmiVersion) -> String {
    let fmu = &fmus::find("cart_pole", version).path;
    fmu.parent()
        .expect("the FMU's folder")
        .display()
        .to_string()
}

#[test]
fn check_prints_adjoint_differences_and_the_method_of_the_seeds() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let problem = variant(dir.path(), ("steps = 1000", "steps = 200"));
    // FMI 3.0: the FMU's Jacobian adjoint derivative; FMI 2.0 has none.
    for (version, method) in [
        (
            FmiVersion::Fmi3,
            "ARE seeds: exact (the FMU's Jacobian adjoint derivative",
        ),
        (
            FmiVersion::Fmi2,
            "ARE seeds: central differences of J and G",
        ),
    ] {
        let run = common::tandem(&[
            "codesign",
            &problem.display().to_string(),
            "--check",
            "--fmu-dir",
            &fmu_dir_of(version),
        ]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        for needle in [
            "f = ",
            "closed-loop eigenvalues",
            "df/dd by the coupled adjoint",
            method,
            "relative difference",
        ] {
            assert!(
                run.stdout.contains(needle),
                "{version:?}: {needle} missing from:\n{}",
                run.stdout
            );
        }
    }
}

/// Through the FMI 3.0 cart-pole FMU, the exact seed contraction (the FMU's Jacobian adjoint
/// derivative) and central differences of J and G give the same seeds to 1e-6 of their size,
/// and with the exact one the reference values hold.
#[test]
fn cart_pole_fmu_exact_seeds_match_the_differences_of_j_and_g() {
    let file = problem_file::read(&example()).expect("read the example");
    let fmu = Fmu::open(&fmus::find("cart_pole", FmiVersion::Fmi3).path).expect("open the FMU");
    let mut plant = FmuPlant::new(&fmu, &file.plant).expect("instantiate the plant");
    assert!(
        plant.exact_seeds(),
        "the FMU declares jacobianAdjointDerivative"
    );
    let a = analyze(&mut plant, &file.problem, &file.start()).expect("analysis");
    assert!((a.f / 20598.28538 - 1.0).abs() < 1e-7, "f = {}", a.f);
    let exact = gradient(&mut plant, &file.problem, &a).expect("gradient");
    assert!(
        exact.seed_method.starts_with("exact"),
        "{}",
        exact.seed_method
    );
    for (value, reference) in exact.df_dd.iter().zip([4700.90306, 6741.01294, 6255.47446]) {
        assert!(
            (value / reference - 1.0).abs() < 1e-6,
            "df/dd = {}",
            exact.df_dd
        );
    }
    plant.difference_seeds();
    let differenced = gradient(&mut plant, &file.problem, &a).expect("gradient");
    assert!(
        differenced.seed_method.starts_with("central differences"),
        "{}",
        differenced.seed_method
    );
    let scale = exact.seeds.amax();
    assert!(scale > 0.0, "the seeds contribute");
    for (e, d) in exact.seeds.iter().zip(differenced.seeds.iter()) {
        assert!(
            (e - d).abs() < 1e-6 * scale,
            "exact seeds {} vs differences {}",
            exact.seeds,
            differenced.seeds
        );
    }
}

#[test]
fn bad_problems_fail_with_the_file_and_the_problem() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (replace, needle) in [
        (
            ("S = 1.0", "S = -1.0"),
            "S is not symmetric positive definite",
        ),
        (("dt = 0.01", "dt = 1.0"), "diverges under explicit Euler"),
        (
            ("inputs = [\"force\"]", "inputs = [\"push\"]"),
            "input push: no such variable",
        ),
        (
            ("Q = 0.1", "Q = [0.1, 0.1]"),
            "[lqr] Q: expected a number, a diagonal of 4 entries",
        ),
    ] {
        let problem = variant(dir.path(), replace);
        let run = common::tandem(&[
            "codesign",
            &problem.display().to_string(),
            "--fmu-dir",
            &fmu_dir(),
        ]);
        run.assert_fails_with(needle);
        assert!(
            run.stderr.contains("problem.toml"),
            "the file is named: {}",
            run.stderr
        );
    }
}

#[test]
fn the_call_counting_layer_passes_the_jacobian_adjoint_derivative_on() {
    use tandem::instance::prelude::*;
    use tandem::instance::{CountingInstance, LogSettings};
    use tandem::model_description::InterfaceType;

    let fmu = Fmu::open(&fmus::find("cart_pole", FmiVersion::Fmi3).path).expect("open the FMU");
    let md = fmu.model_description();
    let reference = |i: Option<usize>| md.variables[i.expect("a state resolves")].value_reference;
    let states: Vec<u32> = md.states().into_iter().map(reference).collect();
    let derivatives: Vec<u32> = md
        .model_structure
        .derivatives
        .iter()
        .map(|u| reference(md.resolve(u.reference)))
        .collect();
    let instantiate = || {
        let mut instance = fmu
            .instantiate(
                InterfaceType::ModelExchange,
                "plant",
                LogSettings::default(),
            )
            .expect("instantiate");
        instance
            .enter_initialization_mode(None, 0.0, None)
            .expect("initialize");
        instance.exit_initialization_mode().expect("initialize");
        // Away from the upright rest, where the second derivatives vanish.
        instance
            .enter_continuous_time_mode()
            .expect("continuous time");
        let x: Vec<f64> = (0..states.len()).map(|i| 0.3 + 0.2 * i as f64).collect();
        instance.set_continuous_states(&x).expect("set the states");
        instance
    };
    // A seed on every entry of the Jacobian d derivatives / d states, row-major.
    let seed: Vec<f64> = (0..derivatives.len() * states.len())
        .map(|k| 0.25 + k as f64 / 8.0)
        .collect();
    let mut direct = instantiate();
    assert!(direct.provides_jacobian_adjoint_derivative());
    let mut expected = vec![0.0; states.len()];
    direct
        .get_jacobian_adjoint_derivative(&derivatives, &states, &seed, &mut expected)
        .expect("the FMU's own product");
    let mut counted = CountingInstance::new(instantiate());
    let counter = counted.counter();
    assert!(counted.provides_jacobian_adjoint_derivative());
    let mut through = vec![0.0; states.len()];
    counted
        .get_jacobian_adjoint_derivative(&derivatives, &states, &seed, &mut through)
        .expect("the product through the counting layer");
    assert_eq!(through, expected);
    assert!(expected.iter().any(|&v| v != 0.0), "{expected:?}");
    assert!(
        counter
            .by_function()
            .contains(&("GetJacobianAdjointDerivative", 1)),
        "{:?}",
        counter.by_function()
    );
}
