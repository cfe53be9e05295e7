//! Shared libraries and programs of the workspace's model crates: built with
//! `cargo build -p <package>` the first time a test process asks for one, then found under the
//! target folder.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use crate::python::workspace_root;

/// The path of `lib<package>.so` (platform naming), built in the dev profile if needed.
///
/// Panics with cargo's output if the build fails.
pub fn cdylib(package: &str) -> PathBuf {
    build(package);
    let path = target_dir().join("debug").join(format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        package.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        path.is_file(),
        "cargo build -p {package} did not produce {}",
        path.display()
    );
    path
}

/// The path of the program named after `package` (a model crate's describe program), built in
/// the dev profile if needed.
pub fn program(package: &str) -> PathBuf {
    build(package);
    let path = target_dir()
        .join("debug")
        .join(format!("{package}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "cargo build -p {package} did not produce {}",
        path.display()
    );
    path
}

/// Runs `cargo build -p <package>` once per process (library and programs).
fn build(package: &str) {
    static BUILT: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashSet::new);
    if built.contains(package) {
        return;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args(["build", "--quiet", "-p", package])
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo:?} to build {package}: {e}"));
    if !output.status.success() {
        panic!(
            "cargo build -p {package} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    built.insert(package.to_owned());
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
