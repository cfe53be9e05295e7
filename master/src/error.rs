//! The errors of the master: each names the file, the item and the problem. The kinds the
//! libraries below have are theirs ([`tandem_cosim::Error`] carries the files', the FMUs' and
//! the integration's); the master adds only its own.

use std::path::{Path, PathBuf};

use crate::model_description::ModelDescription;

/// Result with the master's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a command: the co-simulation crate's errors, which carry
/// those of the files, the FMUs and the integration, and the two kinds only the application
/// has, plots and co-design problems.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file, an FMU, a system or a value is wrong, or a run failed or was stopped: the kinds
    /// every command shares with the co-simulation crate ([`tandem_cosim::Error`]).
    #[error(transparent)]
    Cosim(tandem_cosim::Error),
    /// A co-design problem cannot be analyzed.
    #[error("{}: {source}", path.display())]
    Codesign {
        /// The problem file.
        path: PathBuf,
        /// What went wrong: the analysis' own error, which can wrap this type (an FMU call
        /// failing inside the analysis), so it is held as any error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A plot could not be drawn or written.
    #[error("{}: cannot draw the plot: {message}", path.display())]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// A value that does not fit the variable or option `item` it is given for.
    pub fn invalid_value(item: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Cosim(tandem_cosim::Error::invalid_value(item, message))
    }

    /// A malformed input file (`message` with the line number).
    pub fn input_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Cosim(tandem_cosim::Error::input_file(path, message))
    }

    /// A run that cannot go on at `time`.
    pub fn simulation(time: f64, message: impl Into<String>) -> Self {
        Error::Cosim(tandem_cosim::Error::simulation(time, message))
    }

    /// A command that runs the system many times, stopped by `signal`, with what it kept.
    pub fn stopped(signal: &'static str, outcome: impl Into<String>) -> Self {
        Error::Cosim(tandem_cosim::Error::Stopped {
            signal,
            outcome: outcome.into(),
        })
    }

    /// `name` is no variable of the FMU at `fmu` described by `md`; suggests the closest names.
    pub fn unknown_variable(fmu: &Path, md: &ModelDescription, name: &str) -> Self {
        Error::from(fmi_host::Error::unknown_variable(fmu, md, name))
    }

    /// The signal, if the user interrupted the work this error ended.
    pub fn interrupting_signal(&self) -> Option<&'static str> {
        match self {
            Error::Cosim(error) => error.interrupting_signal(),
            _ => None,
        }
    }

    /// `self`, or, if it is the user's interruption, that of a whole command (a gradient, an
    /// identification) with `outcome`, what the command kept: the time inside one of its many
    /// runs would tell the user nothing.
    pub fn with_outcome(self, outcome: impl FnOnce() -> String) -> Self {
        match self {
            Error::Cosim(error) => Error::Cosim(error.with_outcome(outcome)),
            error => error,
        }
    }

    /// An error that came back through a crate below as one of the caller's own: the
    /// master's, or a crate's whose kinds the master takes over; anything else stays external.
    fn from_external(external: Box<dyn std::error::Error + Send + Sync>) -> Error {
        let external = match external.downcast::<Error>() {
            Ok(own) => return *own,
            Err(other) => other,
        };
        let external = match external.downcast::<tandem_ode::Error>() {
            Ok(integration) => return Error::from(*integration),
            Err(other) => other,
        };
        match external.downcast::<tandem_cosim::Error>() {
            Ok(cosimulation) => Error::from(*cosimulation),
            Err(other) => Error::Cosim(tandem_cosim::Error::Fmi(fmi_host::Error::External(other))),
        }
    }

    /// An I/O error on `path` (an error of the files, [`tandem_files::Error::Io`]).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::from(tandem_files::Error::io(path, source))
    }
}

/// The co-simulation's errors, with the master's own errors that come back from the callbacks
/// it plugged in (recorders, instances it implements) recovered.
impl From<tandem_cosim::Error> for Error {
    fn from(error: tandem_cosim::Error) -> Self {
        match error {
            tandem_cosim::Error::External(external)
            | tandem_cosim::Error::Fmi(fmi_host::Error::External(external)) => {
                Error::from_external(external)
            }
            error => Error::Cosim(error),
        }
    }
}

/// An FMU's error (or the master's own, back from an instance the master implements).
impl From<fmi_host::Error> for Error {
    fn from(error: fmi_host::Error) -> Self {
        Error::from(tandem_cosim::Error::from(error))
    }
}

/// A file's error.
impl From<tandem_files::Error> for Error {
    fn from(error: tandem_files::Error) -> Self {
        Error::Cosim(tandem_cosim::Error::Files(error))
    }
}

/// The integration's errors are the co-simulation's kinds.
impl From<tandem_ode::Error> for Error {
    fn from(error: tandem_ode::Error) -> Self {
        Error::from(tandem_cosim::Error::from(error))
    }
}

/// The master's error inside an instance the master implements (the held-input step of a
/// Model Exchange FMU), carried through the host's interfaces unchanged.
impl From<Error> for fmi_host::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Cosim(tandem_cosim::Error::Fmi(error)) => error,
            error => fmi_host::Error::External(Box::new(error)),
        }
    }
}

/// The master's error inside a callback of the co-simulation (a recorder), carried through it
/// unchanged.
impl From<Error> for tandem_cosim::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Cosim(error) => error,
            error => tandem_cosim::Error::External(Box::new(error)),
        }
    }
}

/// The master's error inside a callback of the integration (inputs set, rows recorded),
/// carried through it unchanged.
impl From<Error> for tandem_ode::Error {
    fn from(error: Error) -> Self {
        tandem_ode::Error::Fmi(error.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_messages_are_short() {
        let interrupted = Error::from(tandem_cosim::Error::Interrupted {
            signal: "SIGTERM",
            time: 1e300,
        });
        assert_eq!(
            interrupted.to_string(),
            "interrupted by SIGTERM at t = 1e300; the rows recorded up to then are kept"
        );
    }
}
