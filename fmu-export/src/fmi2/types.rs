//! The C types of FMI 2.0 under the exporter's names, from the one declaration of the ABI
//! ([`fmi_abi::fmi2`]), and what the exporter's plumbing needs to know about them.

use crate::ffi::{FmiVersion, PanicFallback, Standard};
use crate::instance::outcome::Status;

pub use fmi_abi::fmi2::{
    Boolean as Fmi2Boolean, Byte as Fmi2Byte, CallbackFunctions as Fmi2CallbackFunctions,
    Component as Fmi2Component, ComponentEnvironment as Fmi2ComponentEnvironment,
    EventInfo as Fmi2EventInfo, FmiString as Fmi2String, FmuState as Fmi2FmuState,
    FmuType as Fmi2Type, Integer as Fmi2Integer, Real as Fmi2Real, Status as Fmi2Status,
    StatusKind as Fmi2StatusKind, ValueReference as Fmi2ValueReference,
    CO_SIMULATION as FMI2_CO_SIMULATION, DO_STEP_STATUS as FMI2_DO_STEP_STATUS,
    FALSE as FMI2_FALSE, LAST_SUCCESSFUL_TIME as FMI2_LAST_SUCCESSFUL_TIME,
    MODEL_EXCHANGE as FMI2_MODEL_EXCHANGE, PENDING_STATUS as FMI2_PENDING_STATUS,
    TERMINATED as FMI2_TERMINATED, TRUE as FMI2_TRUE,
};

/// fmi2CallbackLogger as the field of [`Fmi2CallbackFunctions`] holds it (NULL allowed).
pub type Fmi2CallbackLogger = Option<fmi_abi::fmi2::CallbackLogger>;

impl From<Status> for Fmi2Status {
    fn from(status: Status) -> Self {
        match status {
            Status::Ok => Fmi2Status::Ok,
            Status::Warning => Fmi2Status::Warning,
            Status::Discard => Fmi2Status::Discard,
            Status::Error => Fmi2Status::Error,
            Status::Fatal => Fmi2Status::Fatal,
        }
    }
}

/// FMI 2.0, as the standard of the plumbing shared with FMI 3.0 ([`crate::ffi`]).
pub enum Fmi2 {}

impl Standard for Fmi2 {
    const VERSION: FmiVersion = FmiVersion::Fmi2;
    type Status = Fmi2Status;
    type Boolean = Fmi2Boolean;
    const FALSE: Fmi2Boolean = FMI2_FALSE;
    const TRUE: Fmi2Boolean = FMI2_TRUE;
}

impl PanicFallback for Fmi2Status {
    fn on_panic() -> Self {
        Fmi2Status::Error
    }
}
