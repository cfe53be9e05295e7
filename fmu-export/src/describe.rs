//! The `describe` command-line program of a model crate: `<bin> --fmi2 FILE --fmi3 FILE
//! --adjoint-manifest FILE` writes the crate's FMI 2.0 and FMI 3.0 modelDescription.xml and the
//! adjoint extension's manifest, which `cargo xtask fmus` zips next to the compiled library.
//!
//! Each model crate has a `src/main.rs` of one line calling [`main`] with its system type and
//! library name. Why a program per crate:
//! * the metadata comes from the model compiled as an ordinary Rust library, not from loading
//!   the cdylib and calling into it, which would tie the packager to the target platform and to
//!   the exact compiler build of the model (the Rust ABI is not stable);
//! * one program per crate, rather than one program linking every model, because each model
//!   library exports the same C symbols (`fmi2Instantiate`, ...): linking several into one
//!   program would define them twice.

use std::path::{Path, PathBuf};

use crate::description;
use crate::system::System;
use crate::validation::validate;

const USAGE: &str = "usage: <model> [--fmi2 FILE] [--fmi3 FILE] [--adjoint-manifest FILE]\n\
                     Writes the model's FMI 2.0 and/or FMI 3.0 modelDescription.xml, and/or the\n\
                     manifest of its adjoint extension, to FILE.";

/// Where to write the descriptions.
#[derive(Debug, Default, PartialEq)]
struct Targets {
    fmi2: Option<PathBuf>,
    fmi3: Option<PathBuf>,
    adjoint_manifest: Option<PathBuf>,
}

/// Runs the program: parses the command line, writes the requested descriptions of `S`, and
/// exits with status 2 and a message on a usage or file error.
pub fn main<S: System>(model_identifier: &str) {
    let result = parse(std::env::args().skip(1)).and_then(|targets| match targets {
        Some(targets) => write::<S>(&targets, model_identifier),
        None => {
            println!("{USAGE}");
            Ok(())
        }
    });
    if let Err(message) = result {
        eprintln!("{model_identifier}: {message}");
        std::process::exit(2);
    }
}

/// The requested files, or `None` when help was asked for.
fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Targets>, String> {
    let mut targets = Targets::default();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--fmi2" => &mut targets.fmi2,
            "--fmi3" => &mut targets.fmi3,
            "--adjoint-manifest" => &mut targets.adjoint_manifest,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        };
        let file = args
            .next()
            .ok_or_else(|| format!("`{arg}` needs a file name\n{USAGE}"))?;
        *slot = Some(PathBuf::from(file));
    }
    if targets == Targets::default() {
        return Err(format!("nothing to write\n{USAGE}"));
    }
    Ok(Some(targets))
}

/// Writes the requested files of `S`, after checking its declaration: a model that cannot be
/// exported gets no file.
fn write<S: System>(targets: &Targets, model_identifier: &str) -> Result<(), String> {
    let sys = S::default();
    validate(sys.declaration())?;
    if let Some(path) = &targets.fmi2 {
        save(path, &description::fmi2(&sys, model_identifier))?;
    }
    if let Some(path) = &targets.fmi3 {
        save(path, &description::fmi3(&sys, model_identifier))?;
    }
    if let Some(path) = &targets.adjoint_manifest {
        let manifest = description::adjoint_manifest(&sys)
            .map_err(|e| format!("cannot write the adjoint manifest {}: {e}", path.display()))?;
        save(path, &manifest)?;
    }
    Ok(())
}

fn save(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn both_files_or_either_can_be_requested() {
        let t = parse(args(&["--fmi3", "b.xml", "--fmi2", "a.xml"]))
            .unwrap()
            .unwrap();
        assert_eq!(
            t,
            Targets {
                fmi2: Some("a.xml".into()),
                fmi3: Some("b.xml".into()),
                adjoint_manifest: None,
            }
        );
        assert_eq!(
            parse(args(&["--fmi2", "a.xml"])).unwrap().unwrap().fmi3,
            None
        );
        let manifest = parse(args(&["--adjoint-manifest", "m.xml"]))
            .unwrap()
            .unwrap();
        assert_eq!(manifest.adjoint_manifest, Some("m.xml".into()));
        assert_eq!(parse(args(&["--help"])), Ok(None));
    }

    #[test]
    fn mistakes_are_reported() {
        assert!(parse(args(&[]))
            .unwrap_err()
            .starts_with("nothing to write"));
        assert!(parse(args(&["--fmi2"]))
            .unwrap_err()
            .starts_with("`--fmi2` needs a file name"));
        assert!(parse(args(&["--fmi4", "x"]))
            .unwrap_err()
            .starts_with("unknown argument `--fmi4`"));
    }
}
