//! The FMUs of a system's components, one unpacked copy and one loaded library per distinct
//! FMU file: a system of a thousand instances of one FMU unpacks and loads it once (its
//! instances are what the FMI standard expects of a library), and only an FMU that declares
//! `canBeInstantiatedOnlyOncePerProcess` is opened again for each component, so that each of
//! its instances gets its own copy of the library.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Result;
use fmi_host::Fmu;

/// The FMUs opened so far, by file.
#[derive(Default)]
pub(super) struct SharedFmus {
    opened: HashMap<PathBuf, Fmu>,
}

impl SharedFmus {
    /// The FMU of the file `path`: the one opened for an earlier component from the same file,
    /// or what `open` opens (kept for the later components unless it needs its own copy).
    pub(super) fn get_or_open(
        &mut self,
        path: &Path,
        open: impl FnOnce() -> Result<Fmu>,
    ) -> Result<Fmu> {
        // The same file written as two paths is still one FMU.
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some(fmu) = self.opened.get(&key) {
            return Ok(fmu.share());
        }
        let fmu = open()?;
        if !fmu.needs_own_copy() {
            self.opened.insert(key, fmu.share());
        }
        Ok(fmu)
    }
}
