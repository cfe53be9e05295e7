//! The C types of FMI 3.0 under the exporter's names, from the one declaration of the ABI
//! ([`fmi_abi::fmi3`]), and what the exporter's plumbing needs to know about them.

use crate::ffi::{FmiVersion, PanicFallback, Standard};
use crate::instance::outcome::Status;

pub use fmi_abi::fmi3::{
    Binary as Fmi3Binary, Boolean as Fmi3Boolean, Byte as Fmi3Byte, Clock as Fmi3Clock,
    DependencyKind as Fmi3DependencyKind, Float32 as Fmi3Float32, Float64 as Fmi3Float64,
    FmiString as Fmi3String, FmuState as Fmi3FmuState, Instance as Fmi3Instance,
    InstanceEnvironment as Fmi3InstanceEnvironment, Int16 as Fmi3Int16, Int32 as Fmi3Int32,
    Int64 as Fmi3Int64, Int8 as Fmi3Int8, IntervalQualifier as Fmi3IntervalQualifier,
    Status as Fmi3Status, UInt16 as Fmi3UInt16, UInt32 as Fmi3UInt32, UInt64 as Fmi3UInt64,
    UInt8 as Fmi3UInt8, ValueReference as Fmi3ValueReference, FALSE as FMI3_FALSE,
    TRUE as FMI3_TRUE,
};

/// fmi3LogMessageCallback as the instantiate functions receive it (NULL allowed: no logging).
pub type Fmi3LogMessageCallback = Option<fmi_abi::fmi3::LogMessageCallback>;

/// fmi3IntermediateUpdateCallback (accepted, never called: no intermediate update).
pub type Fmi3IntermediateUpdateCallback = Option<fmi_abi::fmi3::IntermediateUpdateCallback>;

/// fmi3ClockUpdateCallback (Scheduled Execution, not supported).
pub type Fmi3ClockUpdateCallback = Option<fmi_abi::fmi3::ClockUpdateCallback>;

/// fmi3LockPreemptionCallback / fmi3UnlockPreemptionCallback (Scheduled Execution).
pub type Fmi3PreemptionCallback = Option<fmi_abi::fmi3::PreemptionCallback>;

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
