//! The status an FMU call returned, typed, so that a caller can tell a Discard from an Error.

use std::ffi::c_int;
use std::fmt;

/// What an FMI 2.0 or 3.0 function returned: the standards share the codes 0 to 4, FMI 2.0
/// adds Pending, and a faulty binary may return anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStatus {
    /// `fmi2OK` / `fmi3OK`.
    Ok,
    /// `fmi2Warning` / `fmi3Warning`.
    Warning,
    /// `fmi2Discard` / `fmi3Discard`: the call did not happen, the instance is still usable.
    Discard,
    /// `fmi2Error` / `fmi3Error`.
    Error,
    /// `fmi2Fatal` / `fmi3Fatal`: no instance of the FMU may be called again.
    Fatal,
    /// `fmi2Pending` (an asynchronous step still running).
    Pending,
    /// A code the standards do not define.
    Invalid(c_int),
}

impl CallStatus {
    /// The status of the code `code`.
    pub fn from_code(code: c_int) -> CallStatus {
        match code {
            0 => CallStatus::Ok,
            1 => CallStatus::Warning,
            2 => CallStatus::Discard,
            3 => CallStatus::Error,
            4 => CallStatus::Fatal,
            5 => CallStatus::Pending,
            other => CallStatus::Invalid(other),
        }
    }
}

impl fmt::Display for CallStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallStatus::Ok => "OK",
            CallStatus::Warning => "Warning",
            CallStatus::Discard => "Discard",
            CallStatus::Error => "Error",
            CallStatus::Fatal => "Fatal",
            CallStatus::Pending => "Pending",
            CallStatus::Invalid(_) => "an invalid status",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::CallStatus;

    #[test]
    fn codes_map_to_statuses_that_print_as_before() {
        assert_eq!(CallStatus::from_code(2), CallStatus::Discard);
        assert_ne!(CallStatus::from_code(2), CallStatus::from_code(3));
        assert_eq!(CallStatus::from_code(0).to_string(), "OK");
        assert_eq!(CallStatus::from_code(4).to_string(), "Fatal");
        assert_eq!(CallStatus::from_code(-7), CallStatus::Invalid(-7));
        assert_eq!(CallStatus::from_code(9).to_string(), "an invalid status");
    }
}
