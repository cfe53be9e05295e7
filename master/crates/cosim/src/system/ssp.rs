//! SSP packages (`.ssp`): a zip archive with the system structure description
//! `SystemStructure.ssd` at its root and the FMUs (and parameter files) it references, usually
//! under `resources/`. The package is unpacked into a temporary folder, where the references
//! resolve as they would next to an unpacked SSD.

use std::path::Path;

use tempfile::TempDir;

use crate::error::{Error, Result};
use fmi_host::error::ArchiveKind;
use fmi_host::import::entry_limits::{MAX_UNPACKED, MAX_XML};
use fmi_host::import::unpack::{ArchiveFile, Unpacker};
use tandem_files::temporary::{self, Kind};

/// The default system structure description of a package.
pub const DESCRIPTION: &str = "SystemStructure.ssd";

/// The extensions of the package's files that Tandem reads into memory as XML (the system
/// structure description, parameter sets and parameter mappings), which are held to
/// [`MAX_XML`].
const XML_EXTENSIONS: [&str; 4] = ["ssd", "ssv", "ssm", "xml"];

/// An unpacked package; the folder is removed on drop.
pub struct Package {
    directory: TempDir,
}

impl Package {
    /// Unpacks `path` after checking that it is a zip archive with [`DESCRIPTION`] at its root
    /// and that no entry's name leads out of the folder. Each entry is held to the limits of
    /// [`fmi_host::import::entry_limits`]; the folder is removed when one is exceeded.
    pub fn unpack(path: &Path) -> Result<Package> {
        let archive = ArchiveFile {
            path,
            kind: ArchiveKind::SspPackage,
        };
        let mut zip = archive.open()?;
        if zip.index_for_name(DESCRIPTION).is_none() {
            return Err(Error::InputFile {
                path: path.to_path_buf(),
                message: format!("the package contains no {DESCRIPTION} at its root"),
            });
        }
        let directory = temporary::folder(Kind::Ssp)?;
        let mut unpacker = Unpacker::new(archive, directory.path());
        for index in 0..zip.len() {
            let mut entry = zip
                .by_index(index)
                .map_err(|e| archive.corrupt(format!("entry {}: {e}", index + 1)))?;
            let Some(name) = entry.enclosed_name() else {
                continue; // unreachable: `open` checked every name
            };
            let xml = name
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| XML_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
            let limit = if xml { MAX_XML } else { MAX_UNPACKED };
            unpacker.unpack(&mut entry, &name, limit)?;
        }
        Ok(Package { directory })
    }

    /// The folder the package was unpacked into.
    pub fn folder(&self) -> &Path {
        self.directory.path()
    }
}
