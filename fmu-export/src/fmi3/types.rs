//! The C types of FMI 3.0 (fmi3PlatformTypes.h, fmi3FunctionTypes.h), written by hand.

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::{FmiVersion, PanicFallback, Standard};
use crate::instance::outcome::Status;

/// fmi3Instance: an instance handle.
pub type Fmi3Instance = *mut c_void;
/// fmi3InstanceEnvironment: the host's pointer passed back to its callbacks.
pub type Fmi3InstanceEnvironment = *mut c_void;
/// fmi3FMUState: an FMU state handle.
pub type Fmi3FmuState = *mut c_void;
/// fmi3ValueReference.
pub type Fmi3ValueReference = u32;
/// fmi3Float32.
pub type Fmi3Float32 = f32;
/// fmi3Float64.
pub type Fmi3Float64 = f64;
/// fmi3Int8.
pub type Fmi3Int8 = i8;
/// fmi3UInt8.
pub type Fmi3UInt8 = u8;
/// fmi3Int16.
pub type Fmi3Int16 = i16;
/// fmi3UInt16.
pub type Fmi3UInt16 = u16;
/// fmi3Int32.
pub type Fmi3Int32 = i32;
/// fmi3UInt32.
pub type Fmi3UInt32 = u32;
/// fmi3Int64.
pub type Fmi3Int64 = i64;
/// fmi3UInt64.
pub type Fmi3UInt64 = u64;
/// fmi3Boolean, C `bool`, received as its byte so that a non-0/1 value from the host is not
/// undefined behaviour (any non-zero byte is true).
pub type Fmi3Boolean = u8;
/// fmi3String.
pub type Fmi3String = *const c_char;
/// fmi3Byte.
pub type Fmi3Byte = u8;
/// fmi3Binary.
pub type Fmi3Binary = *const Fmi3Byte;
/// fmi3Clock, C `bool`, received as its byte.
pub type Fmi3Clock = u8;
/// fmi3DependencyKind, as its integer value.
pub type Fmi3DependencyKind = c_int;
/// fmi3IntervalQualifier, as its integer value.
pub type Fmi3IntervalQualifier = c_int;

/// fmi3True.
pub const FMI3_TRUE: Fmi3Boolean = 1;
/// fmi3False.
pub const FMI3_FALSE: Fmi3Boolean = 0;

/// fmi3Status.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmi3Status {
    /// fmi3OK.
    Ok = 0,
    /// fmi3Warning.
    Warning = 1,
    /// fmi3Discard.
    Discard = 2,
    /// fmi3Error.
    Error = 3,
    /// fmi3Fatal.
    Fatal = 4,
}

impl From<Status> for Fmi3Status {
    fn from(status: Status) -> Self {
        match status {
            Status::Ok => Fmi3Status::Ok,
            Status::Warning => Fmi3Status::Warning,
            Status::Discard => Fmi3Status::Discard,
            Status::Error => Fmi3Status::Error,
            Status::Fatal => Fmi3Status::Fatal,
        }
    }
}

/// FMI 3.0, as the standard of the plumbing shared with FMI 2.0 ([`crate::ffi`]).
pub enum Fmi3 {}

impl Standard for Fmi3 {
    const VERSION: FmiVersion = FmiVersion::Fmi3;
    type Status = Fmi3Status;
    type Boolean = Fmi3Boolean;
    const FALSE: Fmi3Boolean = FMI3_FALSE;
    const TRUE: Fmi3Boolean = FMI3_TRUE;
}

impl PanicFallback for Fmi3Status {
    fn on_panic() -> Self {
        Fmi3Status::Error
    }
}

/// fmi3LogMessageCallback (NULL allowed: no logging).
pub type Fmi3LogMessageCallback =
    Option<unsafe extern "C" fn(Fmi3InstanceEnvironment, Fmi3Status, Fmi3String, Fmi3String)>;

/// fmi3IntermediateUpdateCallback (accepted, never called: no intermediate update).
pub type Fmi3IntermediateUpdateCallback = Option<
    unsafe extern "C" fn(
        Fmi3InstanceEnvironment,
        Fmi3Float64,
        Fmi3Boolean,
        Fmi3Boolean,
        Fmi3Boolean,
        Fmi3Boolean,
        *mut Fmi3Boolean,
        *mut Fmi3Float64,
    ),
>;

/// fmi3ClockUpdateCallback (Scheduled Execution, not supported).
pub type Fmi3ClockUpdateCallback = Option<unsafe extern "C" fn(Fmi3InstanceEnvironment)>;

/// fmi3LockPreemptionCallback / fmi3UnlockPreemptionCallback (Scheduled Execution).
pub type Fmi3PreemptionCallback = Option<unsafe extern "C" fn()>;
