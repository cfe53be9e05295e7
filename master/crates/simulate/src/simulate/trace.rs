//! The rows of some variables kept in memory (for plots, sweeps' metrics and the Python
//! package), with the type of each column's values.

use fmi_host::model_description::{FmiVersion, VariableType};

/// Numeric samples of some variables at every recorded row.
///
/// Values are held as `f64`, exact for every type but 64-bit integers beyond 2^53; `types`
/// says what each column's values are, so that a reader can give them back their type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Variable names.
    pub names: Vec<String>,
    /// The type of each column's values, as [`value_type`] gives it.
    pub types: Vec<VariableType>,
    /// Row times.
    pub time: Vec<f64>,
    /// One column per name.
    pub columns: Vec<Vec<f64>>,
}

impl Trace {
    /// An empty trace of the columns `names`, of the types `types`.
    pub fn new(names: Vec<String>, types: Vec<VariableType>) -> Self {
        debug_assert_eq!(names.len(), types.len(), "one type per column");
        Trace {
            columns: vec![Vec::new(); names.len()],
            names,
            types,
            time: Vec::new(),
        }
    }
}

/// The type of the values of a variable of type `ty` in an FMU of version `version`: the
/// variable's own type, except an enumeration's, which is that of the integers it is read
/// as (Int32 in FMI 2.0, Int64 in FMI 3.0).
pub fn value_type(ty: VariableType, version: FmiVersion) -> VariableType {
    match (ty, version) {
        (VariableType::Enumeration, FmiVersion::V2) => VariableType::Int32,
        (VariableType::Enumeration, FmiVersion::V3) => VariableType::Int64,
        (ty, _) => ty,
    }
}
