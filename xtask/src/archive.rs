//! Writing an `.fmu`: a zip archive with `modelDescription.xml` at its root, the shared
//! library under `binaries/<platform>/<modelIdentifier>.<ext>` and any extra text files (the
//! adjoint extension's manifest under `extra/`).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// What goes into one FMU.
pub struct FmuContents<'a> {
    /// The modelDescription.xml text.
    pub model_description: &'a str,
    /// The platform folder under `binaries/` (`linux64`, `x86_64-linux`, ...).
    pub platform: &'a str,
    /// The compiled model library.
    pub library: &'a Path,
    /// The FMU's modelIdentifier, which names the library inside the archive.
    pub model_identifier: &'a str,
    /// Further text files, by path inside the archive.
    pub extra: &'a [(&'a str, &'a str)],
}

/// Writes the FMU `path`. Entries carry a fixed timestamp so that identical inputs give
/// byte-identical archives; the archive is written beside `path` and renamed into place, so a
/// reader (or a concurrent packager) never sees a half-written file.
pub fn write_fmu(path: &Path, contents: &FmuContents) -> Result<()> {
    let library = std::fs::read(contents.library).with_context(|| {
        format!(
            "cannot read the model library {}",
            contents.library.display()
        )
    })?;
    let binary_name = format!(
        "binaries/{}/{}.{}",
        contents.platform,
        contents.model_identifier,
        std::env::consts::DLL_EXTENSION
    );
    // Unique per process, so concurrent packagers never write into the same file.
    let partial = path.with_extension(format!("fmu.{}.partial", std::process::id()));
    let file =
        File::create(&partial).with_context(|| format!("cannot create {}", partial.display()))?;
    let mut zip = ZipWriter::new(file);
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default());
    let entries = [
        (
            "modelDescription.xml",
            contents.model_description.as_bytes(),
            0o644,
        ),
        (binary_name.as_str(), library.as_slice(), 0o755),
    ]
    .into_iter()
    .chain(
        contents
            .extra
            .iter()
            .map(|(name, text)| (*name, text.as_bytes(), 0o644)),
    );
    for (name, bytes, mode) in entries {
        zip.start_file(name, options.unix_permissions(mode))
            .and_then(|()| zip.write_all(bytes).map_err(Into::into))
            .with_context(|| format!("cannot write {name} into {}", path.display()))?;
    }
    zip.finish()
        .with_context(|| format!("cannot finish {}", partial.display()))?;
    std::fs::rename(&partial, path)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn archive_holds_the_description_and_the_renamed_library() {
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("libdemo_model.so");
        std::fs::write(&library, b"\x7fELF not really").unwrap();
        let fmu = dir.path().join("demo.fmu");
        let contents = FmuContents {
            model_description: "<fmiModelDescription/>",
            platform: "x86_64-linux",
            library: &library,
            model_identifier: "demo_model",
            extra: &[("extra/org.example/notes.txt", "layered")],
        };
        write_fmu(&fmu, &contents).unwrap();
        let mut archive = zip::ZipArchive::new(File::open(&fmu).unwrap()).unwrap();
        let mut names: Vec<String> = archive
            .file_names()
            .map(|n| n.unwrap().into_owned())
            .collect();
        names.sort();
        let binary = format!(
            "binaries/x86_64-linux/demo_model.{}",
            std::env::consts::DLL_EXTENSION
        );
        assert_eq!(
            names,
            [
                binary.clone(),
                "extra/org.example/notes.txt".to_owned(),
                "modelDescription.xml".to_owned()
            ]
        );
        let mut text = String::new();
        archive
            .by_name("modelDescription.xml")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "<fmiModelDescription/>");
        let mut bytes = Vec::new();
        archive
            .by_name(&binary)
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        assert_eq!(bytes, b"\x7fELF not really");
        assert_eq!(
            archive
                .by_name(&binary)
                .unwrap()
                .unix_mode()
                .map(|m| m & 0o777),
            Some(0o755)
        );
    }
}
