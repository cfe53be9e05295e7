//! The checks a declaration must pass before its FMU is exported: what the builder cannot
//! enforce as the calls come in (an array's shape against its start values, names unique across
//! the whole model) and what the model descriptions rely on (the elements of an array share
//! every attribute but the start, since FMI 3.0 writes them once).

use std::collections::HashSet;

use crate::declaration::{Declaration, ParameterArray};
use crate::variables::VariableTable;

/// `Ok` if `decl` can be exported, else the first problem, naming the model and the variable.
pub fn validate(decl: &Declaration) -> Result<(), String> {
    let problem = |text: String| format!("model {}: {text}", decl.model_name);
    let mut covered = vec![false; decl.parameters.len()];
    for array in &decl.arrays {
        check_array(decl, array, &mut covered)
            .map_err(|text| problem(format!("array parameter `{}`: {text}", array.name)))?;
    }
    let table = VariableTable::new(decl);
    let names = table
        .iter()
        .map(|v| v.var.name.as_str())
        .chain(decl.arrays.iter().map(|a| a.name.as_str()));
    let mut seen = HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(problem(format!(
                "the name `{name}` is used by two variables (names must be unique)"
            )));
        }
    }
    Ok(())
}

/// The shape, name and elements of one array; `covered` marks the parameters that are elements
/// of an array checked before (an element belongs to one array only).
fn check_array(
    decl: &Declaration,
    array: &ParameterArray,
    covered: &mut [bool],
) -> Result<(), String> {
    if array.name.is_empty() || array.name.contains(['[', ']']) {
        return Err("an array's name must be non-empty and without brackets (its elements are named `name[i,j]`)".into());
    }
    if array.shape.is_empty() || array.shape.contains(&0) {
        return Err(format!(
            "shape {:?}: an array needs at least one dimension, each of size 1 or more",
            array.shape
        ));
    }
    let count = array
        .shape
        .iter()
        .try_fold(1usize, |n, &size| n.checked_mul(size))
        .ok_or_else(|| format!("shape {:?} has too many elements", array.shape))?;
    if count != array.len {
        return Err(format!(
            "shape {:?} has {count} elements but {} start values are given",
            array.shape, array.len
        ));
    }
    let range = array.first..array.first.saturating_add(array.len);
    let elements = decl.parameters.get(range.clone()).ok_or_else(|| {
        format!(
            "its elements p[{}..{}] are not all declared parameters",
            range.start, range.end
        )
    })?;
    for flag in &mut covered[range] {
        if std::mem::replace(flag, true) {
            return Err("its elements overlap another array's".into());
        }
    }
    let first = &elements[0];
    for element in elements {
        let var = &element.var;
        let shared = (
            &var.description,
            &var.unit,
            var.nominal,
            var.min,
            var.max,
            element.tunability,
        ) == (
            &first.var.description,
            &first.var.unit,
            first.var.nominal,
            first.var.min,
            first.var.max,
            first.tunability,
        );
        if !shared {
            return Err(format!(
                "element {} differs from {} in an attribute other than its start (FMI 3.0 gives an array one description, unit, nominal, range and variability)",
                var.name, first.var.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Tunability, Var};

    fn with_array(shape: &[usize], starts: &[f64]) -> Declaration {
        Declaration::new("m", "")
            .state(Var::new("x", 0.0))
            .parameter_array(Var::new("A", 0.0), shape, starts, Tunability::Tunable)
    }

    #[test]
    fn a_shape_that_matches_the_start_values_passes() {
        assert_eq!(
            validate(&with_array(&[2, 2], &[1.0, 2.0, 3.0, 4.0])),
            Ok(())
        );
        assert_eq!(validate(&with_array(&[3], &[1.0, 2.0, 3.0])), Ok(()));
    }

    #[test]
    fn a_shape_that_does_not_match_the_start_values_is_rejected() {
        let error = validate(&with_array(&[2, 2], &[1.0, 2.0, 3.0])).unwrap_err();
        assert_eq!(
            error,
            "model m: array parameter `A`: shape [2, 2] has 4 elements but 3 start values are given"
        );
        let error = validate(&with_array(&[2, 0], &[])).unwrap_err();
        assert!(error.contains("each of size 1 or more"), "{error}");
        let error = validate(&with_array(&[], &[1.0])).unwrap_err();
        assert!(error.contains("at least one dimension"), "{error}");
    }

    #[test]
    fn names_must_be_unique_and_array_names_plain() {
        let twice = with_array(&[1], &[1.0]).parameter(Var::new("A", 1.0), Tunability::Fixed);
        let error = validate(&twice).unwrap_err();
        assert!(
            error.contains("the name `A` is used by two variables"),
            "{error}"
        );
        let element = with_array(&[2], &[1.0, 2.0]).output(Var::new("A[2]", 0.0));
        let error = validate(&element).unwrap_err();
        assert!(error.contains("the name `A[2]` is used by two"), "{error}");
        let bracket = Declaration::new("m", "").parameter_array(
            Var::new("B[1]", 0.0),
            &[1],
            &[1.0],
            Tunability::Fixed,
        );
        let error = validate(&bracket).unwrap_err();
        assert!(error.contains("without brackets"), "{error}");
    }

    #[test]
    fn elements_must_share_their_attributes() {
        let mut decl = with_array(&[2], &[1.0, 2.0]);
        decl.parameters[1].var.unit = Some("m".into());
        let error = validate(&decl).unwrap_err();
        assert!(
            error.contains("element A[2] differs from A[1] in an attribute other than its start"),
            "{error}"
        );
        let mut decl = with_array(&[2], &[1.0, 2.0]);
        decl.arrays[0].first = 1;
        let error = validate(&decl).unwrap_err();
        assert!(error.contains("not all declared parameters"), "{error}");
    }
}
