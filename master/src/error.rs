//! The errors of the master: each names the file, the item and the problem.

use std::path::{Path, PathBuf};

use crate::float_text::format_float;
use crate::model_description::ModelDescription;

/// Result with the master's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when importing, instantiating or simulating an FMU.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written, a result file cannot be created as asked, or a
    /// temporary folder could not be made.
    #[error(transparent)]
    Files(#[from] tandem_files::Error),
    /// An FMU could not be imported, instantiated or called.
    #[error(transparent)]
    Fmi(fmi_host::Error),
    /// A value does not fit the variable or option it is given for.
    #[error("{item}: {message}")]
    InvalidValue {
        /// The variable or option.
        item: String,
        /// What is wrong.
        message: String,
    },
    /// A co-design problem cannot be analyzed.
    #[error("{}: {source}", path.display())]
    Codesign {
        /// The problem file.
        path: PathBuf,
        /// What went wrong: the analysis' own error, which can wrap this type (an FMU call
        /// failing inside the analysis), so it is held as any error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An input file is malformed.
    #[error("{}: {message}", path.display())]
    InputFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line number.
        message: String,
    },
    /// A plot could not be drawn or written.
    #[error("{}: cannot draw the plot: {message}", path.display())]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The simulation cannot continue.
    #[error("simulation failed at t = {}: {message}", format_float(*time))]
    Simulation {
        /// Simulation time of the failure.
        time: f64,
        /// What happened.
        message: String,
    },
    /// The user stopped the run (Ctrl-C or SIGTERM).
    #[error(
        "interrupted by {signal} at t = {}; the rows recorded up to then are kept",
        format_float(*time)
    )]
    Interrupted {
        /// The signal's name.
        signal: &'static str,
        /// The last time reached.
        time: f64,
    },
    /// The user stopped a command that runs the system many times (Ctrl-C or SIGTERM): a
    /// gradient, an identification.
    #[error("interrupted by {signal}; {outcome}")]
    Stopped {
        /// The signal's name.
        signal: &'static str,
        /// What was kept, or that nothing was.
        outcome: String,
    },
}

impl Error {
    /// `name` is no variable of the FMU at `fmu` described by `md`; suggests the closest names.
    pub fn unknown_variable(fmu: &Path, md: &ModelDescription, name: &str) -> Self {
        Error::Fmi(fmi_host::Error::unknown_variable(fmu, md, name))
    }

    /// The signal, if the user interrupted the work this error ended.
    pub fn interrupting_signal(&self) -> Option<&'static str> {
        match self {
            Error::Interrupted { signal, .. } | Error::Stopped { signal, .. } => Some(signal),
            _ => None,
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
            Err(other) => Error::Fmi(fmi_host::Error::External(other)),
        }
    }

    /// An I/O error on `path` (an error of the files, [`tandem_files::Error::Io`]).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Files(tandem_files::Error::io(path, source))
    }
}

/// An FMU's error, or the master's own error back from an instance the master implements
/// (which the host passes through as [`fmi_host::Error::External`]).
impl From<fmi_host::Error> for Error {
    fn from(error: fmi_host::Error) -> Self {
        match error {
            fmi_host::Error::External(external) => Error::from_external(external),
            error => Error::Fmi(error),
        }
    }
}

/// The integration's errors are the master's own kinds (a failure at a time, a value out of
/// range), so that callers match them the same wherever they arise.
impl From<tandem_ode::Error> for Error {
    fn from(error: tandem_ode::Error) -> Self {
        match error {
            tandem_ode::Error::Fmi(error) => Error::from(error),
            tandem_ode::Error::Simulation { time, message } => Error::Simulation { time, message },
            tandem_ode::Error::InvalidValue { item, message } => {
                Error::InvalidValue { item, message }
            }
        }
    }
}

/// The master's error inside an instance the master implements (the held-input step of a
/// Model Exchange FMU), carried through the host's interfaces unchanged.
impl From<Error> for fmi_host::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Fmi(error) => error,
            error => fmi_host::Error::External(Box::new(error)),
        }
    }
}

/// The co-simulation's errors are the master's own kinds, and the master's own errors come
/// back from the callbacks it plugged in unchanged.
impl From<tandem_cosim::Error> for Error {
    fn from(error: tandem_cosim::Error) -> Self {
        use tandem_cosim::Error as Cosim;
        match error {
            Cosim::Fmi(error) => Error::from(error),
            Cosim::Files(error) => Error::Files(error),
            Cosim::InputFile { path, message } => Error::InputFile { path, message },
            Cosim::InvalidValue { item, message } => Error::InvalidValue { item, message },
            Cosim::Simulation { time, message } => Error::Simulation { time, message },
            Cosim::Interrupted { signal, time } => Error::Interrupted { signal, time },
            Cosim::Stopped { signal, outcome } => Error::Stopped { signal, outcome },
            Cosim::External(external) => Error::from_external(external),
        }
    }
}

/// The master's error inside a callback of the co-simulation (a recorder), carried through it
/// unchanged.
impl From<Error> for tandem_cosim::Error {
    fn from(error: Error) -> Self {
        use tandem_cosim::Error as Cosim;
        match error {
            Error::Fmi(error) => Cosim::Fmi(error),
            Error::Files(error) => Cosim::Files(error),
            Error::InputFile { path, message } => Cosim::InputFile { path, message },
            Error::InvalidValue { item, message } => Cosim::InvalidValue { item, message },
            Error::Simulation { time, message } => Cosim::Simulation { time, message },
            Error::Interrupted { signal, time } => Cosim::Interrupted { signal, time },
            Error::Stopped { signal, outcome } => Cosim::Stopped { signal, outcome },
            error => Cosim::External(Box::new(error)),
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
        let interrupted = Error::Interrupted {
            signal: "SIGTERM",
            time: 1e300,
        };
        assert_eq!(
            interrupted.to_string(),
            "interrupted by SIGTERM at t = 1e300; the rows recorded up to then are kept"
        );
    }
}
