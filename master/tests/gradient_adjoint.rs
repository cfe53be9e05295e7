//! The co-simulation adjoint against finite differences and a closed form, on in-process
//! components with known step maps (see `gradient_fake`): every schedule, hold and rate,
//! with and without checkpointing.

mod common;
mod gradient_fake;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gradient_fake::{instantiator, LinearModel};
use nalgebra::{DMatrix, DVector};
use tandem::gradient::{Checkpointing, CostSpec, Method, Problem};
use tandem::system::{LoadOptions, System};

/// A plant (a damped oscillator with a cubic term, no direct feedthrough) under a controller
/// (a first-order filter with direct feedthrough), each parameter entering the step or
/// output map and the initial state.
fn plant() -> LinearModel {
    LinearModel {
        a: DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, -0.1]),
        a_parameters: vec![
            DMatrix::from_row_slice(2, 2, &[0.0, 0.0, -1.0, 0.0]),
            DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 0.0, -1.0]),
        ],
        b: DMatrix::from_row_slice(2, 1, &[0.0, 1.0]),
        kappa: 0.5,
        c: DMatrix::identity(2, 2),
        d: DMatrix::zeros(2, 1),
        d_parameters: vec![DMatrix::zeros(2, 1); 2],
        w_start: DVector::from_column_slice(&[0.3, -0.2]),
        e: DMatrix::from_row_slice(2, 1, &[0.0, 0.05]),
        f: DMatrix::from_row_slice(2, 2, &[0.01, 0.0, 0.0, 0.02]),
        parameters: vec![4.0, 0.3],
    }
}

fn controller() -> LinearModel {
    LinearModel {
        a: DMatrix::from_row_slice(1, 1, &[-2.0]),
        a_parameters: vec![DMatrix::from_row_slice(1, 1, &[-1.0]), DMatrix::zeros(1, 1)],
        b: DMatrix::from_row_slice(1, 1, &[1.5]),
        kappa: 0.0,
        c: DMatrix::from_row_slice(1, 1, &[0.7]),
        d: DMatrix::from_row_slice(1, 1, &[-0.5]),
        d_parameters: vec![DMatrix::zeros(1, 1), DMatrix::from_row_slice(1, 1, &[-1.0])],
        w_start: DVector::from_column_slice(&[0.1]),
        e: DMatrix::from_row_slice(1, 1, &[0.2]),
        f: DMatrix::from_row_slice(1, 2, &[0.0, 0.1]),
        parameters: vec![0.5, 1.2],
    }
}

/// How the two components are co-simulated.
#[derive(Clone, Copy, Debug)]
struct Setup {
    kind: &'static str,
    order: Option<[&'static str; 2]>,
    extrapolation: &'static str,
    plant_sub_steps: usize,
}

const STOP: f64 = 1.0;
const MACRO_STEP: f64 = 0.05;

/// Writes the fake FMUs, the system file and measurements into `dir`.
fn write_system(dir: &Path, setup: Setup) -> PathBuf {
    let plant_fmu = plant().write_fmu(dir, "plant");
    let controller_fmu = controller().write_fmu(dir, "controller");
    let order = setup
        .order
        .map(|o| format!("order = {o:?}\n"))
        .unwrap_or_default();
    let system = format!(
        r#"connections = ["plant.y0 -> controller.u0", "controller.y0 -> plant.u0"]

[experiment]
stop = {STOP:?}
step = {MACRO_STEP:?}

[[component]]
name = "plant"
fmu = '{}'
step = {:?}

[[component]]
name = "controller"
fmu = '{}'

[schedule]
kind = "{}"
{order}extrapolation = "{}"
"#,
        plant_fmu.display(),
        MACRO_STEP / setup.plant_sub_steps as f64,
        controller_fmu.display(),
        setup.kind,
        setup.extrapolation,
    );
    let mut data = String::from("time,plant.y0,controller.y0\n");
    for i in 0..=200 {
        let t = i as f64 * 0.005;
        data += &format!("{t},{},{}\n", 0.2 * (3.0 * t).sin(), 0.1 * t.cos());
    }
    std::fs::write(dir.join("measured.csv"), data).expect("write measurements");
    let path = dir.join("system.toml");
    std::fs::write(&path, system).expect("write the system file");
    path
}

const PARAMETERS: [&str; 4] = ["plant.p0", "plant.p1", "controller.p0", "controller.p1"];

/// The problem of `setup` with fake instances.
fn problem(dir: &Path, setup: Setup, cost: CostSpec, checkpointing: Checkpointing) -> Problem {
    let path = write_system(dir, setup);
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    let models = HashMap::from([
        ("plant".to_string(), plant()),
        ("controller".to_string(), controller()),
    ]);
    Problem::new(system, &names, &cost, "--parameters")
        .expect("the problem resolves")
        .with_instances(instantiator(models))
        .with_checkpointing(checkpointing)
}

fn least_squares(dir: &Path) -> CostSpec {
    CostSpec::LeastSquares {
        data: dir.join("measured.csv"),
        weights: vec![("plant.y0".into(), 2.0)],
    }
}

/// Central differences of `J` extrapolated twice (Richardson): error of order h^6.
fn richardson(problem: &mut Problem, values: &[f64]) -> Vec<f64> {
    let mut cost = |v: &[f64]| problem.cost(v).expect("the run succeeds");
    (0..values.len())
        .map(|i| {
            let central = |cost: &mut dyn FnMut(&[f64]) -> f64, h: f64| {
                let (mut plus, mut minus) = (values.to_vec(), values.to_vec());
                plus[i] += h;
                minus[i] -= h;
                (cost(&plus) - cost(&minus)) / (2.0 * h)
            };
            let h = 0.02 * values[i].abs().max(0.1);
            let d = [h, h / 2.0, h / 4.0].map(|h| central(&mut cost, h));
            let r1 = (4.0 * d[1] - d[0]) / 3.0;
            let r2 = (4.0 * d[2] - d[1]) / 3.0;
            (16.0 * r2 - r1) / 15.0
        })
        .collect()
}

/// Largest difference relative to the largest entry.
fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

fn setups() -> Vec<Setup> {
    let mut setups = Vec::new();
    for extrapolation in ["zoh", "foh", "soh"] {
        for plant_sub_steps in [1, 4] {
            for (kind, order) in [
                ("jacobi", None),
                ("gauss-seidel", Some(["plant", "controller"])),
                ("gauss-seidel", Some(["controller", "plant"])),
            ] {
                setups.push(Setup {
                    kind,
                    order,
                    extrapolation,
                    plant_sub_steps,
                });
            }
        }
    }
    setups
}

#[test]
fn the_adjoint_equals_extrapolated_finite_differences_for_every_schedule_hold_and_rate() {
    let mut worst = 0.0f64;
    for setup in setups() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut problem = problem(
            dir.path(),
            setup,
            least_squares(dir.path()),
            Checkpointing::Off,
        );
        let values = problem.start_values();
        let evaluation = problem.gradient(&values).expect("the gradient");
        assert!(
            evaluation.methods.iter().all(|m| *m == Method::Adjoint),
            "{setup:?}: {:?}",
            evaluation.methods
        );
        assert_eq!(
            evaluation.cost,
            problem.cost(&values).expect("J"),
            "{setup:?}: same J"
        );
        let reference = richardson(&mut problem, &values);
        let error = relative_difference(&evaluation.gradient, &reference);
        println!(
            "{setup:?}: adjoint {:?}, differences {reference:?}, error {error:.1e}",
            evaluation.gradient
        );
        assert!(error < 1e-10, "{setup:?}: relative error {error:.2e}");
        worst = worst.max(error);
    }
    println!("largest relative error over all set-ups: {worst:.2e}");
}

#[test]
fn checkpointing_changes_nothing_in_the_gradient() {
    for setup in [setups()[4], setups()[17]] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let gradients: Vec<Vec<f64>> = [
            Checkpointing::Off,
            Checkpointing::Interval(1),
            Checkpointing::Interval(3),
            Checkpointing::Interval(7),
            Checkpointing::Automatic,
        ]
        .into_iter()
        .map(|checkpointing| {
            let mut problem = problem(dir.path(), setup, least_squares(dir.path()), checkpointing);
            let values = problem.start_values();
            problem.gradient(&values).expect("the gradient").gradient
        })
        .collect();
        for gradient in &gradients[1..] {
            assert_eq!(gradient, &gradients[0], "{setup:?}: bit for bit");
        }
    }
}

#[test]
fn the_adjoint_of_an_integral_cost_equals_finite_differences() {
    let setup = Setup {
        kind: "gauss-seidel",
        order: Some(["plant", "controller"]),
        extrapolation: "foh",
        plant_sub_steps: 3,
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cost = CostSpec::Integral {
        output: "controller.y0".into(),
    };
    let mut problem = problem(dir.path(), setup, cost, Checkpointing::Interval(4));
    let values = problem.start_values();
    let gradient = problem.gradient(&values).expect("the gradient").gradient;
    let reference = richardson(&mut problem, &values);
    let error = relative_difference(&gradient, &reference);
    assert!(error < 1e-10, "relative error {error:.2e}");
}

/// An integrator `w_{k+1} = (1 - H a) w_k + H u_k` (output `w`) under a pure gain `y = g u`,
/// Jacobi with zero-order hold: the gain's output at `t_{k+1}` is `g w_k`, so the plant steps
/// with `u_0 = g w_0` and `u_k = g w_{k-1}`. The forward sensitivities of this recurrence give
/// dJ/da and dJ/dg of `J = sum_k H w_k` in closed form.
#[test]
fn the_adjoint_of_an_integrator_under_a_gain_matches_the_closed_form() {
    let (a, g, w0) = (1.5, 0.8, 0.4);
    let integrator = LinearModel {
        a: DMatrix::zeros(1, 1),
        a_parameters: vec![DMatrix::from_row_slice(1, 1, &[-1.0])],
        b: DMatrix::from_row_slice(1, 1, &[1.0]),
        kappa: 0.0,
        c: DMatrix::from_row_slice(1, 1, &[1.0]),
        d: DMatrix::zeros(1, 1),
        d_parameters: vec![DMatrix::zeros(1, 1)],
        w_start: DVector::from_column_slice(&[w0]),
        e: DMatrix::zeros(1, 1),
        f: DMatrix::zeros(1, 1),
        parameters: vec![a],
    };
    let gain = LinearModel {
        a: DMatrix::zeros(0, 0),
        a_parameters: vec![DMatrix::zeros(0, 0)],
        b: DMatrix::zeros(0, 1),
        kappa: 0.0,
        c: DMatrix::zeros(1, 0),
        d: DMatrix::zeros(1, 1),
        d_parameters: vec![DMatrix::from_row_slice(1, 1, &[1.0])],
        w_start: DVector::zeros(0),
        e: DMatrix::zeros(0, 1),
        f: DMatrix::zeros(0, 1),
        parameters: vec![g],
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let system = format!(
        r#"connections = ["integrator.y0 -> gain.u0", "gain.y0 -> integrator.u0"]
[experiment]
stop = 1.0
step = 0.01
[[component]]
name = "integrator"
fmu = '{}'
[[component]]
name = "gain"
fmu = '{}'
"#,
        integrator.write_fmu(dir.path(), "integrator").display(),
        gain.write_fmu(dir.path(), "gain").display()
    );
    let path = dir.path().join("system.toml");
    std::fs::write(&path, system).expect("write the system file");
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let names = ["integrator.p0".to_string(), "gain.p0".to_string()];
    let cost = CostSpec::Integral {
        output: "integrator.y0".into(),
    };
    let models = HashMap::from([
        ("integrator".to_string(), integrator),
        ("gain".to_string(), gain),
    ]);
    let mut problem = Problem::new(system, &names, &cost, "--parameters")
        .expect("the problem resolves")
        .with_instances(instantiator(models))
        .with_checkpointing(Checkpointing::Interval(10));
    let evaluation = problem.gradient(&[a, g]).expect("the gradient");

    let (h, n) = (0.01, 100);
    let mut w = vec![w0, (1.0 - h * a) * w0 + h * g * w0];
    let (mut by_a, mut by_g) = (vec![0.0, -h * w0], vec![0.0, h * w0]);
    for k in 1..n {
        w.push((1.0 - h * a) * w[k] + h * g * w[k - 1]);
        by_a.push((1.0 - h * a) * by_a[k] - h * w[k] + h * g * by_a[k - 1]);
        by_g.push((1.0 - h * a) * by_g[k] + h * w[k - 1] + h * g * by_g[k - 1]);
    }
    let cost: f64 = w[..n].iter().map(|w| h * w).sum();
    let closed_form = [
        by_a[..n].iter().sum::<f64>() * h,
        by_g[..n].iter().sum::<f64>() * h,
    ];
    assert!(
        (evaluation.cost - cost).abs() <= 1e-14 * cost.abs(),
        "J {} vs {cost}",
        evaluation.cost
    );
    let error = relative_difference(&evaluation.gradient, &closed_form);
    println!(
        "adjoint {:?}, closed form {closed_form:?}, relative error {error:.1e}",
        evaluation.gradient
    );
    assert!(
        error < 1e-12,
        "adjoint {:?} vs closed form {closed_form:?}: {error:.1e}",
        evaluation.gradient
    );
}

#[test]
fn with_checkpoints_the_record_holds_one_segment_and_the_gradient_stays_the_same() {
    let setup = setups()[17];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let steps = (STOP / MACRO_STEP).round() as usize;
    let run = |checkpointing| {
        let mut problem = problem(dir.path(), setup, least_squares(dir.path()), checkpointing);
        let values = problem.start_values();
        let gradient = problem.gradient(&values).expect("the gradient").gradient;
        let gradient_peak = problem.peak_steps_recorded();
        problem.cost(&values).expect("J");
        (gradient, gradient_peak, problem.peak_steps_recorded())
    };
    let (all, all_peak, cost_peak) = run(Checkpointing::Off);
    assert_eq!(
        all_peak, steps,
        "without checkpoints the record holds the whole run"
    );
    assert_eq!(cost_peak, 0, "a cost-only run keeps no macro steps");
    for interval in [2, 3] {
        let (gradient, peak, _) = run(Checkpointing::Interval(interval));
        assert!(
            peak <= interval,
            "interval {interval}: {peak} macro steps recorded at once of {steps}"
        );
        let difference = relative_difference(&gradient, &all);
        assert!(difference <= 1e-12, "interval {interval}: {difference:.1e}");
    }
}
