//! The workspace's model crates, found as the folders under `models/` with a `Cargo.toml` and a
//! describe program, and the model descriptions and adjoint manifests those programs write.

use std::path::PathBuf;
use std::process::Command;

use crate::cdylib;
use crate::fmus::FmiVersion;
use crate::python::workspace_root;

/// A model crate under `models/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelCrate {
    /// The package name (`engine-mount`), which is also the describe program's name.
    pub package: String,
    /// The crate's folder.
    pub folder: PathBuf,
}

impl ModelCrate {
    /// Every model crate, sorted by package name.
    pub fn all() -> Vec<ModelCrate> {
        let models = workspace_root().join("models");
        let entries = std::fs::read_dir(&models)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", models.display()));
        let mut crates: Vec<ModelCrate> = entries
            .map(|entry| entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", models.display())))
            .map(|entry| entry.path())
            // Model crates have a describe program; crates without one are equations that
            // several models share (as `cargo xtask fmus` skips them).
            .filter(|folder| {
                folder.join("Cargo.toml").is_file() && folder.join("src").join("main.rs").is_file()
            })
            .map(|folder| ModelCrate {
                package: package_name(&folder),
                folder,
            })
            .collect();
        crates.sort_by(|a, b| a.package.cmp(&b.package));
        assert!(
            !crates.is_empty(),
            "no model crate under {}",
            models.display()
        );
        crates
    }

    /// The crate's shared library (built in the dev profile on first use).
    pub fn library(&self) -> PathBuf {
        cdylib::cdylib(&self.package)
    }

    /// The modelDescription.xml of `version` as the crate's describe program writes it.
    pub fn description(&self, version: FmiVersion) -> String {
        self.describe(&format!("--{}", version.folder()))
    }

    /// The adjoint extension's manifest.xml as the crate's describe program writes it.
    pub fn adjoint_manifest(&self) -> String {
        self.describe("--adjoint-manifest")
    }

    /// What the describe program writes into the file it is given with `flag`.
    fn describe(&self, flag: &str) -> String {
        let program = cdylib::program(&self.package);
        let dir = tempfile::tempdir().expect("create a temporary folder");
        let file = dir.path().join("described.xml");
        let output = Command::new(&program)
            .arg(flag)
            .arg(&file)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
        assert!(
            output.status.success(),
            "{} {flag} failed: {}",
            program.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{} wrote no {}: {e}", program.display(), file.display()))
    }
}

/// The `[package] name` of the crate in `folder`.
fn package_name(folder: &std::path::Path) -> String {
    let manifest = folder.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", manifest.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{} is not TOML: {e}", manifest.display()));
    table
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or_else(|| panic!("{} has no [package] name", manifest.display()))
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_crates_are_found_with_their_package_names() {
        let names: Vec<String> = ModelCrate::all().into_iter().map(|m| m.package).collect();
        for expected in ["bouncing-ball", "engine-mount", "oscillator", "van-der-pol"] {
            assert!(
                names.iter().any(|n| n == expected),
                "{expected} missing from {names:?}"
            );
        }
    }
}
