//! The FMI 3.0 logMessage callback behind the instance's [`Logger`] trait.

use crate::ffi::c_string;
use crate::fmi3::types::{Fmi3InstanceEnvironment, Fmi3LogMessageCallback, Fmi3Status};
use crate::instance::logging::{Category, Logger};
use crate::instance::outcome::Status;

/// Sends messages to the host's fmi3LogMessageCallback (if it gave one).
pub struct Fmi3Logger {
    callback: Fmi3LogMessageCallback,
    environment: Fmi3InstanceEnvironment,
}

impl Fmi3Logger {
    /// A logger for one instance.
    pub fn new(callback: Fmi3LogMessageCallback, environment: Fmi3InstanceEnvironment) -> Self {
        Fmi3Logger {
            callback,
            environment,
        }
    }
}

// SAFETY: the FMI 3.0 standard requires the host's callbacks and environment pointer to be
// usable from whatever thread the host calls the instance on; the logger holds nothing else.
unsafe impl Send for Fmi3Logger {}

impl Logger for Fmi3Logger {
    fn log(&self, status: Status, category: Category, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        let (category, message) = (c_string(category.name()), c_string(message));
        // SAFETY: the callback was given by the host for exactly this use; both strings are
        // NUL-terminated and live across the call.
        unsafe {
            callback(
                self.environment,
                Fmi3Status::from(status),
                category.as_ptr(),
                message.as_ptr(),
            )
        }
    }
}
