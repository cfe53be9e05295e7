//! SSP packages (`.ssp`): a zip archive with the system structure description
//! `SystemStructure.ssd` at its root and the FMUs (and parameter files) it references, usually
//! under `resources/`. The package is unpacked into a temporary folder, where the references
//! resolve as they would next to an unpacked SSD.

use std::fs::File;
use std::path::Path;

use tempfile::TempDir;

use crate::error::{Error, Result};
use crate::temporary::{self, Kind};

/// The default system structure description of a package.
pub const DESCRIPTION: &str = "SystemStructure.ssd";

/// An unpacked package; the folder is removed on drop.
pub struct Package {
    directory: TempDir,
}

impl Package {
    /// Unpacks `path` after checking that it is a zip archive with [`DESCRIPTION`] at its root.
    pub fn unpack(path: &Path) -> Result<Package> {
        let invalid = |message: String| Error::InputFile {
            path: path.to_path_buf(),
            message,
        };
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let mut archive = zip::ZipArchive::new(file)
            .map_err(|e| invalid(format!("not a valid SSP package (corrupt zip): {e}")))?;
        if archive.index_for_name(DESCRIPTION).is_none() {
            return Err(invalid(format!(
                "the package contains no {DESCRIPTION} at its root"
            )));
        }
        let directory = temporary::folder(Kind::Ssp)?;
        // zip's extract refuses entries whose names escape the target folder.
        archive
            .extract(directory.path())
            .map_err(|e| invalid(format!("cannot unpack the package: {e}")))?;
        Ok(Package { directory })
    }

    /// The folder the package was unpacked into.
    pub fn folder(&self) -> &Path {
        self.directory.path()
    }
}
