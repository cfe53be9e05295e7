//! An FMI 2.0 and FMI 3.0 host: everything an importer needs below a simulation.
//!
//! - [`import`]: an `.fmu` opened ([`Fmu`]): its archive unpacked under limits, its model
//!   description read and checked, its binary for this platform loaded;
//! - [`instance`]: instances of an FMU ([`FmuInstance`], implemented for FMI 2.0 and 3.0,
//!   its operations split into one trait per FMI interface), with call counting, the FMU's
//!   log, and crash reports;
//! - [`model_description`]: `modelDescription.xml` of either standard, parsed into one
//!   [`ModelDescription`] and validated;
//! - [`binding`]: the binary's functions resolved up front into tables typed by the ABI
//!   crate ([`fmi_abi`]);
//! - [`float_text`]: numbers as result files and messages print them.
//!
//! The crate depends on no command-line, plotting or result-file library; its errors
//! ([`Error`]) name the file, the instance, the function or the variable, and the problem.

pub mod binding;
pub mod call_status;
pub mod error;
pub mod float_text;
pub mod import;
pub mod instance;
pub mod model_description;
pub mod suggest;

pub use error::{Error, Result};
pub use import::Fmu;
pub use instance::{Fmu2Instance, Fmu3Instance, FmuInstance};
pub use model_description::ModelDescription;
