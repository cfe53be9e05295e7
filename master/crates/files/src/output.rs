//! Result files: never one of the run's inputs or another of its results, and written by one
//! process at a time.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use super::identity::{self, Identity};
use crate::{Error, Result};

/// A result file open for writing, emptied, locked against other processes and known as a
/// result of this run until it is dropped (when the lock goes with the descriptor).
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    identity: Identity,
}

impl Deref for OutputFile {
    type Target = File;

    fn deref(&self) -> &File {
        &self.file
    }
}

impl DerefMut for OutputFile {
    fn deref_mut(&mut self) -> &mut File {
        &mut self.file
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        identity::forget_output(&self.identity);
    }
}

/// Refuses `path` as a result file if it is an input of this run (the same file under any
/// name) or a result this run is writing. For results written by a library that takes a
/// path (plots); [`create_output`] checks the same.
pub fn check_output(path: &Path) -> Result<()> {
    let Some(identity) = Identity::at(path) else {
        return Ok(());
    };
    if let Some(input) = identity::input_named(&identity) {
        return Err(Error::OutputIsInput {
            output: path.to_path_buf(),
            input,
        });
    }
    if let Some(other) = identity::output_named(&identity) {
        return Err(Error::OutputTwice {
            output: path.to_path_buf(),
            other,
        });
    }
    Ok(())
}

/// Creates (or empties) the result file `path` after [`check_output`], under an exclusive
/// advisory lock: a file another process holds is refused before anything of it changes.
/// Devices and pipes (`/dev/null`, a FIFO read by another program) are opened as they are,
/// without lock or truncation.
pub fn create_output(path: &Path) -> Result<OutputFile> {
    check_output(path)?;
    // Not truncated on opening: the file is emptied only once the lock is held.
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let metadata = file.metadata().map_err(|e| Error::io(path, e))?;
    if metadata.is_file() {
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::OutputBusy {
                    path: path.to_path_buf(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
        file.set_len(0).map_err(|e| Error::io(path, e))?;
    }
    let identity = Identity::of(path, &metadata);
    identity::remember_output(path, identity.clone());
    Ok(OutputFile { file, identity })
}

/// Writes `bytes` as the result file `path` (see [`create_output`]).
pub fn write_output(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let mut file = create_output(path)?;
    file.write_all(bytes.as_ref())
        .map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_never_a_result_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("model.fmu");
        std::fs::write(&input, "archive").unwrap();
        super::super::open_input(&input).unwrap();
        let alias = dir.path().join("alias.csv");
        std::fs::hard_link(&input, &alias).unwrap();
        let error = create_output(&alias).unwrap_err();
        assert!(
            matches!(&error, Error::OutputIsInput { input: i, .. } if i == &input),
            "{error}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), b"archive");
    }

    #[test]
    fn a_locked_result_file_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut first = create_output(&path).unwrap();
        std::io::Write::write_all(&mut *first, b"rows").unwrap();
        let error = create_output(&path).unwrap_err();
        assert!(matches!(error, Error::OutputTwice { .. }), "{error}");
        // Another process's lock: a second descriptor of this process conflicts the same way.
        let other = File::open(&path).unwrap();
        drop(first);
        other.lock().unwrap();
        let error = create_output(&path).unwrap_err();
        assert!(matches!(error, Error::OutputBusy { .. }), "{error}");
        assert_eq!(std::fs::read(&path).unwrap(), b"rows");
        drop(other);
        create_output(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }
}
