//! The instantiation token (FMI 3.0) / GUID (FMI 2.0) that ties a binary to its model
//! description: a hash of everything that fixes the variable table.

use crate::declaration::Declaration;
use crate::variables::VariableTable;

/// A deterministic UUID-shaped token computed from the model name and variable table.
pub fn instantiation_token(decl: &Declaration) -> String {
    let table = VariableTable::new(decl);
    let mut canonical = decl.model_name.clone();
    for v in table.iter() {
        canonical.push_str(&format!(
            "|{}:{:?}:{:?}:{:?}",
            v.var.name, v.ty, v.causality, v.variability
        ));
    }
    let (a, b) = (
        fnv1a(canonical.as_bytes(), 0xcbf2_9ce4_8422_2325),
        fnv1a(canonical.as_bytes(), 0x8422_2325_cbf2_9ce4),
    );
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{{{}-{}-{}-{}-{}}}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    bytes.iter().fold(seed, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::Var;

    #[test]
    fn token_is_stable_and_changes_with_the_variables() {
        let a = Declaration::new("m", "").state(Var::new("x", 1.0));
        let b = Declaration::new("m", "").state(Var::new("y", 1.0));
        assert_eq!(instantiation_token(&a), instantiation_token(&a.clone()));
        assert_ne!(instantiation_token(&a), instantiation_token(&b));
        assert_eq!(instantiation_token(&a).len(), 38);
    }
}
