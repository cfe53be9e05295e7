//! Co-simulation of the double linear oscillator as three FMUs (mass1, spring, mass2), each
//! mass integrated by symplectic Euler inside its FMU: the schedules reproduce hand-written
//! recurrences exactly, converge to the closed-form solution at the orders the analysis
//! predicts, run multi-rate, and step the Jacobi participants on a pool of threads or in turn
//! with the same numbers.

mod common;

use std::sync::{Arc, Mutex};

use common::double_oscillator::{Setup, Trajectory};
use tandem::instance::{LogLevel, LogMessage, LogSettings};
use tandem_tests::double_oscillator::{DoubleOscillator, State};

const ORDER_SPRING_LAST: [&str; 3] = ["mass1", "mass2", "spring"];
const ORDER_SPRING_BETWEEN: [&str; 3] = ["mass1", "spring", "mass2"];

/// Which values the spring and mass2 see, in a hand-written co-simulation.
#[derive(Clone, Copy)]
enum Coupling {
    /// Jacobi: the spring gets each position extrapolated to the end of the macro step by the
    /// polynomial of this degree through its latest values at earlier macro points; mass2, at
    /// the start of each of its sub-steps, the spring force extrapolated the same way.
    Jacobi(usize),
    /// Gauss-Seidel mass1, mass2, spring: the spring reads the positions the masses reached.
    SpringLast,
    /// Gauss-Seidel mass1, spring, mass2 with ZOH: the spring reads mass1's new position and
    /// mass2's previous one, and mass2 then steps with the spring's new force.
    SpringBetween,
}

/// The value at `t` of the polynomial through the latest `degree + 1` points `(t_i, y_i)`.
fn extrapolate(points: &[(f64, f64)], degree: usize, t: f64) -> f64 {
    let used = &points[points.len() - (degree + 1).min(points.len())..];
    used.iter()
        .enumerate()
        .map(|(i, &(ti, yi))| {
            let weight: f64 = used
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &(tj, _))| (t - tj) / (ti - tj))
                .product();
            weight * yi
        })
        .sum()
}

/// One symplectic Euler step of a mass on a spring to ground (velocity first, then position
/// with the new velocity), as the mass FMU takes it.
fn symplectic_euler(m: f64, k: f64, (x, v): (f64, f64), force: f64, h: f64) -> (f64, f64) {
    let v = v + h * (-k * x + force) / m;
    (x + h * v, v)
}

/// The three-FMU co-simulation written out, with mass2 taking `sub_steps` steps per macro
/// step; the spring's force on mass 1 is `f_a = -kc (x1 - x2)`, on mass 2 `-f_a`. Returns the
/// states `[x1, x2, v1, v2]` at the macro points.
fn by_hand(
    p: &DoubleOscillator,
    coupling: Coupling,
    h: f64,
    steps: usize,
    sub_steps: usize,
) -> Vec<State> {
    let [x1, x2, v1, v2] = DoubleOscillator::INITIAL_STATE;
    let (mut mass1, mut mass2) = ((x1, v1), (x2, v2));
    let spring = |a: f64, b: f64| -p.kc * (a - b);
    // The initialization hands the spring the exact initial positions.
    let mut ones = vec![(0.0, x1)];
    let mut twos = vec![(0.0, x2)];
    let mut forces = vec![(0.0, spring(x1, x2))];
    let mut states = vec![[x1, x2, v1, v2]];
    for k in 0..steps {
        let (t, t_next) = (k as f64 * h, (k + 1) as f64 * h);
        let force = forces.last().expect("a force").1;
        mass1 = symplectic_euler(p.m1, p.k1, mass1, force, h);
        let new_force = match coupling {
            Coupling::Jacobi(degree) => {
                let h2 = h / sub_steps as f64;
                for j in 0..sub_steps {
                    let on_2 = -extrapolate(&forces, degree, t + j as f64 * h2);
                    mass2 = symplectic_euler(p.m2, p.k2, mass2, on_2, h2);
                }
                spring(
                    extrapolate(&ones, degree, t_next),
                    extrapolate(&twos, degree, t_next),
                )
            }
            Coupling::SpringLast => {
                mass2 = symplectic_euler(p.m2, p.k2, mass2, -force, h);
                spring(mass1.0, mass2.0)
            }
            Coupling::SpringBetween => {
                let new_force = spring(mass1.0, mass2.0);
                mass2 = symplectic_euler(p.m2, p.k2, mass2, -new_force, h);
                new_force
            }
        };
        ones.push((t_next, mass1.0));
        twos.push((t_next, mass2.0));
        forces.push((t_next, new_force));
        states.push([mass1.0, mass2.0, mass1.1, mass2.1]);
    }
    states
}

/// Largest difference between the run and the hand-written states, relative to the largest
/// state component.
fn mismatch(run: &Trajectory, expected: &[State]) -> f64 {
    assert_eq!(run.states.len(), expected.len(), "number of rows");
    let scale = expected
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    run.states
        .iter()
        .flatten()
        .zip(expected.iter().flatten())
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

#[test]
fn jacobi_feeds_the_spring_positions_extrapolated_from_earlier_macro_points() {
    let (h, steps) = (1e-3, 300);
    for (extrapolation, degree) in [("zoh", 0), ("foh", 1), ("soh", 2)] {
        let setup = Setup {
            stop: steps as f64 * h,
            ..Setup::jacobi(extrapolation, h)
        };
        let expected = by_hand(&setup.system, Coupling::Jacobi(degree), h, steps, 1);
        let run = setup.run();
        let difference = mismatch(&run, &expected);
        assert!(difference < 1e-12, "{extrapolation}: {difference:e}");
        // The hold order matters: the next degree's recurrence is far from the run.
        let other = by_hand(&setup.system, Coupling::Jacobi(degree + 1), h, steps, 1);
        let other_difference = mismatch(&run, &other);
        assert!(
            other_difference > 1e-6,
            "{extrapolation}: {other_difference:e}"
        );
    }
}

#[test]
fn gauss_seidel_with_the_spring_last_is_the_monolithic_symplectic_euler() {
    // The spring reads the positions the masses just reached, so the masses always get the
    // force of the current positions, whatever the extrapolation.
    let (h, steps) = (1e-3, 300);
    for extrapolation in ["zoh", "soh"] {
        let setup = Setup {
            stop: steps as f64 * h,
            ..Setup::gauss_seidel(ORDER_SPRING_LAST, extrapolation, h)
        };
        let expected = by_hand(&setup.system, Coupling::SpringLast, h, steps, 1);
        let difference = mismatch(&setup.run(), &expected);
        assert!(difference < 1e-12, "{extrapolation}: {difference:e}");
    }
}

#[test]
fn gauss_seidel_with_the_spring_between_feeds_mass2_the_latest_force() {
    let (h, steps) = (1e-3, 300);
    let setup = Setup {
        stop: steps as f64 * h,
        ..Setup::gauss_seidel(ORDER_SPRING_BETWEEN, "zoh", h)
    };
    let expected = by_hand(&setup.system, Coupling::SpringBetween, h, steps, 1);
    let difference = mismatch(&setup.run(), &expected);
    assert!(difference < 1e-12, "{difference:e}");
    // And it is not the monolithic scheme.
    let monolithic = by_hand(&setup.system, Coupling::SpringLast, h, steps, 1);
    assert!(mismatch(&setup.run(), &monolithic) > 1e-6);
}

#[test]
fn multi_rate_jacobi_sub_steps_mass2_on_extrapolated_spring_forces() {
    // mass1 and the spring at H = 1 ms, mass2 at 0.1 ms: the B.5 set-up of the energy study
    // (the direct-feedthrough side slow, R = 10), split into three FMUs.
    let (h, steps) = (1e-3, 300);
    for (extrapolation, degree) in [("zoh", 0), ("foh", 1)] {
        let setup = Setup {
            stop: steps as f64 * h,
            mass2_sub_steps: 10,
            ..Setup::jacobi(extrapolation, h)
        };
        let expected = by_hand(&setup.system, Coupling::Jacobi(degree), h, steps, 10);
        let run = setup.run();
        let difference = mismatch(&run, &expected);
        assert!(difference < 1e-12, "{extrapolation}: {difference:e}");
        let single_rate = by_hand(&setup.system, Coupling::Jacobi(degree), h, steps, 1);
        assert!(mismatch(&run, &single_rate) > 1e-6, "mass2 takes sub-steps");
    }
}

/// Observed orders `log2(e(H) / e(H / 2))` of errors at halving step sizes.
fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect()
}

/// Position and velocity errors of `setup` at each macro step of `STEPS`.
fn errors_over_steps(setup: impl Fn(f64) -> Setup) -> (Vec<f64>, Vec<f64>) {
    STEPS
        .iter()
        .map(|&h| {
            let setup = setup(h);
            setup.run().errors(&setup.system)
        })
        .unzip()
}

/// Macro steps of the convergence study, over one second.
const STEPS: [f64; 3] = [1e-3, 5e-4, 2.5e-4];

/// Errors in scientific notation, for the measurement log.
fn sci(values: &[f64]) -> String {
    let texts: Vec<String> = values.iter().map(|v| format!("{v:.3e}")).collect();
    format!("[{}]", texts.join(", "))
}

/// Asserts that every value lies in `[low, high]`.
fn assert_within(label: &str, values: &[f64], low: f64, high: f64) {
    for &v in values {
        assert!(
            (low..=high).contains(&v),
            "{label}: {v:.3} outside [{low}, {high}] in {values:?}"
        );
    }
}

#[test]
fn zoh_is_first_order_in_jacobi_and_gauss_seidel() {
    // Symplectic Euler is first order, and a zero-order hold delays the coupling by O(H).
    for (name, setup) in [
        (
            "Jacobi",
            Box::new(|h| Setup::jacobi("zoh", h)) as Box<dyn Fn(f64) -> Setup>,
        ),
        (
            "Gauss-Seidel",
            Box::new(|h| Setup::gauss_seidel(ORDER_SPRING_BETWEEN, "zoh", h)),
        ),
    ] {
        let (position, velocity) = errors_over_steps(setup);
        let (p_order, v_order) = (orders(&position), orders(&velocity));
        eprintln!(
            "{name} ZOH: position errors {} (orders {p_order:.3?}), velocity errors {} (orders {v_order:.3?})",
            sci(&position),
            sci(&velocity)
        );
        assert_within(&format!("{name} position order"), &p_order, 0.9, 1.3);
        assert_within(&format!("{name} velocity order"), &v_order, 0.9, 1.3);
    }
}

#[test]
fn foh_and_soh_cut_the_jacobi_error_and_make_positions_second_order() {
    // With x(0) = 0 the initial forces vanish, so the masses' symplectic Euler positions are
    // those of Stoermer-Verlet (second order) while their velocities are the half-step ones
    // (first order). A ZOH coupling error O(H) hides this; FOH (O(H^2)) and SOH do not.
    let (zoh_position, zoh_velocity) = errors_over_steps(|h| Setup::jacobi("zoh", h));
    for extrapolation in ["foh", "soh"] {
        let (position, velocity) = errors_over_steps(|h| Setup::jacobi(extrapolation, h));
        let (p_order, v_order) = (orders(&position), orders(&velocity));
        eprintln!(
            "Jacobi {extrapolation}: position errors {} (orders {p_order:.3?}), velocity errors {} (orders {v_order:.3?})",
            sci(&position),
            sci(&velocity)
        );
        assert_within(
            &format!("{extrapolation} position order"),
            &p_order,
            1.8,
            2.2,
        );
        assert_within(
            &format!("{extrapolation} velocity order"),
            &v_order,
            0.9,
            1.1,
        );
        for i in 0..STEPS.len() {
            assert!(
                position[i] < zoh_position[i] / 10.0,
                "{extrapolation}: position error {:e} vs ZOH {:e}",
                position[i],
                zoh_position[i]
            );
            assert!(velocity[i] < zoh_velocity[i] / 2.0);
        }
    }
}

#[test]
fn foh_reduces_the_gauss_seidel_position_error() {
    let gauss_seidel =
        |extrapolation| move |h| Setup::gauss_seidel(ORDER_SPRING_BETWEEN, extrapolation, h);
    let (zoh_position, zoh_velocity) = errors_over_steps(gauss_seidel("zoh"));
    let (position, velocity) = errors_over_steps(gauss_seidel("foh"));
    eprintln!(
        "Gauss-Seidel FOH: position errors {} (orders {:.3?}), velocity errors {} (orders {:.3?}); ZOH: {} and {}",
        sci(&position),
        orders(&position),
        sci(&velocity),
        orders(&velocity),
        sci(&zoh_position),
        sci(&zoh_velocity)
    );
    assert_within("position order", &orders(&position), 1.8, 2.2);
    for i in 0..STEPS.len() {
        assert!(position[i] < zoh_position[i] / 2.0);
    }
}

#[test]
fn multi_rate_stays_close_to_the_reference_and_converges() {
    for (extrapolation, order) in [("zoh", 1.0), ("foh", 2.0)] {
        let setup = |h| Setup {
            mass2_sub_steps: 10,
            ..Setup::jacobi(extrapolation, h)
        };
        let (position, velocity) = errors_over_steps(setup);
        let (single_rate, _) = errors_over_steps(|h| Setup::jacobi(extrapolation, h));
        eprintln!(
            "multi-rate Jacobi {extrapolation}: position errors {} (orders {:.3?}), velocity errors {} (orders {:.3?}); single rate position errors {}",
            sci(&position),
            orders(&position),
            sci(&velocity),
            orders(&velocity),
            sci(&single_rate)
        );
        assert_within(
            "position order",
            &orders(&position),
            order - 0.1,
            order + 0.2,
        );
        for i in 0..STEPS.len() {
            assert!(position[i] < 1.5 * single_rate[i]);
        }
    }
}

#[test]
fn sub_steps_cost_two_fmu_calls_each() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = || LogSettings {
        level: LogLevel::Error,
        ..LogSettings::default()
    };
    let single = Setup {
        stop: 0.1,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let multi = Setup {
        mass2_sub_steps: 10,
        ..single.clone()
    };
    let single = single.run_with(dir.path(), quiet()).0.unwrap();
    let multi = multi.run_with(dir.path(), quiet()).0.unwrap();
    assert_eq!(single.macro_steps, 100);
    assert_eq!(multi.macro_steps, 100);
    // Nine more steps of mass2 per macro step, each with its inputs set.
    assert_eq!(multi.fmu_calls - single.fmu_calls, 100 * 9 * 2);
}

/// The threads that called `fmi3DoStep` of any instance in a run of `setup` with `threads`.
/// The name of the thread of each `fmi3DoStep` call, `None` for the test's own thread.
fn do_step_threads(setup: &Setup, threads: &'static str) -> Vec<Option<String>> {
    // The FMUs log every call when logging is on, from the thread that makes the call.
    let caller = std::thread::current().id();
    let calls: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let recorder = calls.clone();
    let log = LogSettings {
        level: LogLevel::Info,
        logger: Arc::new(move |message: &LogMessage| {
            if message.message.starts_with("fmi3DoStep(") {
                let thread = std::thread::current();
                let name = (thread.id() != caller).then(|| thread.name().unwrap_or("").to_owned());
                recorder.lock().unwrap().push(name);
            }
        }),
    };
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        threads: Some(threads),
        ..setup.clone()
    };
    setup.run_with(dir.path(), log).0.unwrap();
    let calls = calls.lock().unwrap().clone();
    calls
}

#[test]
fn jacobi_steps_on_the_caller_and_the_pool_with_threads_and_on_the_caller_with_one() {
    let setup = Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    };
    // Three threads: the caller and a pool of two.
    let pooled = do_step_threads(&setup, "3");
    assert_eq!(pooled.len(), 30, "three instances, ten macro steps");
    let pool = [
        Some("tandem jacobi 0".to_owned()),
        Some("tandem jacobi 1".to_owned()),
    ];
    assert!(
        pooled
            .iter()
            .all(|thread| thread.is_none() || pool.contains(thread)),
        "{pooled:?}"
    );
    let in_turn = do_step_threads(&setup, "1");
    assert_eq!(in_turn.len(), 30);
    assert!(in_turn.iter().all(Option::is_none), "{in_turn:?}");
}

#[test]
fn jacobi_results_are_bit_identical_in_turn_in_parallel_and_auto() {
    let setups = [
        Setup::jacobi("zoh", 1e-3),
        Setup {
            mass2_sub_steps: 10,
            ..Setup::jacobi("foh", 1e-3)
        },
        Setup::jacobi("soh", 1e-3),
        Setup {
            mass_interface: "me",
            ..Setup::jacobi("foh", 1e-3)
        },
    ];
    for setup in setups {
        let results: Vec<Vec<u8>> = ["1", "2", "\"auto\""]
            .into_iter()
            .map(|threads| {
                let dir = tempfile::tempdir().unwrap();
                let setup = Setup {
                    threads: Some(threads),
                    stop: 0.3,
                    ..setup.clone()
                };
                let log = LogSettings {
                    level: LogLevel::Error,
                    ..LogSettings::default()
                };
                let (result, output) = setup.run_with(dir.path(), log);
                assert_eq!(result.unwrap().macro_steps, 300, "{setup:?}");
                std::fs::read(output).unwrap()
            })
            .collect();
        assert!(results[0] == results[1], "{setup:?}: in turn vs parallel");
        assert!(results[0] == results[2], "{setup:?}: in turn vs auto");
    }
}

#[test]
fn the_shipped_system_files_run_with_the_test_fmus() {
    let fmu_dir = tandem_tests::fmus::find("mass", tandem_tests::fmus::FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let systems = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("systems");
    let dir = tempfile::tempdir().unwrap();
    for (name, schedule, calls_per_step) in [
        ("double-oscillator-jacobi", "Jacobi with ZOH", 12),
        (
            "double-oscillator-gauss-seidel",
            "Gauss-Seidel with ZOH",
            12,
        ),
        ("double-oscillator-multirate", "Jacobi with ZOH", 30),
    ] {
        let output = dir.path().join(format!("{name}.csv"));
        let system = systems.join(format!("{name}.toml"));
        let run = common::tandem(&[
            "run",
            system.to_str().unwrap(),
            "--fmu-dir",
            fmu_dir.to_str().unwrap(),
            "--stop-time",
            "0.05",
            "--output-file",
            output.to_str().unwrap(),
        ]);
        run.assert_success();
        assert!(
            run.stderr
                .contains(&format!("{name}: {schedule} to t = 0.05 in 50 macro steps")),
            "{}",
            run.stderr
        );
        // Around the macro steps: 13 parameter and start values, 3 + 3 mode changes, the
        // propagation in dependency order (the spring read for mass1's first inputs, each
        // component's inputs set and outputs read, the masses' forces set again from the
        // spring's: 9), 3 reads, 3 terminations: 34.
        let (header, rows) = common::read_csv(&output);
        assert_eq!(rows.len(), 51, "{name}");
        assert_eq!(header[1], "mass1.position");
        let calls = format!("{} FMU calls", 34 + 50 * calls_per_step);
        assert!(
            run.stderr.contains(&calls),
            "{name}: {calls} expected in {}",
            run.stderr
        );
    }
}

#[test]
fn fmi2_and_fmi3_fmus_give_the_same_co_simulation() {
    use tandem_tests::fmus::{find, FmiVersion};
    let system = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("systems/double-oscillator-gauss-seidel.toml");
    let dir = tempfile::tempdir().unwrap();
    let results: Vec<_> = [FmiVersion::Fmi2, FmiVersion::Fmi3]
        .into_iter()
        .map(|version| {
            let fmu_dir = find("mass", version).path.parent().unwrap().to_path_buf();
            let output = dir.path().join(format!("{}.csv", version.folder()));
            common::tandem(&[
                "run",
                system.to_str().unwrap(),
                "--fmu-dir",
                fmu_dir.to_str().unwrap(),
                "--stop-time",
                "0.2",
                "--output-file",
                output.to_str().unwrap(),
            ])
            .assert_success();
            common::read_csv(&output)
        })
        .collect();
    assert_eq!(results[0].1.len(), 201);
    assert_eq!(results[0], results[1]);
}

/// Largest difference between two runs' states over every row, position and velocity.
fn difference(a: &Trajectory, b: &Trajectory) -> (f64, f64) {
    assert_eq!(a.times, b.times, "the runs have the same rows");
    let mut largest = (0.0f64, 0.0f64);
    for (x, y) in a.states.iter().zip(&b.states) {
        for i in 0..2 {
            largest.0 = largest.0.max((x[i] - y[i]).abs());
            largest.1 = largest.1.max((x[2 + i] - y[2 + i]).abs());
        }
    }
    largest
}

#[test]
fn model_exchange_masses_converge_at_first_order_under_jacobi_zoh_and_match_co_simulation() {
    // The master integrates the masses (Dormand-Prince at the FMU's tolerance, 1e-8), so the
    // ZOH coupling delay is the only first-order error left; the Co-Simulation masses add
    // symplectic Euler's, so the two runs differ by O(H).
    let me = |h| Setup {
        mass_interface: "me",
        ..Setup::jacobi("zoh", h)
    };
    let (position, velocity) = errors_over_steps(me);
    let (p_order, v_order) = (orders(&position), orders(&velocity));
    let (apart_p, apart_v): (Vec<f64>, Vec<f64>) = STEPS
        .iter()
        .map(|&h| difference(&me(h).run(), &Setup::jacobi("zoh", h).run()))
        .unzip();
    eprintln!(
        "Jacobi ZOH, Model Exchange masses: position errors {} (orders {p_order:.3?}), velocity errors {} (orders {v_order:.3?}); \
         difference to the Co-Simulation run: position {} (orders {:.3?}), velocity {} (orders {:.3?})",
        sci(&position),
        sci(&velocity),
        sci(&apart_p),
        orders(&apart_p),
        sci(&apart_v),
        orders(&apart_v),
    );
    assert_within("position order", &p_order, 0.9, 1.2);
    assert_within("velocity order", &v_order, 0.9, 1.2);
    assert_within(
        "order of the position difference",
        &orders(&apart_p),
        0.9,
        1.2,
    );
    assert_within(
        "order of the velocity difference",
        &orders(&apart_v),
        0.9,
        1.2,
    );
}

#[test]
fn model_exchange_masses_see_the_foh_continuously_and_become_second_order_in_velocity() {
    // A Model Exchange mass gets the extrapolated force at every stage of its integrator, so
    // FOH leaves an O(H^2) coupling error in velocities too; the Co-Simulation masses hold the
    // force over each step and their symplectic Euler velocities stay first order.
    let (position, velocity) = errors_over_steps(|h| Setup {
        mass_interface: "me",
        ..Setup::jacobi("foh", h)
    });
    let (_, cs_velocity) = errors_over_steps(|h| Setup::jacobi("foh", h));
    eprintln!(
        "Jacobi FOH, Model Exchange masses: position errors {} (orders {:.3?}), velocity errors {} (orders {:.3?}); Co-Simulation velocity errors {}",
        sci(&position),
        orders(&position),
        sci(&velocity),
        orders(&velocity),
        sci(&cs_velocity),
    );
    assert_within("position order", &orders(&position), 1.8, 2.2);
    assert_within("velocity order", &orders(&velocity), 1.8, 2.2);
    for i in 0..STEPS.len() {
        assert!(velocity[i] < cs_velocity[i] / 4.0);
    }
}

#[test]
fn a_model_exchange_component_handles_state_events_like_tandem_simulate() {
    // The bouncing ball alone: its bounces are state events located by the master inside the
    // macro steps, and each macro step restarts the integrator. Both runs integrate at the
    // FMU's tolerance (1e-8), so they agree to well within it.
    let ball = tandem_tests::fmus::find("bouncing_ball", tandem_tests::fmus::FmiVersion::Fmi3);
    let dir = tempfile::tempdir().unwrap();
    let system = dir.path().join("ball.toml");
    std::fs::write(
        &system,
        format!(
            "[experiment]\nstop = 3.0\nstep = 0.01\n\n[[component]]\nname = \"ball\"\nfmu = '{}'\ninterface = \"me\"\n\n[output]\nvariables = [\"ball.height\", \"ball.bounces\"]\n",
            ball.path.display()
        ),
    )
    .unwrap();
    let (co_simulated, simulated) = (dir.path().join("run.csv"), dir.path().join("simulate.csv"));
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    common::tandem(&["run", &path(&system), "--output-file", &path(&co_simulated)])
        .assert_success();
    common::tandem(&[
        "simulate",
        &path(&ball.path),
        "--interface-type",
        "me",
        "--stop-time",
        "3",
        "--output-interval",
        "0.01",
        "--output-variable",
        "height",
        "--output-variable",
        "bounces",
        // A system's result has a row per macro step: compared row by row without event rows.
        "--no-record-events",
        "--output-file",
        &path(&simulated),
    ])
    .assert_success();
    let (_, run_rows) = common::read_csv(&co_simulated);
    let (_, simulate_rows) = common::read_csv(&simulated);
    assert_eq!(run_rows.len(), 301);
    assert_eq!(run_rows.len(), simulate_rows.len());
    let last = run_rows.last().unwrap();
    assert!(last[2] >= 5.0, "the ball bounced: {last:?}");
    for (a, b) in run_rows.iter().zip(&simulate_rows) {
        assert_eq!(a[0], b[0]);
        assert_eq!(a[2], b[2], "bounces at t = {}", a[0]);
        assert!(
            (a[1] - b[1]).abs() < 1e-5,
            "height at t = {}: {} vs {}",
            a[0],
            a[1],
            b[1]
        );
    }
}
