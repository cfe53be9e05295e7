//! The FMI 2.0 logger callback behind the instance's [`Logger`] trait.

use std::ffi::CString;

use crate::ffi::c_string;
use crate::fmi2::types::{Fmi2CallbackLogger, Fmi2ComponentEnvironment, Fmi2Status};
use crate::instance::logging::{Category, Logger};
use crate::instance::outcome::Status;

/// Sends messages to the host's fmi2CallbackLogger.
pub struct Fmi2Logger {
    callback: Fmi2CallbackLogger,
    environment: Fmi2ComponentEnvironment,
    instance_name: CString,
}

impl Fmi2Logger {
    /// A logger for the instance `instance_name`.
    pub fn new(
        callback: Fmi2CallbackLogger,
        environment: Fmi2ComponentEnvironment,
        instance_name: &str,
    ) -> Self {
        Fmi2Logger {
            callback,
            environment,
            instance_name: c_string(instance_name),
        }
    }
}

// SAFETY: the FMI 2.0 standard requires the host's callbacks and environment pointer to be
// usable from whatever thread the host calls the instance on; the logger holds nothing else.
unsafe impl Send for Fmi2Logger {}

impl Logger for Fmi2Logger {
    fn log(&self, status: Status, category: Category, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        let category = c_string(category.name());
        // The message is a printf format for the host: a literal '%' must be doubled.
        let message = c_string(&message.replace('%', "%%"));
        // SAFETY: the callback was given by the host for exactly this use; all strings are
        // NUL-terminated and live across the call; no variadic arguments are passed, which
        // the escaped format string does not ask for.
        unsafe {
            callback(
                self.environment,
                self.instance_name.as_ptr(),
                Fmi2Status::from(status),
                category.as_ptr(),
                message.as_ptr(),
            )
        }
    }
}
