//! An FMI 2.0 and FMI 3.0 host: what an importer needs below any simulation.
//!
//! - [`model_description`]: `modelDescription.xml` of either standard, parsed into one
//!   [`ModelDescription`] and validated;
//! - [`binding`]: an FMU binary loaded, with every function of the requested interface
//!   resolved up front into a table typed by the ABI crate ([`fmi_abi`]).
//!
//! The crate depends on no command-line, plotting or result-file library.

pub mod binding;
pub mod model_description;

pub use model_description::ModelDescription;
