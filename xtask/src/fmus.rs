//! `cargo xtask fmus`: build every model crate under `models/` with one release build, run each
//! crate's describe program for its model descriptions and adjoint-extension manifest, and zip
//! one FMI 2.0 and one FMI 3.0 FMU per model (each declaring Model Exchange and Co-Simulation;
//! the FMI 3.0 FMU also carries the manifest, docs/adjoint-extension.md).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::archive::{self, FmuContents};
use crate::cargo::{self, Metadata, Outputs, Package};
use crate::platform::{self, Platform};
use fmi_abi::adjoint::MANIFEST as ADJOINT_MANIFEST;

/// A model crate and the targets the packaging needs.
struct ModelCrate<'a> {
    package: &'a Package,
    /// The folder relative to the workspace root, for messages (`models/oscillator`).
    location: String,
    /// The library's crate name, which is the FMU's modelIdentifier.
    identifier: String,
    /// The name of the describe program.
    describe: String,
}

/// Builds and packages all models into `out` (default `<target dir>/fmus`) and prints the
/// folder on standard output.
pub fn run(out: Option<PathBuf>) -> Result<()> {
    let out = package_all(out)?;
    println!("{}", out.display());
    Ok(())
}

/// Builds and packages all models into `out` (default `<target dir>/fmus`); returns the folder.
pub fn package_all(out: Option<PathBuf>) -> Result<PathBuf> {
    let metadata = cargo::metadata()?;
    let platform = platform::host()?;
    let models = model_crates(&metadata)?;
    let out = out.unwrap_or_else(|| metadata.target_directory.join("fmus"));
    let packages: Vec<&Package> = models.iter().map(|m| m.package).collect();
    let outputs = cargo::build_release(&packages)?;
    for version in ["fmi2", "fmi3"] {
        let dir = out.join(version);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let scratch = tempfile::tempdir().context("cannot create a temporary folder")?;
    for model in &models {
        package(model, &outputs, &out, platform, scratch.path())
            .with_context(|| format!("model crate {}", model.location))?;
        eprintln!("packaged {} (FMI 2.0 and FMI 3.0)", model.identifier);
    }
    Ok(out)
}

/// The workspace members under `models/`, sorted by name, each checked for a cdylib and a
/// describe program; plain libraries shared by model crates are skipped.
fn model_crates(metadata: &Metadata) -> Result<Vec<ModelCrate<'_>>> {
    let models_dir = metadata.workspace_root.join("models");
    let mut models = Vec::new();
    for package in metadata
        .packages
        .iter()
        .filter(|p| p.dir().starts_with(&models_dir))
    {
        let location = package
            .dir()
            .strip_prefix(&metadata.workspace_root)
            .unwrap_or(package.dir());
        let location = location.to_string_lossy().replace('\\', "/");
        if is_shared_library(package) {
            continue;
        }
        let Some(library) = package.target("cdylib") else {
            bail!(
                "{location}: the library is not a cdylib: add \
                 `crate-type = [\"cdylib\", \"rlib\"]` under [lib] in {location}/Cargo.toml"
            );
        };
        let bins: Vec<_> = package
            .targets
            .iter()
            .filter(|t| t.kind.iter().any(|k| k == "bin"))
            .collect();
        let Some(describe) = bins
            .iter()
            .find(|t| t.name == package.name)
            .or(bins.first())
        else {
            bail!(
                "{location}: no describe program: \
                 add {location}/src/main.rs calling fmu_export::describe::main"
            );
        };
        models.push(ModelCrate {
            package,
            identifier: library.name.clone(),
            describe: describe.name.clone(),
            location,
        });
    }
    if models.is_empty() {
        bail!("no model crates under {}", models_dir.display());
    }
    models.sort_by(|a, b| a.package.name.cmp(&b.package.name));
    Ok(models)
}

/// Whether a crate under `models/` is a plain library that model crates share (equations
/// used by several FMUs) rather than a model: it has neither a cdylib nor a program.
fn is_shared_library(package: &Package) -> bool {
    package.target("cdylib").is_none() && package.target("bin").is_none()
}

/// Describes one built model and writes its two FMUs.
fn package(
    model: &ModelCrate,
    outputs: &HashMap<String, Outputs>,
    out: &Path,
    platform: Platform,
    scratch: &Path,
) -> Result<()> {
    let built = outputs.get(&model.package.id);
    let library = built
        .and_then(|o| o.library.as_deref())
        .context("the build produced no shared library")?;
    let executable = built
        .and_then(|o| o.executables.get(&model.describe))
        .with_context(|| format!("the build produced no `{}` program", model.describe))?;
    let Described {
        fmi2,
        fmi3,
        adjoint_manifest,
    } = describe(model, executable, scratch)?;
    let fmi3_extras = [(ADJOINT_MANIFEST, adjoint_manifest.as_str())];
    for (version, xml, folder, extra) in [
        ("fmi2", &fmi2, platform.fmi2, &[][..]),
        ("fmi3", &fmi3, platform.fmi3, &fmi3_extras[..]),
    ] {
        let path = out.join(version).join(format!("{}.fmu", model.identifier));
        let contents = FmuContents {
            model_description: xml,
            platform: folder,
            library,
            model_identifier: &model.identifier,
            extra,
        };
        archive::write_fmu(&path, &contents)?;
    }
    Ok(())
}

/// What a model's describe program writes.
struct Described {
    /// The FMI 2.0 modelDescription.xml.
    fmi2: String,
    /// The FMI 3.0 modelDescription.xml.
    fmi3: String,
    /// The adjoint extension's manifest.xml.
    adjoint_manifest: String,
}

/// Runs the describe program and returns the FMI 2.0 and FMI 3.0 descriptions, checked to name
/// the library as their modelIdentifier, and the adjoint manifest.
fn describe(model: &ModelCrate, executable: &Path, scratch: &Path) -> Result<Described> {
    let files =
        ["fmi2", "fmi3", "adjoint"].map(|v| scratch.join(format!("{}-{v}.xml", model.identifier)));
    let output = Command::new(executable)
        .arg("--fmi2")
        .arg(&files[0])
        .arg("--fmi3")
        .arg(&files[1])
        .arg("--adjoint-manifest")
        .arg(&files[2])
        .output()
        .with_context(|| format!("cannot run {}", executable.display()))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}):\n{}",
            executable.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let [fmi2, fmi3, adjoint_manifest] = files.map(|file| {
        std::fs::read_to_string(&file)
            .with_context(|| format!("{} did not write {}", executable.display(), file.display()))
    });
    let (fmi2, fmi3) = (fmi2?, fmi3?);
    for xml in [&fmi2, &fmi3] {
        let named = model_identifier(xml).unwrap_or_default();
        if named != model.identifier {
            bail!(
                "{location}/src/main.rs describes the model as `{named}` but its library is \
                 `{id}`: pass \"{id}\" to fmu_export::describe::main",
                location = model.location,
                id = model.identifier,
            );
        }
    }
    Ok(Described {
        fmi2,
        fmi3,
        adjoint_manifest: adjoint_manifest?,
    })
}

/// The first `modelIdentifier` attribute of a model description.
fn model_identifier(xml: &str) -> Option<&str> {
    let start = xml.find("modelIdentifier=\"")? + "modelIdentifier=\"".len();
    let len = xml[start..].find('"')?;
    Some(&xml[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package_with(kinds: &[&str]) -> Package {
        Package {
            name: "crate-name".into(),
            id: "crate-name 0.1.0".into(),
            manifest_path: PathBuf::from("models/crate-name/Cargo.toml"),
            targets: kinds
                .iter()
                .map(|kind| cargo::Target {
                    name: "crate_name".into(),
                    kind: vec![kind.to_string()],
                })
                .collect(),
        }
    }

    #[test]
    fn only_crates_without_a_cdylib_and_a_program_are_shared_libraries() {
        assert!(is_shared_library(&package_with(&["lib"])));
        assert!(!is_shared_library(&package_with(&[
            "cdylib", "rlib", "bin"
        ])));
        // A model that forgot its cdylib is still a model, so the packaging reports it.
        assert!(!is_shared_library(&package_with(&["rlib", "bin"])));
    }

    #[test]
    fn model_identifier_is_read_from_the_interface_element() {
        let xml = "<fmiModelDescription><ModelExchange modelIdentifier=\"crane\" x=\"1\"/>";
        assert_eq!(model_identifier(xml), Some("crane"));
        assert_eq!(model_identifier("<fmiModelDescription/>"), None);
    }
}
