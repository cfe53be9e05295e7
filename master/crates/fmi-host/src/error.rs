//! The errors of the FMI host: each names the file, the instance, the function or the
//! variable, and the problem.

use std::path::{Path, PathBuf};

use crate::call_status::CallStatus;
use crate::model_description::{InterfaceType, ModelDescription, ParseError};
use crate::suggest::did_you_mean;

/// Result with the host's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when importing an FMU, instantiating it or calling it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file (the FMU, an unpacked entry) could not be read or written, or a temporary
    /// folder could not be made.
    #[error(transparent)]
    Files(#[from] tandem_files::Error),
    /// The .fmu or .ssp is not a readable zip archive, or an entry's name or link leads out
    /// of the folder it is unpacked into.
    #[error("{}: not a valid {kind} (corrupt zip): {message}", path.display())]
    CorruptArchive {
        /// The archive.
        path: PathBuf,
        /// What the archive is meant to be.
        kind: ArchiveKind,
        /// What the zip reader reported, with the entry it was reading.
        message: String,
    },
    /// An entry of an .fmu or .ssp would unpack to more than the limits of
    /// [`crate::import::entry_limits`] allow.
    #[error("{}: entry {entry}: {problem}", path.display())]
    ArchiveEntryTooLarge {
        /// The archive.
        path: PathBuf,
        /// The entry's name.
        entry: String,
        /// Which limit it exceeds.
        problem: String,
    },
    /// The archive has no modelDescription.xml at its root.
    #[error("{}: the archive contains no modelDescription.xml at its root", path.display())]
    MissingModelDescription {
        /// The .fmu file.
        path: PathBuf,
    },
    /// modelDescription.xml is malformed or invalid.
    #[error("{}: modelDescription.xml {source}", path.display())]
    ModelDescription {
        /// The .fmu file.
        path: PathBuf,
        /// Position and problem.
        source: ParseError,
    },
    /// modelDescription.xml parses but breaks the standard (what `tandem validate` reports).
    #[error("{}: modelDescription.xml is invalid, the FMU is not run: {}", path.display(), problem_list(problems))]
    InvalidModelDescription {
        /// The .fmu file.
        path: PathBuf,
        /// Each problem, with its line.
        problems: Vec<String>,
    },
    /// The adjoint extension's manifest is malformed or does not match modelDescription.xml.
    #[error("{}: {} {source}", path.display(), fmi_abi::adjoint::MANIFEST)]
    AdjointManifest {
        /// The .fmu file.
        path: PathBuf,
        /// Position and problem.
        source: ParseError,
    },
    /// The FMI version is neither 2.x nor 3.x.
    #[error("{}: FMI version {version} is not supported (FMI 2.0 and 3.0 are)", path.display())]
    UnsupportedFmiVersion {
        /// The .fmu file.
        path: PathBuf,
        /// The `fmiVersion` attribute.
        version: String,
    },
    /// The FMU does not implement the requested interface.
    #[error("{}: the FMU does not implement {interface} (it implements: {available})", path.display())]
    InterfaceNotProvided {
        /// The .fmu file.
        path: PathBuf,
        /// The requested interface.
        interface: InterfaceType,
        /// The implemented interfaces.
        available: String,
    },
    /// No binary for this platform inside the FMU.
    #[error("{}: no binary for this platform: expected {expected} (the FMU has binaries for: {available})", path.display())]
    NoBinary {
        /// The .fmu file.
        path: PathBuf,
        /// The path inside the archive that was looked for.
        expected: String,
        /// The platform folders present.
        available: String,
    },
    /// The FMU binary could not be read, loaded or lacks a required function.
    #[error(transparent)]
    Binding(#[from] crate::binding::Error),
    /// The FMU did not export an optional function that the requested operation needs.
    #[error("instance {instance}: {function} is not provided by this FMU")]
    Unsupported {
        /// The instance.
        instance: String,
        /// The function.
        function: &'static str,
    },
    /// Instantiation returned a null instance.
    #[error(
        "instance {instance}: {function} failed (returned NULL){}",
        log_suffix(message)
    )]
    Instantiate {
        /// The instance name.
        instance: String,
        /// The instantiate function.
        function: &'static str,
        /// The last error the FMU logged.
        message: Option<String>,
    },
    /// An FMU call returned Error, Fatal or another status the master cannot continue from.
    #[error(
        "instance {instance}: {function} returned {status}{}",
        log_suffix(message)
    )]
    Call {
        /// The instance.
        instance: String,
        /// The function.
        function: &'static str,
        /// The returned status.
        status: CallStatus,
        /// The last error the FMU logged.
        message: Option<String>,
    },
    /// A variable name is not in the model description.
    #[error("{}: unknown variable \"{name}\"{suggestion}", fmu.display())]
    UnknownVariable {
        /// The .fmu file.
        fmu: PathBuf,
        /// The name given.
        name: String,
        /// "; did you mean …?" with the closest names, or empty.
        suggestion: String,
    },
    /// A value does not fit the variable or option it is given for.
    #[error("{item}: {message}")]
    InvalidValue {
        /// The variable or option.
        item: String,
        /// What is wrong.
        message: String,
    },
    /// An instance implemented outside this crate (a wrapper that steps a Model Exchange
    /// FMU under the host's integrator, a test double) failed for its own reasons; the error
    /// is passed through unchanged.
    #[error(transparent)]
    External(Box<dyn std::error::Error + Send + Sync>),
}

/// What an archive is meant to be, for the messages (an error names it; the unpacking of
/// FMUs and SSP packages says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    /// An `.fmu`.
    Fmu,
    /// An `.ssp`.
    SspPackage,
}

impl std::fmt::Display for ArchiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ArchiveKind::Fmu => "FMU archive",
            ArchiveKind::SspPackage => "SSP package",
        })
    }
}

/// The first problems and how many more, for a one-line message.
fn problem_list(problems: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut list = problems[..problems.len().min(SHOWN)].join("; ");
    if problems.len() > SHOWN {
        list += &format!(
            "; and {} more (tandem validate lists them)",
            problems.len() - SHOWN
        );
    }
    list
}

fn log_suffix(message: &Option<String>) -> String {
    message
        .as_ref()
        .map(|m| format!(" (FMU log: {m})"))
        .unwrap_or_default()
}

impl Error {
    /// `name` is no variable of the FMU at `fmu` described by `md`; suggests the closest names.
    pub fn unknown_variable(fmu: &Path, md: &ModelDescription, name: &str) -> Self {
        Error::UnknownVariable {
            fmu: fmu.to_path_buf(),
            name: name.to_string(),
            suggestion: did_you_mean(name, md.variable_names()),
        }
    }

    /// An I/O error on `path` (an error of the files, [`tandem_files::Error::Io`]).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Files(tandem_files::Error::io(path, source))
    }
}
