//! The `tandem` Python package (`master/python`): built into the tests' Python environment
//! (`target/python-venv`, with maturin and pytest from `tests/python/requirements.txt`) and
//! tested there by pytest (`master/python/tests`) against the `tandem` binary built with these
//! tests and against FMPy.
//!
//! The wheel is built in the dev profile, into the workspace's `target/`: the library crates
//! below the package are then those the other tests built (the dependencies optimized, as the
//! workspace's dev profile has them), and a warm build takes seconds. A release build would
//! compile every crate again with optimizations; users get one from `pip install
//! ./master/python`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use tandem_tests::fmus::{self, FmiVersion};
use tandem_tests::python::{python, tool, workspace_root};

#[test]
fn the_python_package_passes_its_tests() {
    let python = python();
    let started = Instant::now();
    install(&python, &build_wheel(&python));
    eprintln!(
        "the tandem package built and installed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let faulty = common::faulty::faulty_fmu(scratch.path(), None);
    let test_fmus = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the folder of the test FMUs")
        .to_path_buf();
    let tests = workspace_root().join("master/python/tests");
    // From a folder of its own: in master/python, `import tandem` would find the sources
    // rather than the installed package with its extension module.
    let output = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&tests)
        .current_dir(scratch.path())
        .env("TANDEM_BIN", env!("CARGO_BIN_EXE_tandem"))
        .env("TANDEM_TEST_FMUS", &test_fmus)
        .env("TANDEM_FAULTY_FMU", &faulty)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run pytest");
    let report = transcript(&output);
    assert!(output.status.success(), "pytest failed:\n{report}");
    eprintln!("{report}");
}

/// Builds the package's wheel with maturin into `target/python-package`, emptied first, and
/// returns its path.
fn build_wheel(python: &Path) -> PathBuf {
    let out = workspace_root().join("target/python-package");
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(tool("maturin"))
        .args(["build", "--profile", "dev", "--manifest-path"])
        .arg(workspace_root().join("master/python/Cargo.toml"))
        .arg("--interpreter")
        .arg(python)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run maturin");
    assert!(
        output.status.success(),
        "maturin build failed:\n{}",
        transcript(&output)
    );
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)
        .expect("maturin's output folder")
        .map(|entry| entry.expect("a wheel").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "one wheel in {}", out.display());
    wheels.into_iter().next().expect("the wheel")
}

/// Installs `wheel` into the environment of `python`, replacing an earlier build (NumPy, its
/// one dependency, comes with FMPy).
fn install(python: &Path, wheel: &Path) {
    let output = Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--force-reinstall",
        ])
        .arg(wheel)
        .output()
        .expect("run pip");
    assert!(
        output.status.success(),
        "installing {} failed:\n{}",
        wheel.display(),
        transcript(&output)
    );
}

/// What a finished command printed.
fn transcript(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
