//! Sparse Jacobians of Model Exchange FMUs on the `heat_equation` model (the 1-D heat equation
//! by the method of lines, tridiagonal and stiff), FMI 2.0 and 3.0: the pattern its
//! ModelStructure declares, the coloured evaluation (three directional derivatives or
//! differences per Jacobian instead of one per state) equal to the dense one bit for bit, the
//! fallback to dense without declared dependencies, and the implicit solver on faer's sparse LU
//! against the dense one and the analytic decay of a sine mode.

mod common;

use std::path::{Path, PathBuf};

use tandem::instance::prelude::*;
use tandem::instance::{CallCounter, CountingInstance, LogSettings};
use tandem::model_description::{InterfaceType, Values};
use tandem::model_exchange::{declared_sparsity, MeStepper};
use tandem::solver::{Auto, Esdirk, Factorization, Stepper};
use tandem::{Fmu, ModelDescription};
use tandem_tests::fmus::{self, FmiVersion};

use common::edit_model_description;

/// The relative tolerance of the runs.
const TOLERANCE: f64 = 1e-6;

/// The heat-equation FMU of `version`.
fn heat_equation(version: FmiVersion) -> PathBuf {
    fmus::find("heat_equation", version).path.clone()
}

/// A copy of the FMU at `source` in `dir` whose ModelStructure declares no dependencies.
fn without_dependencies(source: &Path, dir: &Path) -> PathBuf {
    edit_model_description(source, &dir.join("dense.fmu"), |text| {
        remove_attributes(&text, &[" dependencies=\"", " dependenciesKind=\""])
    })
}

/// A copy of the FMU at `source` in `dir` that does not offer directional derivatives.
fn without_directional_derivatives(source: &Path, dir: &Path) -> PathBuf {
    edit_model_description(source, &dir.join("differences.fmu"), |text| {
        text.replace(
            "providesDirectionalDerivative=\"true\"",
            "providesDirectionalDerivative=\"false\"",
        )
        .replace(
            "providesDirectionalDerivatives=\"true\"",
            "providesDirectionalDerivatives=\"false\"",
        )
    })
}

/// `text` without the attributes that start with any of `starts` (name, `=` and quote).
fn remove_attributes(text: &str, starts: &[&str]) -> String {
    let mut rest = text;
    let mut kept = String::with_capacity(text.len());
    while let Some((at, start)) = starts
        .iter()
        .filter_map(|s| rest.find(s).map(|at| (at, s)))
        .min()
    {
        kept.push_str(&rest[..at]);
        let value = &rest[at + start.len()..];
        let close = value.find('"').expect("a closing quote");
        rest = &value[close + 1..];
    }
    kept.push_str(rest);
    kept
}

/// An initialized Model Exchange instance of `fmu` under `solver`, started at t = 0, and the
/// counts of its FMU calls.
fn started<S: Stepper>(fmu: &Fmu, solver: S) -> (MeStepper<Box<dyn FmuInstance>, S>, CallCounter) {
    let mut instance = fmu
        .instantiate(InterfaceType::ModelExchange, "heat", LogSettings::default())
        .expect("instantiate");
    instance
        .enter_initialization_mode(Some(TOLERANCE), 0.0, None)
        .expect("initialize");
    instance.exit_initialization_mode().expect("initialize");
    let counted = CountingInstance::new(instance);
    let counter = counted.counter();
    let instance: Box<dyn FmuInstance> = Box::new(counted);
    let mut stepper = MeStepper::new(instance, fmu.model_description(), TOLERANCE, solver);
    stepper.start(0.0, &mut |_, _, _| Ok(())).expect("start");
    (stepper, counter)
}

/// Calls of `function` so far.
fn calls(counter: &CallCounter, function: &str) -> u64 {
    counter
        .by_function()
        .into_iter()
        .find(|&(name, _)| name == function)
        .map_or(0, |(_, n)| n)
}

/// The diffusivity `k` of `md` (its start value).
fn diffusivity(md: &ModelDescription) -> f64 {
    let k = md.variables.iter().find(|v| v.name == "k").expect("k");
    match &k.start {
        Some(Values::Float(values)) => values[0],
        other => panic!("k starts at {other:?}"),
    }
}

#[test]
fn the_declared_pattern_is_tridiagonal_and_missing_dependencies_make_it_dense() {
    let dir = tempfile::tempdir().unwrap();
    for version in FmiVersion::ALL {
        let fmu = Fmu::open(heat_equation(version)).unwrap();
        let md = fmu.model_description();
        let n = md.number_of_continuous_states();
        let sparsity = declared_sparsity(md).expect("declared dependencies");
        assert_eq!(sparsity.n(), n);
        assert_eq!(sparsity.nonzeros(), 3 * n - 2, "{version:?}");
        for j in 0..n {
            let expected: Vec<usize> = (j.saturating_sub(1)..(j + 2).min(n)).collect();
            assert_eq!(sparsity.column(j), expected, "{version:?} column {j}");
        }
        let dense = Fmu::open(without_dependencies(&heat_equation(version), dir.path())).unwrap();
        assert_eq!(
            declared_sparsity(dense.model_description()),
            None,
            "{version:?}"
        );
    }
}

#[test]
fn coloured_jacobians_equal_dense_ones_bit_for_bit_with_one_product_per_colour() {
    let dir = tempfile::tempdir().unwrap();
    for version in FmiVersion::ALL {
        let differences = without_directional_derivatives(&heat_equation(version), dir.path());
        for (path, product) in [
            (heat_equation(version), "GetDirectionalDerivative"),
            (differences, "GetDerivatives"),
        ] {
            let fmu = Fmu::open(&path).unwrap();
            let n = fmu.model_description().number_of_continuous_states();
            let (mut stepper, counter) = started(&fmu, Esdirk::new(n));
            // Away from the start values, at a point the solver reached.
            stepper
                .advance_to(0.05, &mut |_, _, _| Ok(()))
                .expect("integrate");
            let before = calls(&counter, product);
            let coloured = stepper
                .state_jacobian(&mut |_, _, _| Ok(()), true)
                .expect("coloured Jacobian");
            let coloured_products = calls(&counter, product) - before;
            let dense = stepper
                .state_jacobian(&mut |_, _, _| Ok(()), false)
                .expect("dense Jacobian");
            let dense_products = calls(&counter, product) - before - coloured_products;
            let label = format!("{version:?} {product}");
            assert_eq!(coloured.colours(), 3, "{label}");
            // Differences also evaluate f at the point itself.
            let at_point = u64::from(product == "GetDerivatives");
            assert_eq!(coloured_products, 3 + at_point, "{label}");
            assert_eq!(dense_products, n as u64 + at_point, "{label}");
            assert!(coloured.as_sparse().is_some() && dense.as_sparse().is_none());
            let (coloured, dense) = (coloured.to_dense(), dense.to_dense());
            assert_eq!(coloured, dense, "{label}");
            // The discrete Laplacian times k / dx^2.
            let k = diffusivity(fmu.model_description());
            let scale = k * ((n + 1) * (n + 1)) as f64;
            let relative = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs();
            assert!(
                relative(dense[(3, 3)], -2.0 * scale),
                "{label}: {}",
                dense[(3, 3)]
            );
            assert!(relative(dense[(3, 4)], scale), "{label}: {}", dense[(3, 4)]);
            assert_eq!(dense[(3, 5)], 0.0, "{label}");
        }
    }
}

/// The final states of `fmu` integrated to t = 1 by `solver`, the implicit method's Jacobian
/// evaluations and products, and the factorization it used last.
struct Run {
    states: Vec<f64>,
    jacobians: usize,
    products: usize,
    factorization: Option<Factorization>,
}

/// Runs the heat equation to t = 1 with ESDIRK alone (`auto` false) or the automatic switch.
fn run(path: &Path, auto: bool) -> Run {
    let fmu = Fmu::open(path).unwrap();
    let n = fmu.model_description().number_of_continuous_states();
    if auto {
        let (mut stepper, _) = started(&fmu, Auto::new(n));
        stepper.advance_to(1.0, &mut |_, _, _| Ok(())).unwrap();
        let statistics = stepper.solver().implicit_statistics();
        Run {
            states: stepper.states().to_vec(),
            jacobians: statistics.jacobians,
            products: statistics.jacobian_products,
            factorization: None,
        }
    } else {
        let (mut stepper, _) = started(&fmu, Esdirk::new(n));
        stepper.advance_to(1.0, &mut |_, _, _| Ok(())).unwrap();
        let statistics = stepper.solver().statistics();
        Run {
            states: stepper.states().to_vec(),
            jacobians: statistics.jacobians,
            products: statistics.jacobian_products,
            factorization: stepper.solver().factorization(),
        }
    }
}

/// The largest absolute difference.
fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

#[test]
fn the_sparse_solver_matches_the_dense_one_and_the_decaying_sine_mode() {
    let dir = tempfile::tempdir().unwrap();
    for version in FmiVersion::ALL {
        let sparse_fmu = heat_equation(version);
        let dense_fmu = without_dependencies(&sparse_fmu, dir.path());
        let md = Fmu::open(&sparse_fmu).unwrap().model_description().clone();
        let n = md.number_of_continuous_states();
        let dx = 1.0 / (n + 1) as f64;
        let k = diffusivity(&md);
        // The first sine mode is an eigenvector of the discrete Laplacian.
        let rate = 4.0 * k / (dx * dx) * (std::f64::consts::PI * dx / 2.0).sin().powi(2);
        let exact: Vec<f64> = (1..=n)
            .map(|i| (-rate).exp() * (std::f64::consts::PI * i as f64 * dx).sin())
            .collect();
        // ...which decays as the PDE's exp(-k pi^2 t) up to the spatial error O(dx^2).
        let pde = k * std::f64::consts::PI.powi(2);
        assert!((rate - pde).abs() < pde * dx * dx);

        let sparse = run(&sparse_fmu, false);
        let dense = run(&dense_fmu, false);
        let label = format!("{version:?}");
        assert_eq!(sparse.factorization, Some(Factorization::Sparse), "{label}");
        assert_eq!(dense.factorization, Some(Factorization::Dense), "{label}");
        assert_eq!(sparse.products, 3 * sparse.jacobians, "{label}");
        assert_eq!(dense.products, n * dense.jacobians, "{label}");
        // The same steps up to rounding: sparse and dense LU differ in the last bits.
        let apart = largest_difference(&sparse.states, &dense.states);
        assert!(
            apart < TOLERANCE,
            "{label}: sparse and dense {apart:e} apart"
        );
        for (name, result) in [("sparse", &sparse), ("dense", &dense)] {
            let error = largest_difference(&result.states, &exact);
            assert!(error < 10.0 * TOLERANCE, "{label} {name}: error {error:e}");
        }
        let auto = run(&sparse_fmu, true);
        let error = largest_difference(&auto.states, &exact);
        assert!(error < 10.0 * TOLERANCE, "{label} auto: error {error:e}");
        assert!(
            auto.jacobians > 0,
            "{label}: the stiff problem runs implicitly"
        );
        assert_eq!(auto.products, 3 * auto.jacobians, "{label}");
    }
}
