//! The units at the two ends of a connection, each resolved through its variable's declared
//! type: the same unit, or units the FMUs define with the same SI base-unit exponents, factor
//! and offset, pass; anything else would pass a value on in the wrong unit and is refused with
//! both ends and both units named. Connections carry values unchanged, so units that differ
//! only by a factor or an offset are refused too, with the conversion they would need.

use super::port::Port;
use super::Component;
use crate::model_description::{BaseUnit, BASE_UNIT_NAMES};

/// Checks that `from` and `to` are in the same unit (when both declare one).
pub(super) fn check(from: Port, to: Port, components: &[Component]) -> Result<(), String> {
    let unit = |port: Port| {
        let md = components[port.component].fmu.model_description();
        let name = md.unit_of(port.variable(components))?;
        let base = md
            .units
            .iter()
            .find(|u| u.name == name)
            .and_then(|u| u.base_unit.clone());
        Some((name.to_string(), base))
    };
    let (Some((source, source_base)), Some((target, target_base))) = (unit(from), unit(to)) else {
        return Ok(());
    };
    if source == target {
        return Ok(());
    }
    let ends = format!(
        "{} is in {source} but {} is in {target}",
        from.display(components),
        to.display(components)
    );
    match (source_base, target_base) {
        (Some(a), Some(b)) if a.exponents != b.exponents => Err(format!(
            "{ends}, which are not the same quantity ({} against {})",
            dimension(&a),
            dimension(&b)
        )),
        (Some(a), Some(b)) if a.factor == b.factor && a.offset == b.offset => Ok(()),
        (Some(a), Some(b)) => {
            // value_target = (factor_a * value + offset_a - offset_b) / factor_b
            let factor = a.factor / b.factor;
            let offset = (a.offset - b.offset) / b.factor;
            Err(format!(
                "{ends}; connections pass values unchanged, and this one would need \
                 {target} = {factor} * {source} + {offset}"
            ))
        }
        _ => Err(format!(
            "{ends}, and the FMUs define no base units that relate them"
        )),
    }
}

/// The SI dimension of a base unit, as `kg.m.s-2` (`1` when dimensionless).
fn dimension(unit: &BaseUnit) -> String {
    let parts: Vec<String> = BASE_UNIT_NAMES
        .iter()
        .zip(unit.exponents)
        .filter(|(_, e)| *e != 0)
        .map(|(name, e)| {
            if e == 1 {
                name.to_string()
            } else {
                format!("{name}{e}")
            }
        })
        .collect();
    if parts.is_empty() {
        "1".into()
    } else {
        parts.join(".")
    }
}
