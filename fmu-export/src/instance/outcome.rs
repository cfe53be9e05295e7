//! The FMI-version-independent result of an operation on an instance: a status and, for
//! anything but success, the reason that is logged for the host.

use std::fmt;

/// The status of an FMI call, common to FMI 2.0 and FMI 3.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// The call succeeded.
    Ok,
    /// The call succeeded, with something the host should know.
    Warning,
    /// The call could not be completed; the instance is unchanged and may be used further.
    Discard,
    /// The call failed; the arguments or the call sequence were wrong.
    Error,
    /// The call failed and no instance of the model can be trusted anymore.
    Fatal,
}

/// Why an operation did not succeed.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Discard or Error.
    pub status: Status,
    /// What went wrong, naming the variable or argument.
    pub message: String,
    /// Whether the instance is left inconsistent, so that it must be reset (or restored
    /// from an FMU state) before it can be used again.
    pub breaks_instance: bool,
}

impl Problem {
    /// A rejected call (bad argument, wrong state); the instance is unchanged.
    pub fn error(message: impl Into<String>) -> Self {
        Problem {
            status: Status::Error,
            message: message.into(),
            breaks_instance: false,
        }
    }

    /// A failure that leaves the instance unusable until it is reset or restored.
    pub fn failure(message: impl Into<String>) -> Self {
        Problem {
            status: Status::Error,
            message: message.into(),
            breaks_instance: true,
        }
    }

    /// A step or evaluation that could not be completed; the instance is unchanged.
    pub fn discard(message: impl Into<String>) -> Self {
        Problem {
            status: Status::Discard,
            message: message.into(),
            breaks_instance: false,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The result of an operation on an instance.
pub type Outcome<T = ()> = Result<T, Problem>;
