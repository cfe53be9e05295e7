//! `tandem identify` on Tandem's FMUs: parameters recovered from synthetic measurements made
//! by a run with known values: the double oscillator's spring, on finite-difference gradients;
//! the engine mount of seed 000 (digest A.6: u_init -> u_opt, cost on the load acceleration),
//! on the adjoint gradients its FMU's extension gives, down twelve orders of magnitude.

mod common;

use std::path::Path;

use common::double_oscillator::Setup;
use common::engine_mount::{
    engine_mount, engine_mount_file, fitted, measure, three_experiments, EXPERIMENTS,
};

/// `J from a to b` in the command's output.
fn cost_reduction(stdout: &str) -> (f64, f64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("J from "))
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (
        words[2].parse().expect("J at the start"),
        words[4].parse().expect("J at the end"),
    )
}

#[test]
fn identify_recovers_the_coupling_spring_by_finite_differences() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let setup = Setup {
        stop: 0.2,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3)
    };
    let system = setup.write(dir.path());
    let data = dir.path().join("measured.csv");
    measure(&system, &["spring.k"], &[100.0], "mass2.position", &data);
    // Start 30 % off: the system file's spring has k = 100 (written by the setup).
    let text = std::fs::read_to_string(&system).expect("the system file");
    std::fs::write(
        &system,
        text.replace("parameters = { k = 100.0 }", "parameters = { k = 70.0 }"),
    )
    .expect("rewrite the system file");
    let output = dir.path().join("fitted.csv");
    let plot = dir.path().join("fit.svg");
    let run = common::tandem(&[
        "identify",
        system.to_str().expect("UTF-8"),
        "--data",
        data.to_str().expect("UTF-8"),
        "--parameters",
        "spring.k=10:1000",
        "--output",
        output.to_str().expect("UTF-8"),
        "--plot",
        plot.to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    let values = fitted(&output);
    assert_eq!(values[0].0, "spring.k");
    let error = (values[0].1 - 100.0).abs() / 100.0;
    let (start, end) = cost_reduction(&run.stdout);
    println!(
        "{}\nrelative error {error:.1e}, J {start:e} -> {end:e}",
        run.stdout
    );
    assert!(error < 1e-6, "fitted {} for 100", values[0].1);
    assert!(end < 1e-10 * start, "J {start} -> {end}");
    let svg = std::fs::read_to_string(&plot).expect("the plot");
    for text in [
        "<svg",
        "mass2.position",
        "measured",
        "fitted",
        "start",
        "measured − fitted",
    ] {
        assert!(svg.contains(text), "the plot shows {text:?}");
    }
}

#[test]
fn identify_recovers_the_engine_mount_parameters() {
    let names = ["mount.c_E1", "mount.c_E2", "mount.d_E", "mount.d_H2"];
    let optimum = [2.0e5, 5.0e9, 200.0, 10.0];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let system = engine_mount(dir.path(), 1.0, 1e-4);
    let data = dir.path().join("measured.csv");
    measure(&system, &names, &optimum, "mount.load_acceleration", &data);
    let output = dir.path().join("fitted.csv");
    let run = common::tandem(&[
        "identify",
        system.to_str().expect("UTF-8"),
        "--data",
        data.to_str().expect("UTF-8"),
        "--parameters",
        "mount.c_E1=5e4:1e6,mount.c_E2=1e8:1e11,mount.d_E=10:2000,mount.d_H2=0.5:100",
        "--output",
        output.to_str().expect("UTF-8"),
        "--plot",
        dir.path().join("fit.png").to_str().expect("UTF-8"),
    ]);
    run.assert_success();
    assert!(run.stdout.contains("adjoint"), "{}", run.stdout);
    let (start, end) = cost_reduction(&run.stdout);
    println!("{}", run.stdout);
    assert!(end <= 1e-12 * start, "J {start} -> {end}");
    for ((name, value), expected) in fitted(&output).iter().zip(optimum) {
        let error = (value - expected).abs() / expected;
        println!("{name}: fitted {value} for {expected}, relative error {error:.1e}");
        assert!(
            error < 1e-6,
            "{name}: fitted {value} for {expected} ({error:.1e})"
        );
    }
}

#[test]
fn the_gradient_of_several_experiments_is_the_weighted_sum_of_theirs() {
    let names = ["mount.c_E1", "mount.c_E2", "mount.d_E", "mount.d_H2"];
    let optimum = [2.0e5, 5.0e9, 200.0, 10.0];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (system, singles) = three_experiments(dir.path(), &names, &optimum, 0.15);
    let parameters = names.join(",");
    let gradient = |system: &Path, data: Option<&Path>| {
        let mut args = vec![
            "gradient",
            system.to_str().unwrap(),
            "--parameters",
            &parameters,
        ];
        if let Some(data) = data {
            args.extend(["--data", data.to_str().unwrap()]);
        }
        let run = common::tandem(&args);
        run.assert_success();
        let cost: f64 = run.stdout.lines().next().unwrap()[4..].parse().unwrap();
        let derivatives: Vec<f64> = names
            .iter()
            .map(|name| {
                let line = run.stdout.lines().find(|l| l.starts_with(name)).unwrap();
                line.split_whitespace().nth(2).unwrap().parse().unwrap()
            })
            .collect();
        (cost, derivatives)
    };
    let (cost, derivatives) = gradient(&system, None);
    let mut expected = (0.0, vec![0.0; names.len()]);
    for (k, single) in singles.iter().enumerate() {
        let data = dir.path().join(format!("measured-{k}.csv"));
        let (c, d) = gradient(single, Some(&data));
        let weight = EXPERIMENTS[k].2;
        assert!(c > 0.0, "experiment {k} has a cost at the start values");
        expected.0 += weight * c;
        for (total, part) in expected.1.iter_mut().zip(d) {
            *total += weight * part;
        }
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    assert!(close(cost, expected.0), "J {cost} vs {}", expected.0);
    for (name, (a, b)) in names.iter().zip(derivatives.iter().zip(&expected.1)) {
        assert!(close(*a, *b), "{name}: {a} vs {b}");
    }
}

#[test]
fn identify_recovers_the_engine_mount_from_three_experiments_on_one_thread_and_on_three() {
    let names = ["mount.c_E1", "mount.c_E2", "mount.d_E", "mount.d_H2"];
    let optimum = [2.0e5, 5.0e9, 200.0, 10.0];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (system, _) = three_experiments(dir.path(), &names, &optimum, 0.15);
    let mut stdouts = Vec::new();
    for threads in ["1", "3"] {
        let output = dir.path().join(format!("fitted-{threads}.csv"));
        let run = common::tandem_with_env(
            &[
                "identify",
                system.to_str().expect("UTF-8"),
                "--parameters",
                "mount.c_E1=5e4:1e6,mount.c_E2=1e8:1e11,mount.d_E=10:2000,mount.d_H2=0.5:100",
                "--output",
                output.to_str().expect("UTF-8"),
                "--plot",
                dir.path().join("fit.png").to_str().expect("UTF-8"),
            ],
            &[("RAYON_NUM_THREADS", threads)],
        );
        run.assert_success();
        for k in 1..=3 {
            assert!(
                dir.path().join(format!("fit_{k}.png")).is_file(),
                "plot {k}"
            );
        }
        for ((name, value), expected) in fitted(&output).iter().zip(optimum) {
            let error = (value - expected).abs() / expected;
            assert!(
                error < 1e-6,
                "{name}: fitted {value} for {expected} ({error:.1e})"
            );
        }
        stdouts.push(run.stdout);
    }
    // The same iterates: the experiments are summed in file order whatever the threads.
    assert_eq!(stdouts[0], stdouts[1]);
}

#[test]
fn bad_experiments_name_the_entry_and_the_problem() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let entry = |body: &str| format!("\n[[experiments]]\ndata = \"m.csv\"\n{body}\n");
    for (after, args, needle) in [
        (
            entry("weight = 0.0"),
            vec![],
            "[[experiments]] entry 1: weight = 0 must be a positive number",
        ),
        (
            entry("start = { \"mount.AA\" = 1.0 }"),
            vec![],
            "[[experiments]] entry 1: start mount.AA: component mount",
        ),
        (entry(""), vec!["--data", "other.csv"], "--data other.csv: "),
    ] {
        let system = engine_mount_file(dir.path(), "bad.toml", 0.01, 1e-3, "", &after);
        let mut all = vec![
            "gradient",
            system.to_str().unwrap(),
            "--parameters",
            "mount.c_E1",
        ];
        all.extend(args);
        common::tandem(&all).assert_fails_with(needle);
    }
}
