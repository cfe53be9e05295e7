//! What can go wrong reading a system or running a co-simulation step.

use std::path::PathBuf;

use fmi_host::float_text::format_float;

/// Result with the co-simulation's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A system that cannot be read or a co-simulation that cannot go on; each names the file,
/// the item or the time, and the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An FMU could not be imported, instantiated or called.
    #[error(transparent)]
    Fmi(#[from] fmi_host::Error),
    /// A file could not be read or a temporary folder made.
    #[error(transparent)]
    Files(#[from] tandem_files::Error),
    /// A system, parameter or input file is malformed.
    #[error("{}: {message}", path.display())]
    InputFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line number.
        message: String,
    },
    /// A value does not fit the variable or option it is given for.
    #[error("{item}: {message}")]
    InvalidValue {
        /// The variable or option.
        item: String,
        /// What is wrong.
        message: String,
    },
    /// The co-simulation cannot continue.
    #[error("simulation failed at t = {}: {message}", format_float(*time))]
    Simulation {
        /// Simulation time of the failure.
        time: f64,
        /// What happened.
        message: String,
    },
    /// An FMU discarded a step (status Discard): it could not take it, and its instance is
    /// still usable from its state before the step (a master with rollback may take a shorter
    /// one).
    #[error("simulation failed at t = {}: {message}", format_float(*time))]
    Discarded {
        /// Simulation time of the step's start.
        time: f64,
        /// What happened.
        message: String,
    },
    /// A stop was requested ([`crate::stop`]): the run ends after its last recorded time.
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
    /// A stop was requested during a command that runs the system many times (a gradient,
    /// an identification).
    #[error("interrupted by {signal}; {outcome}")]
    Stopped {
        /// The signal's name.
        signal: &'static str,
        /// What was kept, or that nothing was.
        outcome: String,
    },
    /// An error of the caller's own code (a recorder it plugged in), passed through unchanged.
    #[error(transparent)]
    External(Box<dyn std::error::Error + Send + Sync>),
}

impl Error {
    /// A value that does not fit the variable or option `item` it is given for.
    pub fn invalid_value(item: impl Into<String>, message: impl Into<String>) -> Self {
        Error::InvalidValue {
            item: item.into(),
            message: message.into(),
        }
    }

    /// A malformed input file (`message` with the line number).
    pub fn input_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::InputFile {
            path: path.into(),
            message: message.into(),
        }
    }

    /// A run that cannot go on at `time`.
    pub fn simulation(time: f64, message: impl Into<String>) -> Self {
        Error::Simulation {
            time,
            message: message.into(),
        }
    }

    /// The signal, if a stop request ended the work this error ended.
    pub fn interrupting_signal(&self) -> Option<&'static str> {
        match self {
            Error::Interrupted { signal, .. } | Error::Stopped { signal, .. } => Some(signal),
            _ => None,
        }
    }

    /// `self`, or, if a stop request ended it, that of a whole command (a gradient, an
    /// identification) with `outcome`, what the command kept: the time inside one of its many
    /// runs would tell the user nothing.
    pub fn with_outcome(self, outcome: impl FnOnce() -> String) -> Error {
        match self.interrupting_signal() {
            Some(signal) => Error::Stopped {
                signal,
                outcome: outcome(),
            },
            None => self,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Files(tandem_files::Error::io(path, source))
    }
}

/// The integration's errors are the co-simulation's own kinds.
impl From<tandem_ode::Error> for Error {
    fn from(error: tandem_ode::Error) -> Self {
        match error {
            tandem_ode::Error::Fmi(error) => Error::Fmi(error),
            tandem_ode::Error::Simulation { time, message } => Error::Simulation { time, message },
            tandem_ode::Error::InvalidValue { item, message } => {
                Error::InvalidValue { item, message }
            }
        }
    }
}

/// A co-simulation error inside a callback of the integration (inputs set from the
/// couplings), carried through it unchanged.
impl From<Error> for tandem_ode::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Fmi(error) => tandem_ode::Error::Fmi(error),
            Error::Simulation { time, message } => tandem_ode::Error::Simulation { time, message },
            Error::InvalidValue { item, message } => {
                tandem_ode::Error::InvalidValue { item, message }
            }
            error => tandem_ode::Error::Fmi(fmi_host::Error::External(Box::new(error))),
        }
    }
}
