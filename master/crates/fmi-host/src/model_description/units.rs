//! Unit definitions and type definitions (declared types).

use super::variable::VariableType;

/// Exponents of the SI base units plus factor and offset: value_SI = factor * value + offset.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseUnit {
    /// Exponents of kg, m, s, A, K, mol, cd, rad in that order.
    pub exponents: [i32; 8],
    /// Scale to SI.
    pub factor: f64,
    /// Offset to SI.
    pub offset: f64,
}

/// The names of the base-unit exponents, in the order of [`BaseUnit::exponents`].
pub const BASE_UNIT_NAMES: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

/// A display unit of a unit.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayUnit {
    /// Name.
    pub name: String,
    /// value_display = factor * value + offset (inverted first when `inverse`).
    pub factor: f64,
    /// Offset.
    pub offset: f64,
    /// FMI 3.0: the display value is the inverse.
    pub inverse: bool,
}

impl DisplayUnit {
    /// A value of the unit in this display unit.
    pub fn from_unit(&self, value: f64) -> f64 {
        let value = if self.inverse { value.recip() } else { value };
        self.factor * value + self.offset
    }
}

/// One unit of the UnitDefinitions.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// Name used by variables.
    pub name: String,
    /// SI relation, if given.
    pub base_unit: Option<BaseUnit>,
    /// Display units.
    pub display_units: Vec<DisplayUnit>,
}

/// An enumeration item.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumerationItem {
    /// Name.
    pub name: String,
    /// Value.
    pub value: i64,
    /// Description.
    pub description: Option<String>,
}

/// A type definition (FMI 2.0 SimpleType, FMI 3.0 `Float64Type` etc.).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDefinition {
    /// Name that variables use as `declaredType`.
    pub name: String,
    /// Base type.
    pub ty: VariableType,
    /// Description.
    pub description: Option<String>,
    /// Physical quantity.
    pub quantity: Option<String>,
    /// Unit.
    pub unit: Option<String>,
    /// Display unit.
    pub display_unit: Option<String>,
    /// Lower bound.
    pub min: Option<f64>,
    /// Upper bound.
    pub max: Option<f64>,
    /// Nominal value.
    pub nominal: Option<f64>,
    /// Enumeration items (enumerations only).
    pub items: Vec<EnumerationItem>,
    /// Line in modelDescription.xml.
    pub line: usize,
}
