//! A model crate linked into the test binary, known by its Rust declaration: the instantiation
//! token and the value references of the FMU its library exports.

use fmu_export::token::instantiation_token;
use fmu_export::variables::{Role, VariableTable};
use fmu_export::Declaration;

/// The declaration of a linked model.
pub struct Linked {
    declaration: Declaration,
}

impl Linked {
    /// The model declared by `declaration`.
    pub fn new(declaration: Declaration) -> Self {
        Linked { declaration }
    }

    /// The instantiation token (FMI 3.0) or GUID (FMI 2.0).
    pub fn token(&self) -> String {
        instantiation_token(&self.declaration)
    }

    /// The value reference of `name`.
    pub fn vr(&self, name: &str) -> u32 {
        VariableTable::new(&self.declaration)
            .by_name(name)
            .unwrap_or_else(|| panic!("no variable {name}"))
            .vr
    }

    /// The value references of every variable Model Exchange can read: all but the
    /// co-simulation-only sensitivity outputs.
    pub fn model_exchange_variables(&self) -> Vec<u32> {
        VariableTable::new(&self.declaration)
            .iter()
            .filter(|v| !matches!(v.role, Role::Sensitivity { .. }))
            .map(|v| v.vr)
            .collect()
    }
}
