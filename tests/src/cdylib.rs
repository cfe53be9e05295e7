//! Shared libraries of the workspace's model crates: built with `cargo build -p <package>`
//! the first time a test process asks for one, then found under the target folder.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use crate::python::workspace_root;

/// The path of `lib<package>.so` (platform naming), built in the dev profile if needed.
///
/// Panics with cargo's output if the build fails.
pub fn cdylib(package: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashMap::new);
    if let Some(path) = built.get(package) {
        return path.clone();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args(["build", "--quiet", "-p", package])
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo:?} to build {package}: {e}"));
    if !output.status.success() {
        panic!("cargo build -p {package} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    }
    let path = target_dir().join("debug").join(format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        package.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    ));
    assert!(path.is_file(), "cargo build -p {package} did not produce {}", path.display());
    built.insert(package.to_owned(), path.clone());
    path
}

/// Cargo's target folder (`CARGO_TARGET_DIR` if set, else the workspace's `target/`).
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}
