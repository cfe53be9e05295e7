//! Why an FMU binary could not be loaded or lacks a function.

use std::path::PathBuf;

/// A binary that cannot be used: each names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The binary could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The binary, as messages name it.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The binary could not be loaded (e.g. it needs symbols the process does not provide).
    #[error("{}: cannot load the FMU binary: {message}", path.display())]
    Load {
        /// The binary.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A function the standard requires is not exported by the binary.
    #[error("{}: the binary does not export the required function {symbol}", library.display())]
    MissingSymbol {
        /// The binary.
        library: PathBuf,
        /// The missing function.
        symbol: String,
    },
}
