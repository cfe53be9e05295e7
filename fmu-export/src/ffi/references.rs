//! The host's value references as entries of the variable table, the one place where FMI 2.0
//! and FMI 3.0 differ in them: in FMI 3.0 an array parameter is one variable, whose value
//! reference (that of its first element) stands for all its elements in row-major order, and
//! the value references of its other elements are not declared. FMI 2.0 value references, and
//! the FMI 3.0 ones of a model without arrays, are the entries themselves.

use crate::ffi::FmiVersion;
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::{Instance, REFERENCE_LISTS};
use crate::system::System;
use crate::variables::{ValueReference, VariableTable};

/// Runs `body` with the host's value-reference lists `lists` (at most [`REFERENCE_LISTS`]) as
/// entries of the instance's variable table. An FMI 3.0 array's value reference becomes the
/// entries of its elements; one of another element is an Error, as an unknown value reference
/// is.
///
/// Without arrays the host's lists are passed on as they are; with them, the entries go into
/// lists the instance keeps, so that no call allocates once they have grown.
pub fn with_entries<S: System, const N: usize>(
    version: FmiVersion,
    inst: &mut Instance<S>,
    lists: [&[ValueReference]; N],
    body: impl FnOnce(&mut Instance<S>, [&[ValueReference]; N]) -> Outcome,
) -> Outcome {
    const { assert!(N <= REFERENCE_LISTS, "more lists than the instance keeps") };
    if version == FmiVersion::Fmi2 || !inst.table().has_arrays() {
        return body(inst, lists);
    }
    let mut kept = std::mem::take(inst.reference_lists());
    let expanded = kept
        .iter_mut()
        .zip(lists)
        .try_for_each(|(entries, list)| expand(inst.table(), list, entries));
    let outcome = expanded.and_then(|()| body(inst, std::array::from_fn(|i| kept[i].as_slice())));
    *inst.reference_lists() = kept;
    outcome
}

/// An Error unless every value reference of `vrs` names a scalar, for functions whose other
/// arrays run parallel to the value references (the orders of fmi3GetOutputDerivatives); the
/// entries are then the value references themselves.
pub fn check_scalars(
    version: FmiVersion,
    table: &VariableTable,
    vrs: &[ValueReference],
) -> Outcome {
    if version == FmiVersion::Fmi2 {
        return Ok(());
    }
    for &vr in vrs {
        match table.get(vr).and_then(|v| table.array_of(v)) {
            Some((array, 0)) => {
                return Err(Problem::error(format!(
                    "value reference {vr} is the array {}, and this function takes scalar variables only",
                    array.name
                )))
            }
            Some(_) => return Err(unknown(vr)),
            None => {}
        }
    }
    Ok(())
}

/// An Error unless the host passed `n_values` values for its `nvr` value references, whose
/// variables have `named` values (one per scalar, one per element of an array).
pub fn check_value_count(n_values: usize, nvr: usize, named: usize) -> Outcome {
    if n_values == named {
        Ok(())
    } else if named == nvr {
        Err(Problem::error(format!(
            "{n_values} values for {nvr} value references (one value per scalar variable)"
        )))
    } else {
        Err(Problem::error(format!(
            "{n_values} values for {nvr} value references, whose variables have {named} values (an array has one per element)"
        )))
    }
}

/// `entries` (emptied first) filled with the entries the FMI 3.0 value references `vrs` stand
/// for. A value reference the table does not know is passed on for the instance to refuse by
/// its own rules.
fn expand(
    table: &VariableTable,
    vrs: &[ValueReference],
    entries: &mut Vec<ValueReference>,
) -> Outcome {
    entries.clear();
    for &vr in vrs {
        match table.get(vr).and_then(|v| table.array_of(v)) {
            Some((array, 0)) => entries.extend(array.entries()),
            Some(_) => return Err(unknown(vr)),
            None => entries.push(vr),
        }
    }
    Ok(())
}

/// The Error of a value reference FMI 3.0 does not declare (the same as the instance's).
fn unknown(vr: ValueReference) -> Problem {
    Problem::error(format!("unknown value reference {vr}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Declaration, Tunability, Var};

    /// Entries: 0 time, 1 x, 2 der(x), 3 k, 4..=7 A (2 x 2), 8 b, 9 y.
    fn table() -> VariableTable {
        VariableTable::new(
            &Declaration::new("m", "")
                .state(Var::new("x", 0.0))
                .parameter(Var::new("k", 1.0), Tunability::Fixed)
                .parameter_array(
                    Var::new("A", 0.0),
                    &[2, 2],
                    &[1.0, 2.0, 3.0, 4.0],
                    Tunability::Tunable,
                )
                .parameter(Var::new("b", 1.0), Tunability::Fixed)
                .output(Var::new("y", 0.0)),
        )
    }

    #[test]
    fn an_array_stands_for_its_elements_and_other_elements_are_unknown() {
        let table = table();
        let mut entries = vec![99];
        expand(&table, &[8, 4, 1, 4, 42], &mut entries).unwrap();
        assert_eq!(entries, [8, 4, 5, 6, 7, 1, 4, 5, 6, 7, 42]);
        let error = expand(&table, &[1, 6], &mut entries).unwrap_err();
        assert_eq!(error.message, "unknown value reference 6");
    }

    #[test]
    fn arrays_are_refused_where_only_scalars_are_taken() {
        let table = table();
        assert_eq!(check_scalars(FmiVersion::Fmi3, &table, &[9, 1]), Ok(()));
        let error = check_scalars(FmiVersion::Fmi3, &table, &[9, 4]).unwrap_err();
        assert!(error.message.contains("the array A"), "{error}");
        assert!(check_scalars(FmiVersion::Fmi3, &table, &[5]).is_err());
        assert_eq!(check_scalars(FmiVersion::Fmi2, &table, &[5]), Ok(()));
    }

    #[test]
    fn value_counts_are_those_of_the_named_variables() {
        assert_eq!(check_value_count(5, 2, 5), Ok(()));
        let error = check_value_count(2, 1, 1).unwrap_err();
        assert!(error.message.starts_with("2 values for 1 value references"));
        let error = check_value_count(2, 2, 5).unwrap_err();
        assert!(
            error.message.contains("whose variables have 5 values"),
            "{error}"
        );
    }
}
