//! Gradients through Tandem's real FMUs (the double oscillator: two masses integrated by
//! symplectic Euler and a spring between them). The FMI 3.0 FMUs provide the adjoint
//! extension, so the gradient is the discrete adjoint of the co-simulation; the FMI 2.0 ones do
//! not, and the gradient falls back to finite differences of whole runs. Both must match the
//! exact derivative of the hand-written recurrence the co-simulation computes, and the adjoint
//! must agree with central differences under every schedule, single- and multi-rate.

mod common;

use std::ops::{Add, Div, Mul, Neg, Sub};

use common::double_oscillator::Setup;
use common::gradient::adjoint_and_differences;
use tandem::gradient::{Checkpointing, CostSource, CostSpec, Differences, Method, Problem};
use tandem::system::{LoadOptions, System};
use tandem_tests::double_oscillator::DoubleOscillator;
use tandem_tests::fmus::{self, FmiVersion};

/// A number with its derivative along one parameter (forward mode).
#[derive(Clone, Copy, Debug)]
struct Dual {
    value: f64,
    derivative: f64,
}

impl Dual {
    fn constant(value: f64) -> Self {
        Dual {
            value,
            derivative: 0.0,
        }
    }
    fn variable(value: f64, active: bool) -> Self {
        Dual {
            value,
            derivative: if active { 1.0 } else { 0.0 },
        }
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual {
            value: self.value + o.value,
            derivative: self.derivative + o.derivative,
        }
    }
}
impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual {
            value: self.value - o.value,
            derivative: self.derivative - o.derivative,
        }
    }
}
impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            value: self.value * o.value,
            derivative: self.derivative * o.value + self.value * o.derivative,
        }
    }
}
impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        Dual {
            value: self.value / o.value,
            derivative: (self.derivative * o.value - self.value * o.derivative)
                / (o.value * o.value),
        }
    }
}
impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual {
            value: -self.value,
            derivative: -self.derivative,
        }
    }
}

/// The parameters differentiated: mass 1's spring to ground, the coupling spring, mass 2.
const PARAMETERS: [&str; 3] = ["mass1.k", "spring.k", "mass2.m"];

/// `J = sum_k H x1(t_k)` over the Jacobi zero-order-hold co-simulation written out (as in
/// `cosimulation.rs`): each mass takes a symplectic Euler step with the spring force of the
/// previous macro point, and the spring's new force uses the positions of that point. Returns
/// J and its derivative along parameter `active` (index into [`PARAMETERS`]).
fn by_hand(p: &DoubleOscillator, h: f64, steps: usize, active: usize) -> (f64, f64) {
    let k1 = Dual::variable(p.k1, active == 0);
    let kc = Dual::variable(p.kc, active == 1);
    let m2 = Dual::variable(p.m2, active == 2);
    let (m1, k2, h) = (
        Dual::constant(p.m1),
        Dual::constant(p.k2),
        Dual::constant(h),
    );
    let [x1, x2, v1, v2] = DoubleOscillator::INITIAL_STATE.map(Dual::constant);
    let (mut one, mut two) = ((x1, v1), (x2, v2));
    let spring = |a: Dual, b: Dual| -(kc * (a - b));
    let step = |m: Dual, k: Dual, (x, v): (Dual, Dual), force: Dual| {
        let v = v + h * (-(k * x) + force) / m;
        (x + h * v, v)
    };
    let mut force = spring(one.0, two.0);
    let mut cost = Dual::constant(0.0);
    for _ in 0..steps {
        cost = cost + h * one.0;
        let next_force = spring(one.0, two.0);
        one = step(m1, k1, one, force);
        two = step(m2, k2, two, -force);
        force = next_force;
    }
    (cost.value, cost.derivative)
}

fn double_oscillator(version: FmiVersion, stop: f64) -> System {
    let setup = Setup {
        stop,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = setup.write(dir.path());
    let fmu_dir = fmus::find("mass", version)
        .path
        .parent()
        .expect("the FMU's folder")
        .to_path_buf();
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        ..LoadOptions::default()
    };
    System::load(&path, options).expect("the double oscillator loads")
}

#[test]
fn real_fmus_give_the_derivative_of_the_recurrence_by_adjoint_or_by_differences() {
    let (stop, h) = (0.5, 1e-3);
    for version in FmiVersion::ALL {
        let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
        let cost = CostSpec::Integral {
            output: "mass1.position".into(),
        };
        let mut problem = Problem::new(
            double_oscillator(version, stop),
            &names,
            &cost,
            "--parameters",
        )
        .expect("the problem resolves")
        .with_checkpointing(Checkpointing::Interval(5));
        let values = problem.start_values();
        let evaluation = problem.gradient(&values).expect("the gradient");
        let steps = (stop / h).round() as usize;
        for (i, method) in evaluation.methods.iter().enumerate() {
            // FMI 2.0 has no adjoint extension: only the FMI 3.0 FMUs carry it.
            let tolerance = match (version, method) {
                (FmiVersion::Fmi3, Method::Adjoint) => 1e-12,
                (FmiVersion::Fmi2, Method::FiniteDifferences { reason }) => {
                    assert!(
                        reason.contains("does not provide the adjoint extension"),
                        "{reason}"
                    );
                    1e-7
                }
                _ => panic!("{version:?}: {} by {method:?}", PARAMETERS[i]),
            };
            let (cost, exact) = by_hand(&DoubleOscillator::UNDAMPED, h, steps, i);
            assert!(
                (evaluation.cost - cost).abs() <= 1e-12 * cost.abs(),
                "{version:?}: J {} vs {cost}",
                evaluation.cost
            );
            let error = (evaluation.gradient[i] - exact).abs() / exact.abs();
            println!(
                "{version:?} {} by {method:?}: {} vs exact {exact}, relative error {error:.1e}",
                PARAMETERS[i], evaluation.gradient[i]
            );
            assert!(
                error < tolerance,
                "{version:?} {}: relative error {error:.1e}",
                PARAMETERS[i]
            );
        }
        let central = problem
            .finite_differences(&values, &[0, 1, 2], Differences::CHECK)
            .expect("the check");
        for (i, (&c, &g)) in central.iter().zip(&evaluation.gradient).enumerate() {
            assert!(
                (c - g).abs() <= 1e-5 * g.abs(),
                "{version:?} {}: check {c} vs {g}",
                PARAMETERS[i]
            );
        }
    }
}

/// The rows of `tandem gradient`'s table after the header, split on runs of spaces.
fn table_rows(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .skip_while(|line| !line.starts_with("parameter"))
        .skip(1)
        .take_while(|line| !line.starts_with("finite differences because"))
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .collect()
}

/// Runs `tandem gradient --check` on a Gauss-Seidel double oscillator with a [gradient]
/// section, with `extra` arguments; returns its output and table rows.
fn gradient_command(extra: &[&str]) -> (String, Vec<Vec<String>>) {
    let setup = Setup {
        stop: 0.3,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "foh", 1e-3)
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("system.toml");
    let section = "\n[gradient]\nparameters = [\"mass1.k\", \"spring.k\"]\ncost = \"integral:mass2.position\"\ncheckpoint-interval = 4\n";
    std::fs::write(&path, setup.toml() + section).expect("write the system file");
    let mut args = vec!["gradient", path.to_str().expect("a UTF-8 path"), "--check"];
    args.extend(extra);
    let run = common::tandem(&args);
    run.assert_success();
    assert!(run.stdout.starts_with("J = "), "{}", run.stdout);
    let rows = table_rows(&run.stdout);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    for row in &rows {
        let error: f64 = row[5].parse().expect("a relative error");
        assert!(error < 1e-5, "{row:?}");
    }
    (run.stdout, rows)
}

#[test]
fn the_command_prints_the_adjoint_of_fmus_with_the_extension_and_its_check() {
    let (stdout, rows) = gradient_command(&[]);
    for row in &rows {
        assert_eq!(row[3], "adjoint", "{row:?}");
    }
    assert!(!stdout.contains("finite differences because"), "{stdout}");
}

#[test]
fn the_command_prints_the_fallback_and_its_check_from_the_gradient_section() {
    // The FMI 2.0 FMUs of the same models, which have no adjoint extension.
    let fmi2 = fmus::find("mass", FmiVersion::Fmi2)
        .path
        .parent()
        .expect("the FMU's folder")
        .to_path_buf();
    let (stdout, rows) = gradient_command(&["--fmu-dir", fmi2.to_str().expect("UTF-8")]);
    for row in &rows {
        assert_eq!(row[3], "finite differences", "{row:?}");
    }
    assert!(
        stdout.contains("does not provide the adjoint extension"),
        "{stdout}"
    );
}

/// A co-simulation of the double oscillator whose adjoint gradient must agree with central
/// finite differences of whole runs.
fn adjoint_agrees_with_finite_differences(setup: Setup) {
    let cost = CostSpec::Integral {
        output: "mass2.position".into(),
    };
    adjoint_agrees_with_finite_differences_for(setup, &cost);
}

/// As [`adjoint_agrees_with_finite_differences`], for the cost `cost`.
fn adjoint_agrees_with_finite_differences_for(setup: Setup, cost: &CostSpec) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = setup.write(dir.path());
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    let mut problem =
        Problem::new(system, &names, cost, "--parameters").expect("the problem resolves");
    let label = format!(
        "{} {} {} x{}:",
        setup.kind, setup.extrapolation, setup.macro_step, setup.mass2_sub_steps
    );
    for (i, error) in adjoint_and_differences(&mut problem, &label)
        .into_iter()
        .enumerate()
    {
        assert!(error < 1e-6, "{setup:?} {}: error {error:.1e}", names[i]);
    }
}

#[test]
fn the_double_oscillator_adjoint_agrees_with_finite_differences_single_rate() {
    for setup in [
        Setup::jacobi("zoh", 1e-3),
        Setup::jacobi("foh", 1e-3),
        Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3),
        Setup::gauss_seidel(["mass1", "mass2", "spring"], "foh", 1e-3),
    ] {
        adjoint_agrees_with_finite_differences(Setup { stop: 0.5, ..setup });
    }
}

#[test]
fn a_connection_that_scales_and_shifts_has_the_gradient_of_finite_differences() {
    let setup = Setup {
        stop: 0.5,
        ..Setup::jacobi("foh", 1e-3)
    };
    let toml = setup
        .toml()
        .replacen("    \"spring.f_a -> mass1.F\",\n", "", 1)
        + "\n[[connection]]\nfrom = \"spring.f_a\"\nto = \"mass1.F\"\nfactor = 0.8\noffset = 0.05\n";
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("scaled.toml");
    std::fs::write(&path, toml).expect("write the system file");
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let scaled: Vec<(f64, f64)> = system
        .connections
        .iter()
        .map(|c| (c.transform.factor, c.transform.offset))
        .filter(|&t| t != (1.0, 0.0))
        .collect();
    assert_eq!(scaled, [(0.8, 0.05)]);
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    let cost = CostSpec::Integral {
        output: "mass2.position".into(),
    };
    let mut problem =
        Problem::new(system, &names, &cost, "--parameters").expect("the problem resolves");
    for (name, error) in names
        .iter()
        .zip(adjoint_and_differences(&mut problem, "scaled"))
    {
        assert!(error < 1e-6, "{name}: error {error:.1e}");
    }
}

#[test]
fn a_final_value_cost_has_the_gradient_of_finite_differences() {
    // The stop time's value alone, then weighted with an integral: the terms reach the last
    // macro step's outputs, which the integral never reads.
    for text in [
        "final:mass2.position",
        "final:mass1.position + -0.5*integral:mass2.position",
    ] {
        let cost = CostSpec::new(Some(text), None, Vec::new(), &CostSource::Option)
            .expect("the cost parses");
        for setup in [
            Setup::jacobi("foh", 1e-3),
            Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3),
        ] {
            adjoint_agrees_with_finite_differences_for(Setup { stop: 0.5, ..setup }, &cost);
        }
    }
}

#[test]
fn the_double_oscillator_adjoint_agrees_with_finite_differences_multi_rate() {
    for setup in [Setup::jacobi("zoh", 1e-3), Setup::jacobi("foh", 1e-3)] {
        adjoint_agrees_with_finite_differences(Setup {
            stop: 0.5,
            mass2_sub_steps: 10,
            ..setup
        });
    }
}

/// The problem of the integral of `mass1.velocity` over the run of `setup` with
/// `checkpointing`, and the folder holding its system file.
fn velocity_problem(setup: &Setup, checkpointing: Checkpointing) -> (tempfile::TempDir, Problem) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = setup.write(dir.path());
    let system = System::load(&path, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
    let cost = CostSpec::Integral {
        output: "mass1.velocity".into(),
    };
    let problem = Problem::new(system, &names, &cost, "--parameters")
        .expect("the problem resolves")
        .with_checkpointing(checkpointing);
    (dir, problem)
}

/// Under Jacobi the reverse sweep reverses the components of a macro step on the schedule's
/// threads: the gradient is bit for bit the one reversed in turn on one thread, with
/// checkpoints or without, single-rate or multi-rate.
#[test]
fn the_adjoint_on_two_threads_is_bit_for_bit_the_one_on_one() {
    for (setup, checkpointing) in [
        (Setup::jacobi("zoh", 1e-3), Checkpointing::Interval(7)),
        (Setup::jacobi("foh", 1e-3), Checkpointing::Off),
        (
            Setup {
                mass2_sub_steps: 4,
                ..Setup::jacobi("soh", 1e-3)
            },
            Checkpointing::Automatic,
        ),
    ] {
        let gradient = |threads: &'static str| {
            let setup = Setup {
                stop: 0.2,
                threads: Some(threads),
                ..setup.clone()
            };
            let (_dir, mut problem) = velocity_problem(&setup, checkpointing);
            let values = problem.start_values();
            problem.gradient(&values).expect("the adjoint gradient")
        };
        let (one, two) = (gradient("1"), gradient("2"));
        assert!(
            one.methods.iter().all(|m| *m == Method::Adjoint),
            "{setup:?}"
        );
        let nonzero = one.gradient.iter().all(|g| g.is_finite() && *g != 0.0);
        assert!(nonzero, "{setup:?}: {:?}", one.gradient);
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&two.gradient), bits(&one.gradient), "{setup:?}");
        assert_eq!(two.cost.to_bits(), one.cost.to_bits(), "{setup:?}");
    }
}

#[test]
fn forward_sensitivities_through_the_extension_agree_with_the_adjoint() {
    for (setup, checkpointing) in [
        (Setup::jacobi("foh", 1e-3), Checkpointing::Interval(7)),
        (
            Setup::gauss_seidel(["mass2", "spring", "mass1"], "zoh", 1e-3),
            Checkpointing::Off,
        ),
        (
            Setup {
                mass2_sub_steps: 4,
                ..Setup::jacobi("soh", 1e-3)
            },
            Checkpointing::Automatic,
        ),
    ] {
        let setup = Setup { stop: 0.2, ..setup };
        let (_dir, mut problem) = velocity_problem(&setup, checkpointing);
        let names: Vec<String> = PARAMETERS.iter().map(|s| s.to_string()).collect();
        let values = problem.start_values();
        let adjoint = problem.gradient(&values).expect("the adjoint gradient");
        let forward = problem
            .forward_gradient(&values)
            .expect("the forward sensitivities");
        assert_eq!(forward.cost, adjoint.cost);
        assert!(forward
            .methods
            .iter()
            .all(|m| *m == Method::ForwardSensitivities));
        for (i, (&f, &a)) in forward.gradient.iter().zip(&adjoint.gradient).enumerate() {
            let error = (f - a).abs() / a.abs();
            println!(
                "{} {} x{}: {} forward {f:e}, adjoint {a:e}, {error:.1e}",
                setup.kind, setup.extrapolation, setup.mass2_sub_steps, names[i]
            );
            assert!(error < 1e-10, "{}: forward {f}, adjoint {a}", names[i]);
        }
    }
}

#[test]
fn the_gradient_section_of_the_shipped_system_file_gives_the_adjoint() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("systems")
        .join("double-oscillator-jacobi.toml");
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU's folder")
        .to_path_buf();
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        stop_time: Some(0.3),
        ..LoadOptions::default()
    };
    let mut problem = tandem::gradient::section::problem(&path, options).expect("the problem");
    let names: Vec<String> = problem
        .parameters()
        .iter()
        .map(|p| p.name.clone())
        .collect();
    for (name, error) in names.iter().zip(adjoint_and_differences(
        &mut problem,
        "shipped system file:",
    )) {
        assert!(error < 1e-6, "{name}: error {error:.1e}");
    }
}
