//! The units at the two ends of a connection, each resolved through its variable's declared
//! type: the same unit, or units the FMUs define with the same SI base-unit exponents, factor
//! and offset, pass unchanged; units of one quantity with another factor or offset (`mm` and
//! `m`, `degC` and `K`) are converted, as SSP asks of connections; anything else would pass a
//! value on in the wrong unit and is refused with both ends and both units named.

use super::port::Port;
use super::transform::Transform;
use super::Component;
use fmi_host::model_description::{BaseUnit, BASE_UNIT_NAMES};

/// The conversion from `from`'s unit to `to`'s (the identity when either declares none).
pub(super) fn conversion(
    from: Port,
    to: Port,
    components: &[Component],
) -> Result<Transform, String> {
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
        return Ok(Transform::IDENTITY);
    };
    if source == target {
        return Ok(Transform::IDENTITY);
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
        (Some(a), Some(b)) if a.factor == b.factor && a.offset == b.offset => {
            Ok(Transform::IDENTITY)
        }
        (Some(a), Some(b)) => {
            // value_SI = factor * value + offset at both ends.
            let conversion = Transform {
                factor: a.factor / b.factor,
                offset: (a.offset - b.offset) / b.factor,
            };
            let floats = [from, to]
                .iter()
                .all(|port| port.variable(components).ty.is_float());
            if floats {
                Ok(conversion)
            } else {
                Err(format!(
                    "{ends}; converting them needs {}, which applies to floats only",
                    conversion.describe(&from.display(components).to_string())
                ))
            }
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
