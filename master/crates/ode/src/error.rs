//! What can stop the integration of a Model Exchange FMU.

use fmi_host::float_text::format_float;

use crate::solver::SingularStage;

/// Result with the integration's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an FMU could not be integrated: the FMU failed, or the integration cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An FMU call failed.
    #[error(transparent)]
    Fmi(#[from] fmi_host::Error),
    /// The integration cannot continue.
    #[error("simulation failed at t = {}: {message}", format_float(*time))]
    Simulation {
        /// Simulation time of the failure.
        time: f64,
        /// What happened.
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
}

impl From<SingularStage> for Error {
    fn from(singular: SingularStage) -> Self {
        Error::Simulation {
            time: singular.time,
            message: "an implicit stage of the master's integrator has a singular iteration \
                      matrix there, so the step has no derivative"
                .into(),
        }
    }
}

/// An integration error inside the held-input step, which the host's interfaces carry as an
/// error of an instance implemented outside the host.
impl From<Error> for fmi_host::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Fmi(error) => error,
            error => fmi_host::Error::External(Box::new(error)),
        }
    }
}
