//! FMUs built from the Python slaves in `tests/python/slaves` with `pythonfmu` (FMI 2.0)
//! and `pythonfmu3` (FMI 3.0), and the Python runtime they need in the loading process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use tandem_tests::python;

/// Builds `tests/python/slaves/<script>.py` with `builder` (once per test process, with FMU
/// state support declared) and returns the path of `<model>.fmu`.
pub fn build(builder: &str, script: &str, model: &str) -> PathBuf {
    let source = python::workspace_root()
        .join("tests")
        .join("python")
        .join("slaves")
        .join(format!("{script}.py"));
    build_file(builder, &source, model)
}

/// Builds the Python slave `source` with `builder` (once per test process, with FMU state
/// support declared) and returns the path of `<model>.fmu`.
pub fn build_file(builder: &str, source: &Path, model: &str) -> PathBuf {
    static BUILT: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, path)) = built
        .iter()
        .find(|(built_source, _)| built_source == source)
    {
        return path.clone();
    }
    let script = source.file_stem().expect("a script file name");
    let out = python::workspace_root()
        .join("target")
        .join("test-fmus")
        .join(script);
    std::fs::create_dir_all(&out).expect("create output folder");
    let output = Command::new(python::tool(builder))
        .args(["build", "--handle-state", "--serialize-state", "-f"])
        .arg(source)
        .arg("-d")
        .arg(&out)
        .output()
        .expect("run the FMU builder");
    assert!(
        output.status.success(),
        "{builder} build failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let fmu = out.join(format!("{model}.fmu"));
    assert!(fmu.is_file(), "{builder} produced no {}", fmu.display());
    built.push((source.to_path_buf(), fmu.clone()));
    fmu
}

/// The shared Python library of the test environment's interpreter. pythonfmu binaries do
/// not link it: the loading process must provide its symbols.
pub fn libpython() -> &'static str {
    static LIBRARY: OnceLock<String> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let output = Command::new(python::python())
            .args(["-c", "import os, sysconfig; print(os.path.join(sysconfig.get_config_var('LIBDIR'), sysconfig.get_config_var('INSTSONAME')))"])
            .output()
            .expect("run python");
        let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
        assert!(
            Path::new(&path).is_file(),
            "pythonfmu FMUs need a shared libpython to be loaded outside Python, but {path:?} does not exist (Python built without --enable-shared)"
        );
        path
    })
}
