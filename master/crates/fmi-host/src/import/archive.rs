//! Reading an .fmu (a zip archive): single entries straight from the archive, and the entries
//! a run needs unpacked into a temporary folder that is removed on drop.

use std::fs::File;
use std::path::{Component, Path, PathBuf};

use tempfile::TempDir;
use zip::ZipArchive;

use super::entry_limits::{check_header, read_within, MAX_UNPACKED, MAX_XML};
use super::unpack::{ArchiveFile, Unpacker};
use crate::error::{ArchiveKind, Error, Result};
use tandem_files::temporary::{self, Kind};

/// The name of the model description at the root of every FMU.
pub const MODEL_DESCRIPTION: &str = "modelDescription.xml";

/// An open .fmu whose entry names have all been checked to stay inside the archive's folder.
pub struct Archive {
    path: PathBuf,
    zip: ZipArchive<File>,
}

impl Archive {
    /// Opens `path` after checking that it is a zip archive with a modelDescription.xml at its
    /// root and that no entry's name leads out of the folder it is unpacked into.
    pub fn open(path: &Path) -> Result<Self> {
        let zip = ArchiveFile {
            path,
            kind: ArchiveKind::Fmu,
        }
        .open()?;
        if zip.index_for_name(MODEL_DESCRIPTION).is_none() {
            return Err(Error::MissingModelDescription {
                path: path.to_path_buf(),
            });
        }
        Ok(Archive {
            path: path.to_path_buf(),
            zip,
        })
    }

    /// The content of the XML entry `name` (read into memory, so held to
    /// [`MAX_XML`]), `None` if the archive has none of that name.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let archive = ArchiveFile {
            path: &self.path,
            kind: ArchiveKind::Fmu,
        };
        let entry = self
            .zip
            .by_index(index)
            .map_err(|e| archive.corrupt(format!("{name}: {e}")))?;
        let declared = entry.size();
        check_header(declared, entry.compressed_size(), MAX_XML)
            .map_err(|problem| archive.too_large(Path::new(name), problem))?;
        read_within(entry, declared)
            .map(Some)
            .map_err(|e| archive.copy_error(Path::new(name), None, e))
    }

    /// The folders under `binaries/`: the platforms the FMU has binaries for, sorted.
    pub fn platforms(&self) -> Vec<String> {
        let mut platforms: Vec<String> = (0..self.zip.len())
            .filter_map(|index| {
                let entry = self.zip.by_index_data(index).ok()?;
                let name = entry.enclosed_name()?;
                let mut parts = name.components();
                if parts.next()? != Component::Normal("binaries".as_ref()) {
                    return None;
                }
                let platform = parts.next()?;
                // A file directly under binaries/ is no platform.
                (entry.is_dir() || parts.next().is_some())
                    .then(|| platform.as_os_str().to_string_lossy().into_owned())
            })
            .collect();
        platforms.sort();
        platforms.dedup();
        platforms
    }

    /// Unpacks what a run reads into a new temporary folder: modelDescription.xml (some FMUs
    /// read it through their resources), the binaries of `platform` and `resources/`. The
    /// sources, documentation and other extras stay in the archive. Each entry is held to the
    /// limits of [`super::entry_limits`]; the folder is removed when one is exceeded.
    pub fn unpack(&mut self, platform: &str) -> Result<TempDir> {
        let directory = temporary::folder(Kind::Fmu)?;
        let archive = ArchiveFile {
            path: &self.path,
            kind: ArchiveKind::Fmu,
        };
        let mut unpacker = Unpacker::new(archive, directory.path());
        let binaries = Path::new("binaries").join(platform);
        for index in 0..self.zip.len() {
            let mut entry = self
                .zip
                .by_index(index)
                .map_err(|e| archive.corrupt(format!("entry {}: {e}", index + 1)))?;
            let Some(name) = entry.enclosed_name() else {
                continue; // unreachable: `open` checked every name
            };
            let description = name == Path::new(MODEL_DESCRIPTION);
            if !(description || name.starts_with(&binaries) || name.starts_with("resources")) {
                continue;
            }
            let limit = if description { MAX_XML } else { MAX_UNPACKED };
            unpacker.unpack(&mut entry, &name, limit)?;
        }
        Ok(directory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// An archive at `dir/name` holding `files` (a name ending in `/` is a folder) and
    /// `links` (name, target) as symbolic links.
    fn archive(dir: &Path, files: &[&str], links: &[(&str, &str)]) -> PathBuf {
        let path = dir.join("test.fmu");
        let mut writer = zip::ZipWriter::new(File::create(&path).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        for name in files {
            match name.strip_suffix('/') {
                Some(folder) => writer.add_directory(folder, options).unwrap(),
                None => {
                    writer.start_file(*name, options).unwrap();
                    writer.write_all(name.as_bytes()).unwrap();
                }
            }
        }
        for (name, target) in links {
            writer.add_symlink(*name, *target, options).unwrap();
        }
        writer.finish().unwrap();
        path
    }

    /// Every file under `dir`, relative, sorted.
    fn files_under(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(folder) = pending.pop() {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() && !path.is_symlink() {
                    pending.push(path);
                } else {
                    let relative = path.strip_prefix(dir).unwrap();
                    found.push(relative.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn unpacks_the_description_this_platforms_binaries_and_resources_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = archive(
            dir.path(),
            &[
                "modelDescription.xml",
                "binaries/",
                "binaries/here/",
                "binaries/here/m.so",
                "binaries/here/helper.so",
                "binaries/there/m.dll",
                "resources/",
                "resources/table/data.txt",
                "sources/m.c",
                "documentation/index.html",
                "extra/org.tandem.adjoint/manifest.xml",
                "extra/reference.csv",
            ],
            &[],
        );
        let mut archive = Archive::open(&path).unwrap();
        let unpacked = archive.unpack("here").unwrap();
        assert_eq!(
            files_under(unpacked.path()),
            [
                "binaries/here/helper.so",
                "binaries/here/m.so",
                "modelDescription.xml",
                "resources/table/data.txt",
            ]
        );
        let content = std::fs::read(unpacked.path().join("resources/table/data.txt")).unwrap();
        assert_eq!(content, b"resources/table/data.txt");
        assert_eq!(archive.platforms(), ["here", "there"]);
        let manifest = archive
            .read("extra/org.tandem.adjoint/manifest.xml")
            .unwrap();
        assert_eq!(manifest.unwrap(), b"extra/org.tandem.adjoint/manifest.xml");
        assert!(archive.read("no/such/entry").unwrap().is_none());
    }

    #[test]
    fn an_entry_escaping_the_folder_is_refused_even_when_not_unpacked() {
        let dir = tempfile::tempdir().unwrap();
        let path = archive(dir.path(), &["modelDescription.xml", "../out.txt"], &[]);
        let message = Archive::open(&path).err().unwrap().to_string();
        assert!(message.contains("Invalid file path"), "{message}");
        assert!(message.contains("../out.txt"), "{message}");
    }

    #[test]
    fn an_archive_without_a_model_description_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = archive(dir.path(), &["binaries/here/m.so"], &[]);
        let error = Archive::open(&path).err().unwrap();
        assert!(
            matches!(error, Error::MissingModelDescription { .. }),
            "{error}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_within_its_folder_is_kept_and_one_leading_out_refused() {
        let dir = tempfile::tempdir().unwrap();
        let files = ["modelDescription.xml", "binaries/here/m.so.1"];
        let path = archive(dir.path(), &files, &[("binaries/here/m.so", "m.so.1")]);
        let unpacked = Archive::open(&path).unwrap().unpack("here").unwrap();
        let link = unpacked.path().join("binaries/here/m.so");
        assert_eq!(std::fs::read(link).unwrap(), b"binaries/here/m.so.1");

        let path = archive(dir.path(), &files, &[("binaries/here/m.so", "../../../x")]);
        let message = Archive::open(&path).unwrap().unpack("here").err().unwrap();
        assert!(
            message.to_string().contains("outside its folder"),
            "{message}"
        );
    }
}
