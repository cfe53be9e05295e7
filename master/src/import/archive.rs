//! Unpacking an .fmu (a zip archive) into a temporary folder that is removed on drop.

use std::fs::File;
use std::path::Path;

use tempfile::TempDir;

use crate::error::{Error, Result};

/// The name of the model description at the root of every FMU.
pub const MODEL_DESCRIPTION: &str = "modelDescription.xml";

/// Extracts `path` into a new temporary folder after checking that it is a zip archive with a
/// modelDescription.xml at its root.
pub fn extract(path: &Path) -> Result<TempDir> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let corrupt = |e: zip::result::ZipError| Error::CorruptArchive {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut archive = zip::ZipArchive::new(file).map_err(corrupt)?;
    if archive.index_for_name(MODEL_DESCRIPTION).is_none() {
        return Err(Error::MissingModelDescription {
            path: path.to_path_buf(),
        });
    }
    let directory = tempfile::Builder::new()
        .prefix("tandem-fmu-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    // zip's extract refuses entries whose names escape the target folder.
    archive.extract(directory.path()).map_err(corrupt)?;
    Ok(directory)
}
