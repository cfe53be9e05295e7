//! The pattern of a Model Exchange FMU's state Jacobian `d der(x) / dx` as its ModelStructure
//! declares it: FMI 2.0 `<Derivatives><Unknown dependencies=...>`, FMI 3.0
//! `<ContinuousStateDerivative dependencies=...>`.

use std::collections::HashMap;

use crate::solver::Sparsity;
use fmi_host::model_description::{element_count, FmiVersion, ModelDescription, Shapes};

/// The declared pattern of `md`'s state Jacobian, states in the order of its derivatives; an
/// array state (FMI 3.0) is one entry per element, and a dependency on an array is one on each
/// of its elements. `None`, and so a dense Jacobian, when the declaration is incomplete: a
/// derivative without `dependencies` (which means "may depend on every known"), or a
/// derivative, state or dependency that does not resolve to a variable.
pub fn declared_sparsity(md: &ModelDescription) -> Option<Sparsity> {
    let index: HashMap<u32, usize> = match md.fmi_version {
        FmiVersion::V2 => (1..).zip(0..md.variables.len()).collect(),
        FmiVersion::V3 => md
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (v.value_reference, i))
            .collect(),
    };
    let shapes = Shapes::new(md);
    // The state-vector entries of each state variable.
    let mut entries: HashMap<usize, std::ops::Range<usize>> = HashMap::new();
    let mut rows_of_derivative = Vec::with_capacity(md.model_structure.derivatives.len());
    let mut n = 0;
    for unknown in &md.model_structure.derivatives {
        let derivative = &md.variables[*index.get(&unknown.reference)?];
        let state = *index.get(&derivative.derivative?)?;
        let size = element_count(&shapes.of(&md.variables[state]).ok()?);
        entries.insert(state, n..n + size);
        rows_of_derivative.push(n..n + size);
        n += size;
    }
    let mut rows = vec![Vec::new(); n];
    for (unknown, derivative_rows) in md
        .model_structure
        .derivatives
        .iter()
        .zip(rows_of_derivative)
    {
        let mut columns = Vec::new();
        for reference in unknown.dependencies.as_ref()? {
            // Dependencies on inputs, parameters and time are not the states'.
            if let Some(states) = entries.get(index.get(reference)?) {
                columns.extend(states.clone());
            }
        }
        for row in derivative_rows {
            rows[row].clone_from(&columns);
        }
    }
    Sparsity::from_rows(&rows)
}
