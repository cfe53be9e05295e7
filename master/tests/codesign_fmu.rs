//! `tandem codesign` on the cart-pole FMU: the reference values of the seed digest through
//! the FMU's derivatives (FMI 3.0 with adjoint derivatives, FMI 2.0 with directional ones
//! only), the command's check, and its errors.

mod common;

use std::path::{Path, PathBuf};

use tandem::codesign::fmu_plant::FmuPlant;
use tandem::codesign::problem_file;
use tandem::codesign::{analyze, gradient};
use tandem::Fmu;
use tandem_tests::fmus::{self, FmiVersion};

/// The example problem of the repository.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/codesign/cart-pole.toml")
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
    let fmu = &fmus::find("cart_pole", FmiVersion::Fmi3).path;
    fmu.parent()
        .expect("the FMU's folder")
        .display()
        .to_string()
}

#[test]
fn check_prints_adjoint_and_differences() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let problem = variant(dir.path(), ("steps = 1000", "steps = 200"));
    let run = common::tandem(&[
        "codesign",
        &problem.display().to_string(),
        "--check",
        "--fmu-dir",
        &fmu_dir(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for needle in [
        "f = ",
        "closed-loop eigenvalues",
        "df/dd by the coupled adjoint",
        "central differences of J and G",
        "relative difference",
    ] {
        assert!(
            run.stdout.contains(needle),
            "{needle} missing from:\n{}",
            run.stdout
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
