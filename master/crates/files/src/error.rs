//! What can go wrong with a command's files; each error names the file.

use std::path::PathBuf;

/// Result with the files' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A file that cannot be read, written or created as asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A result file is one of the run's inputs under some name.
    #[error(
        "{}: the result file would overwrite the input {}; nothing was written",
        output.display(),
        input.display()
    )]
    OutputIsInput {
        /// The result file as given.
        output: PathBuf,
        /// The input it is, as it was given.
        input: PathBuf,
    },
    /// Two results of one run name the same file.
    #[error(
        "{}: this run already writes its results to this file (as {}); give each result its own file",
        output.display(),
        other.display()
    )]
    OutputTwice {
        /// The result file as given the second time.
        output: PathBuf,
        /// As given the first time.
        other: PathBuf,
    },
    /// Another process holds the lock of a result file.
    #[error(
        "{}: another run is writing this file; nothing was written (wait for it to end, or choose another file)",
        path.display()
    )]
    OutputBusy {
        /// The result file.
        path: PathBuf,
    },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
