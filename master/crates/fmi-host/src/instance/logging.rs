//! The FMU's log callback: messages reach the user through a [`Logger`] filtered by a
//! [`LogLevel`], and the last problem the FMU logged is kept to explain a failing call.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::sync::{Arc, Mutex};

use super::CallStatus;

/// How much of the FMU's log to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum LogLevel {
    /// Nothing.
    Off,
    /// Error and Fatal messages.
    Error,
    /// Warnings and Discard messages too.
    #[default]
    Warning,
    /// Every message; the FMU is instantiated with logging on.
    Info,
}

impl LogLevel {
    /// The level that shows messages logged with `status` (FMI 2.0 and 3.0 share the codes).
    fn of_status(status: c_int) -> LogLevel {
        match status {
            0 => LogLevel::Info,
            1 | 2 => LogLevel::Warning,
            _ => LogLevel::Error,
        }
    }
}

impl std::str::FromStr for LogLevel {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "off" | "none" => Ok(LogLevel::Off),
            "error" => Ok(LogLevel::Error),
            "warning" => Ok(LogLevel::Warning),
            "info" | "all" | "debug" => Ok(LogLevel::Info),
            _ => Err(format!(
                "unknown log level \"{text}\" (off, error, warning, info)"
            )),
        }
    }
}

/// One message logged by an FMU.
#[derive(Debug, Clone)]
pub struct LogMessage {
    /// The instance that logged it.
    pub instance: String,
    /// The status it was logged with.
    pub status: CallStatus,
    /// The FMU's log category.
    pub category: String,
    /// The message text (for FMI 2.0, formatted with its printf arguments).
    pub message: String,
}

impl fmt::Display for LogMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {} ({}): {}",
            self.status, self.instance, self.category, self.message
        )
    }
}

/// Where log messages go.
pub type Logger = Arc<dyn Fn(&LogMessage) + Send + Sync>;

/// The default logger: one line on standard error per message.
pub fn stderr_logger() -> Logger {
    Arc::new(|message: &LogMessage| eprintln!("{message}"))
}

/// Logging settings for a new instance.
#[derive(Clone)]
pub struct LogSettings {
    /// Messages below this level are dropped.
    pub level: LogLevel,
    /// Receiver of the messages that pass.
    pub logger: Logger,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings {
            level: LogLevel::default(),
            logger: stderr_logger(),
        }
    }
}

/// The per-instance environment pointer handed to the FMU.
pub struct LogContext {
    instance: String,
    settings: LogSettings,
    last_problem: Mutex<Option<String>>,
}

impl LogContext {
    /// A context for instance `instance`.
    pub fn new(instance: &str, settings: LogSettings) -> Self {
        LogContext {
            instance: instance.to_string(),
            settings,
            last_problem: Mutex::new(None),
        }
    }

    /// Takes the last Warning/Discard/Error/Fatal message logged since the previous call.
    pub fn take_last_problem(&self) -> Option<String> {
        self.last_problem
            .lock()
            .map(|mut last| last.take())
            .unwrap_or(None)
    }

    /// Whether the FMU should be instantiated with logging on.
    pub fn logging_on(&self) -> bool {
        self.settings.level >= LogLevel::Info
    }

    fn receive(&self, status: c_int, category: String, message: String) {
        if status != 0 {
            if let Ok(mut last) = self.last_problem.lock() {
                *last = Some(message.clone());
            }
        }
        if self.settings.level != LogLevel::Off
            && LogLevel::of_status(status) <= self.settings.level
        {
            (self.settings.logger)(&LogMessage {
                instance: self.instance.clone(),
                status: CallStatus::from_code(status),
                category,
                message,
            });
        }
    }
}

/// Copies a C string that may be null.
///
/// # Safety
/// `text` must be null or point to a NUL-terminated string valid for the call.
unsafe fn owned(text: *const c_char) -> String {
    if text.is_null() {
        String::new()
    } else {
        // SAFETY: non-null and NUL-terminated by the caller's contract.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

extern "C" {
    /// The FMI 2.0 logger handed to FMUs, defined in `fmi2_logger.c`: it formats the printf
    /// message with its arguments and passes the text to [`tandem_fmi2_log_message`].
    pub fn tandem_fmi2_logger(
        environment: *mut c_void,
        instance: *const c_char,
        status: fmi_abi::fmi2::Status,
        category: *const c_char,
        format: *const c_char,
        ...
    );
}

/// Receives an FMI 2.0 message formatted by the C logger.
///
/// # Safety
/// Called by `tandem_fmi2_logger` with the `LogContext` pointer the FMU was given at
/// instantiation and strings valid for the call.
#[no_mangle]
pub unsafe extern "C" fn tandem_fmi2_log_message(
    environment: *mut c_void,
    status: c_int,
    category: *const c_char,
    message: *const c_char,
) {
    // SAFETY: the environment is the `LogContext` the instance keeps alive until after
    // fmi2FreeInstance; the strings are valid for the duration of the call per the standard.
    unsafe {
        if let Some(context) = (environment as *const LogContext).as_ref() {
            context.receive(status, owned(category), owned(message));
        }
    }
}

/// The FMI 3.0 log message callback.
///
/// # Safety
/// Called by the FMU with the `LogContext` pointer it was given at instantiation.
pub unsafe extern "C" fn fmi3_logger(
    environment: *mut c_void,
    status: fmi_abi::fmi3::Status,
    category: *const c_char,
    message: *const c_char,
) {
    // SAFETY: as for `tandem_fmi2_log_message`.
    unsafe {
        if let Some(context) = (environment as *const LogContext).as_ref() {
            context.receive(status.0, owned(category), owned(message));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_double, CString};

    /// A context at level `Info` that collects the messages it shows.
    fn collecting() -> (LogContext, Arc<Mutex<Vec<String>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let settings = LogSettings {
            level: LogLevel::Info,
            logger: Arc::new(move |m: &LogMessage| sink.lock().unwrap().push(m.to_string())),
        };
        (LogContext::new("ball", settings), seen)
    }

    #[test]
    fn fmi2_messages_are_formatted_with_their_arguments() {
        let (context, seen) = collecting();
        let environment = &context as *const LogContext as *mut c_void;
        let long = "x".repeat(5000);
        let long = CString::new(long).unwrap();
        // SAFETY: the environment is a live LogContext; every format matches its arguments.
        unsafe {
            tandem_fmi2_logger(
                environment,
                c"ball".as_ptr(),
                fmi_abi::fmi2::Status::Warning,
                c"logEvents".as_ptr(),
                c"%s bounced %d times at h = %g, 100%% elastic".as_ptr(),
                c"the ball".as_ptr(),
                3 as c_int,
                0.25 as c_double,
            );
            tandem_fmi2_logger(
                environment,
                c"ball".as_ptr(),
                fmi_abi::fmi2::Status::Ok,
                c"logAll".as_ptr(),
                c"<%s>".as_ptr(),
                long.as_ptr(),
            );
            tandem_fmi2_logger(
                environment,
                c"ball".as_ptr(),
                fmi_abi::fmi2::Status::Ok,
                std::ptr::null(),
                std::ptr::null(),
            );
        }
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen[0],
            "[Warning] ball (logEvents): the ball bounced 3 times at h = 0.25, 100% elastic"
        );
        assert_eq!(
            seen[1],
            format!("[OK] ball (logAll): <{}>", "x".repeat(5000)),
            "a message longer than the inline buffer is formatted whole"
        );
        assert_eq!(seen[2], "[OK] ball (): ");
        assert_eq!(
            context.take_last_problem().as_deref(),
            Some("the ball bounced 3 times at h = 0.25, 100% elastic")
        );
    }
}
