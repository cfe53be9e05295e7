//! `tandem gradient` and `tandem identify` report bad parameters, bounds, costs and data
//! clearly, with exit code 1, before anything runs.

mod common;
mod gradient_fake;

use std::path::{Path, PathBuf};

use gradient_fake::LinearModel;
use nalgebra::{DMatrix, DVector};

/// A one-state component with two parameters, as an archive without binaries: the commands
/// must fail on the arguments before they would instantiate it.
fn component() -> LinearModel {
    LinearModel {
        a: DMatrix::from_row_slice(1, 1, &[-1.0]),
        a_parameters: vec![DMatrix::zeros(1, 1); 2],
        b: DMatrix::from_row_slice(1, 1, &[1.0]),
        kappa: 0.0,
        c: DMatrix::from_row_slice(1, 1, &[1.0]),
        d: DMatrix::zeros(1, 1),
        d_parameters: vec![DMatrix::zeros(1, 1); 2],
        w_start: DVector::from_column_slice(&[0.0]),
        e: DMatrix::zeros(1, 1),
        f: DMatrix::zeros(1, 2),
        parameters: vec![2.0, 0.5],
    }
}

/// A system of one such component with `extra` appended, and measurements of `plant.y0` over
/// [0, `measured_until`].
fn system(dir: &Path, extra: &str, measured_until: f64) -> PathBuf {
    let fmu = component().write_fmu(dir, "plant");
    let text = format!(
        "[experiment]\nstop = 1.0\nstep = 0.1\n\n[[component]]\nname = \"plant\"\nfmu = '{}'\n{extra}",
        fmu.display()
    );
    let mut data = String::from("time,plant.y0\n");
    for i in 0..=10 {
        let t = measured_until * i as f64 / 10.0;
        data += &format!("{t},{}\n", t * t);
    }
    std::fs::write(dir.join("measured.csv"), data).expect("write measurements");
    let path = dir.join("system.toml");
    std::fs::write(&path, text).expect("write the system file");
    path
}

/// Runs `tandem` on a fresh system with `extra` and `args` after the system file.
fn run(extra: &str, measured_until: f64, args: &[&str]) -> common::Run {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = system(dir.path(), extra, measured_until);
    let data = dir.path().join("measured.csv");
    let mut all: Vec<String> = vec![args[0].to_string(), path.display().to_string()];
    for arg in &args[1..] {
        all.push(arg.replace("DATA", &data.display().to_string()));
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    common::tandem(&all)
}

#[test]
fn gradient_names_bad_parameters() {
    let cases = [
        (
            "nosuch.p0",
            "unknown component \"nosuch\" in \"nosuch.p0\" (components: plant)",
        ),
        ("plant.k", "component plant"),
        ("plant.y0", "y0 is a output variable, not a parameter"),
        ("plant", "\"plant\" is not of the form component.variable"),
        (
            "plant.p0,plant.p0",
            "the parameter is already listed as plant.p0",
        ),
    ];
    for (parameters, message) in cases {
        let result = run(
            "",
            1.0,
            &["gradient", "--parameters", parameters, "--data", "DATA"],
        );
        result.assert_fails_with(&format!(
            "--parameters {}",
            parameters.rsplit(',').next().unwrap()
        ));
        result.assert_fails_with(message);
    }
    run("", 1.0, &["gradient", "--data", "DATA"]).assert_fails_with("no parameters given");
}

#[test]
fn gradient_names_bad_costs_and_data() {
    let p = ["gradient", "--parameters", "plant.p0"];
    fn with<'a>(p: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [p, extra].concat()
    }
    run("", 1.0, &p).assert_fails_with("a least-squares cost needs measurements: give --data");
    run("", 1.0, &with(&p, &["--cost", "median"])).assert_fails_with("\"median\" is no cost");
    run("", 1.0, &with(&p, &["--cost", "integral:plant.u0"]))
        .assert_fails_with("u0 is a input Float64 variable; the cost takes float outputs");
    run(
        "",
        1.0,
        &with(&p, &["--data", "DATA", "--weights", "plant.y1=2"]),
    )
    .assert_fails_with("weight plant.y1: ");
    run(
        "",
        1.0,
        &with(&p, &["--data", "DATA", "--weights", "plant.y0=-1"]),
    )
    .assert_fails_with("weight plant.y0: -1 is not a finite, non-negative number");
    run("", 0.5, &with(&p, &["--data", "DATA"])).assert_fails_with(
        "column plant.y0 is measured from t = 0 to 0.5, but the cost needs it at t = 0.6",
    );
    run("", 1.0, &with(&p, &["--data", "no-such-file.csv"])).assert_fails_with("no-such-file.csv");
}

#[test]
fn the_gradient_section_is_checked() {
    run(
        "\n[gradient]\nparameters = [\"plant.p0\"]\nsolver = \"fast\"\n",
        1.0,
        &["gradient"],
    )
    .assert_fails_with("[gradient]: unknown field `solver`");
    run(
        "\n[gradient]\nparameters = [\"plant.q\"]\ndata = \"measured.csv\"\n",
        1.0,
        &["gradient"],
    )
    .assert_fails_with("[gradient] parameters plant.q: component plant");
}

#[test]
fn identify_names_bad_bounds() {
    let cases = [
        (
            "plant.p0=5:1",
            "the lower bound 5 is not below the upper bound 1",
        ),
        ("plant.p0=1", "expected component.parameter=lower:upper"),
        (
            "plant.p0=a:3",
            "the lower bound \"a\" is not a finite number",
        ),
        (
            "plant.p0=3:4",
            "plant.p0: the start value 2 is not inside the bounds 3:4",
        ),
        (
            "plant.p0=:2",
            "the start value 2 is not inside the bounds :2",
        ),
    ];
    for (parameters, message) in cases {
        run(
            "",
            1.0,
            &["identify", "--data", "DATA", "--parameters", parameters],
        )
        .assert_fails_with(message);
    }
    run("", 1.0, &["identify", "--parameters", "plant.p0=0:5"])
        .assert_fails_with("--data: identification needs measurements: give --data measured.csv");
}
