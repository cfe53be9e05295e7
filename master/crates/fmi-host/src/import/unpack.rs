//! Unpacking the entries of a zip archive (an FMU or an SSP package) into a folder: every
//! entry's name stays inside the folder, a symbolic link inside its own folder, and what is
//! written within the limits of [`super::entry_limits`]. Every error names the archive and the
//! entry.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Component, Path};

use zip::read::ZipFile;
use zip::ZipArchive;

use super::entry_limits::{copy_within, Budget, CopyError};
use crate::error::{ArchiveKind, Error, Result};

/// An archive file being read: what every error names.
#[derive(Debug, Clone, Copy)]
pub struct ArchiveFile<'a> {
    /// The archive's path.
    pub path: &'a Path,
    /// What it is meant to be.
    pub kind: ArchiveKind,
}

impl ArchiveFile<'_> {
    /// The archive is not a valid one of its kind: `message` says why, naming the entry when
    /// there is one.
    pub fn corrupt(&self, message: impl Into<String>) -> Error {
        Error::CorruptArchive {
            path: self.path.to_path_buf(),
            kind: self.kind,
            message: message.into(),
        }
    }

    /// Opens the archive and checks that no entry's name leads out of the folder it would be
    /// unpacked into.
    pub fn open(&self) -> Result<ZipArchive<File>> {
        let file = tandem_files::open_input(self.path).map_err(|e| Error::io(self.path, e))?;
        let zip = ZipArchive::new(file).map_err(|e| self.corrupt(e.to_string()))?;
        // Every entry is checked, not only those unpacked: an archive with an escaping entry
        // is malformed whatever the run reads of it.
        for index in 0..zip.len() {
            let entry = zip
                .by_index_data(index)
                .map_err(|e| self.corrupt(format!("entry {}: {e}", index + 1)))?;
            if entry.enclosed_name().is_none() {
                let name = entry.name().map(|n| n.into_owned()).unwrap_or_default();
                return Err(self.corrupt(format!(
                    "Invalid file path {name:?}: the entry leads out of the folder it is \
                     unpacked into"
                )));
            }
        }
        Ok(zip)
    }

    /// The error of reading or copying entry `name`: a decompression or CRC error makes the
    /// archive corrupt, too many bytes a bomb; anything else is an error of `written`, the
    /// file being written.
    pub fn copy_error(&self, name: &Path, written: Option<&Path>, error: CopyError) -> Error {
        match error {
            CopyError::Overrun(problem) => self.too_large(name, problem),
            CopyError::Io(e) => match written {
                Some(target) if e.kind() != std::io::ErrorKind::InvalidData => Error::io(target, e),
                _ => self.corrupt(format!("{}: {e}", name.display())),
            },
        }
    }

    /// Entry `name` exceeds a limit of [`super::entry_limits`]: `problem` says which.
    pub fn too_large(&self, name: &Path, problem: String) -> Error {
        Error::ArchiveEntryTooLarge {
            path: self.path.to_path_buf(),
            entry: name.display().to_string(),
            problem,
        }
    }
}

/// Unpacks chosen entries of one archive into one folder, keeping count of what was written
/// for the limits on the whole archive.
pub struct Unpacker<'a> {
    archive: ArchiveFile<'a>,
    folder: &'a Path,
    budget: Budget,
}

impl<'a> Unpacker<'a> {
    /// Unpacks entries of `archive` into `folder`.
    pub fn new(archive: ArchiveFile<'a>, folder: &'a Path) -> Self {
        Unpacker {
            archive,
            folder,
            budget: Budget::default(),
        }
    }

    /// Unpacks `entry` to its `name` (checked to stay inside the folder) under the folder; a
    /// file may hold no more than `limit` bytes. A symbolic link is made only when it leads
    /// to its own folder or below.
    pub fn unpack<R: Read + ?Sized>(
        &mut self,
        entry: &mut ZipFile<'_, R>,
        name: &Path,
        limit: u64,
    ) -> Result<()> {
        let archive = self.archive;
        let target = self.folder.join(name);
        if entry.is_dir() {
            return std::fs::create_dir_all(&target).map_err(|e| Error::io(&target, e));
        }
        self.budget
            .admit(entry.size(), entry.compressed_size(), limit)
            .map_err(|problem| archive.too_large(name, problem))?;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let declared = entry.size();
        if entry.is_symlink() {
            let mut link = Vec::new();
            copy_within(&mut *entry, declared, &mut link)
                .map_err(|e| archive.copy_error(name, None, e))?;
            return self.symlink(name, &String::from_utf8_lossy(&link), &target);
        }
        let file = File::create(&target).map_err(|e| Error::io(&target, e))?;
        // A buffer the size of the entry (within bounds) writes it in one call or few.
        let capacity = declared.clamp(1 << 13, 1 << 20) as usize;
        let mut file = BufWriter::with_capacity(capacity, file);
        copy_within(&mut *entry, declared, &mut file)
            .and_then(|_| file.flush().map_err(CopyError::Io))
            .map_err(|e| archive.copy_error(name, Some(&target), e))?;
        #[cfg(unix)]
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            // Without set-id bits, and readable and writable by the owner, so that the
            // folder can be removed.
            let permissions = std::fs::Permissions::from_mode(mode & 0o777 | 0o600);
            std::fs::set_permissions(&target, permissions).map_err(|e| Error::io(&target, e))?;
        }
        Ok(())
    }

    /// Creates `target`, the entry `name`, as a symbolic link to `link` if that stays in the
    /// entry's folder or below (a versioned library name, say); refuses anything else.
    fn symlink(&self, name: &Path, link: &str, target: &Path) -> Result<()> {
        let descends = !link.is_empty()
            && Path::new(link)
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !descends {
            return Err(self.archive.corrupt(format!(
                "Invalid file path: {} links to {link:?}, outside its folder",
                name.display()
            )));
        }
        #[cfg(unix)]
        return std::os::unix::fs::symlink(link, target).map_err(|e| Error::io(target, e));
        #[cfg(not(unix))]
        return Err(self.archive.corrupt(format!(
            "{}: symbolic links are not supported on this platform",
            name.display()
        )));
    }
}
