//! The FMUs under test: every model crate packaged by `cargo xtask fmus` into
//! `target/test-fmus`, built once per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::python::workspace_root;

/// An FMI version, with the folder `cargo xtask fmus` puts its FMUs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FmiVersion {
    /// FMI 2.0.
    Fmi2,
    /// FMI 3.0.
    Fmi3,
}

impl FmiVersion {
    /// Both versions.
    pub const ALL: [FmiVersion; 2] = [FmiVersion::Fmi2, FmiVersion::Fmi3];

    /// The output subfolder (`fmi2`, `fmi3`).
    pub fn folder(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "fmi2",
            FmiVersion::Fmi3 => "fmi3",
        }
    }
}

/// One packaged FMU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fmu {
    /// The model identifier (the file stem).
    pub model: String,
    /// FMI version.
    pub version: FmiVersion,
    /// Path of the `.fmu` file.
    pub path: PathBuf,
}

/// The folder the tests package into.
pub fn folder() -> PathBuf {
    workspace_root().join("target").join("test-fmus")
}

/// Every FMU of every model crate, packaged on first call (once per process).
pub fn all() -> &'static [Fmu] {
    static FMUS: OnceLock<Vec<Fmu>> = OnceLock::new();
    FMUS.get_or_init(|| {
        package(&folder());
        FmiVersion::ALL
            .into_iter()
            .flat_map(|version| list(&folder(), version))
            .collect()
    })
}

/// The FMU of `model` for `version`; panics with the list of packaged FMUs if there is none.
pub fn find(model: &str, version: FmiVersion) -> &'static Fmu {
    all()
        .iter()
        .find(|f| f.model == model && f.version == version)
        .unwrap_or_else(|| {
            panic!(
                "no {} FMU of `{model}` among {:?}",
                version.folder(),
                all().iter().map(|f| &f.path).collect::<Vec<_>>()
            )
        })
}

/// Runs `cargo xtask fmus --out <out>` in the workspace, failing with cargo's messages.
fn package(out: &Path) {
    let output = Command::new(env!("CARGO"))
        .args(["xtask", "fmus", "--out"])
        .arg(out)
        .current_dir(workspace_root())
        .output()
        .expect("cannot run cargo");
    assert!(
        output.status.success(),
        "`cargo xtask fmus --out {}` failed ({}):\n{}",
        out.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `.fmu` files in `out/<version>/`, sorted by name.
fn list(out: &Path, version: FmiVersion) -> Vec<Fmu> {
    let dir = out.join(version.folder());
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut fmus: Vec<Fmu> = entries
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.extension().is_some_and(|ext| ext == "fmu"))
        .map(|path| Fmu {
            model: path
                .file_stem()
                .expect("an .fmu file has a stem")
                .to_string_lossy()
                .into_owned(),
            version,
            path,
        })
        .collect();
    fmus.sort_by(|a, b| a.model.cmp(&b.model));
    fmus
}
