//! SI base-unit exponents of unit strings written in the Modelica unit syntax
//! (`"N.m"`, `"m/s2"`, `"kN"`), for the `<BaseUnit>` of each `<UnitDefinitions>` entry.

/// Exponents of kg, m, s, A, K, mol, cd, rad (the FMI `<BaseUnit>` attribute order) and the
/// factor to SI: `value_SI = factor * value`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseUnit {
    /// Exponents of kg, m, s, A, K, mol, cd, rad.
    pub exponents: [i32; 8],
    /// Conversion factor to the SI base units.
    pub factor: f64,
}

/// FMI attribute names of the base-unit exponents, in [`BaseUnit::exponents`] order.
pub const EXPONENT_NAMES: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

/// Unit symbols with their base-unit exponents and factor.
const SYMBOLS: &[(&str, [i32; 8], f64)] = &[
    ("kg", [1, 0, 0, 0, 0, 0, 0, 0], 1.0),
    ("g", [1, 0, 0, 0, 0, 0, 0, 0], 1e-3),
    ("m", [0, 1, 0, 0, 0, 0, 0, 0], 1.0),
    ("s", [0, 0, 1, 0, 0, 0, 0, 0], 1.0),
    ("A", [0, 0, 0, 1, 0, 0, 0, 0], 1.0),
    ("K", [0, 0, 0, 0, 1, 0, 0, 0], 1.0),
    ("mol", [0, 0, 0, 0, 0, 1, 0, 0], 1.0),
    ("cd", [0, 0, 0, 0, 0, 0, 1, 0], 1.0),
    ("rad", [0, 0, 0, 0, 0, 0, 0, 1], 1.0),
    (
        "deg",
        [0, 0, 0, 0, 0, 0, 0, 1],
        std::f64::consts::PI / 180.0,
    ),
    ("N", [1, 1, -2, 0, 0, 0, 0, 0], 1.0),
    ("Pa", [1, -1, -2, 0, 0, 0, 0, 0], 1.0),
    ("bar", [1, -1, -2, 0, 0, 0, 0, 0], 1e5),
    ("J", [1, 2, -2, 0, 0, 0, 0, 0], 1.0),
    ("W", [1, 2, -3, 0, 0, 0, 0, 0], 1.0),
    ("Hz", [0, 0, -1, 0, 0, 0, 0, 0], 1.0),
    ("C", [0, 0, 1, 1, 0, 0, 0, 0], 1.0),
    ("V", [1, 2, -3, -1, 0, 0, 0, 0], 1.0),
    ("Ohm", [1, 2, -3, -2, 0, 0, 0, 0], 1.0),
    ("l", [0, 3, 0, 0, 0, 0, 0, 0], 1e-3),
    ("L", [0, 3, 0, 0, 0, 0, 0, 0], 1e-3),
    ("min", [0, 0, 1, 0, 0, 0, 0, 0], 60.0),
    ("h", [0, 0, 1, 0, 0, 0, 0, 0], 3600.0),
];

/// SI prefixes.
const PREFIXES: &[(&str, f64)] = &[
    ("G", 1e9),
    ("M", 1e6),
    ("k", 1e3),
    ("c", 1e-2),
    ("m", 1e-3),
    ("u", 1e-6),
    ("n", 1e-9),
];

/// The base unit of `unit`, or `None` if it is not in the supported Modelica unit syntax:
/// factors joined by `.`, each an optionally prefixed symbol with an optional integer
/// exponent, divided by further factors with `/` (`"1/s"` for a pure reciprocal).
pub fn base_unit(unit: &str) -> Option<BaseUnit> {
    let mut result = BaseUnit {
        exponents: [0; 8],
        factor: 1.0,
    };
    for (position, group) in unit.split('/').enumerate() {
        let sign = if position == 0 { 1 } else { -1 };
        if position == 0 && group == "1" {
            continue;
        }
        for factor in group.split('.') {
            let (exponents, scale, power) = parse_factor(factor)?;
            let power = sign * power;
            for (r, e) in result.exponents.iter_mut().zip(exponents) {
                *r += e * power;
            }
            result.factor *= scale.powi(power);
        }
    }
    Some(result)
}

/// Splits `"km2"` into the exponents of `km`, its factor, and the power 2.
fn parse_factor(factor: &str) -> Option<([i32; 8], f64, i32)> {
    let digits = factor.trim_end_matches(|c: char| c.is_ascii_digit());
    let operand = digits.trim_end_matches(['+', '-']);
    let power = match &factor[operand.len()..] {
        "" => 1,
        text => text.parse().ok()?,
    };
    let (exponents, scale) = symbol(operand)?;
    Some((exponents, scale, power))
}

/// A unit symbol, or a prefix followed by one; a bare symbol wins (`"m"` is metre, `"min"`
/// minute), as in the Modelica specification.
fn symbol(operand: &str) -> Option<([i32; 8], f64)> {
    let lookup = |s: &str| {
        SYMBOLS
            .iter()
            .find(|(name, ..)| *name == s)
            .map(|&(_, e, f)| (e, f))
    };
    lookup(operand).or_else(|| {
        PREFIXES.iter().find_map(|&(prefix, scale)| {
            let (e, f) = lookup(operand.strip_prefix(prefix)?)?;
            // Prefixes attach to "g", never to "kg" ("kkg" is not a unit).
            (!operand.ends_with("kg")).then_some((e, f * scale))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exps(unit: &str) -> [i32; 8] {
        base_unit(unit)
            .unwrap_or_else(|| panic!("{unit} should parse"))
            .exponents
    }

    #[test]
    fn modelica_unit_strings_map_to_si_exponents() {
        assert_eq!(exps("m"), [0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(exps("m/s2"), [0, 1, -2, 0, 0, 0, 0, 0]);
        assert_eq!(exps("m/s/s"), [0, 1, -2, 0, 0, 0, 0, 0]);
        assert_eq!(exps("N.s/m"), [1, 0, -1, 0, 0, 0, 0, 0]);
        assert_eq!(exps("N/m"), [1, 0, -2, 0, 0, 0, 0, 0]);
        assert_eq!(exps("kg.m2"), [1, 2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(exps("1/s"), [0, 0, -1, 0, 0, 0, 0, 0]);
        assert_eq!(exps("s-1"), [0, 0, -1, 0, 0, 0, 0, 0]);
        assert_eq!(exps("rad/s"), [0, 0, -1, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn prefixes_scale_and_bare_symbols_win() {
        assert_eq!(base_unit("mm").unwrap().factor, 1e-3);
        assert_eq!(base_unit("kN").unwrap().factor, 1e3);
        assert_eq!(base_unit("min").unwrap().factor, 60.0);
        assert!((base_unit("cm2").unwrap().factor - 1e-4).abs() < 1e-18);
        assert_eq!(base_unit("g").unwrap().factor, 1e-3);
    }

    #[test]
    fn unknown_units_are_not_guessed() {
        assert_eq!(base_unit("furlong"), None);
        assert_eq!(base_unit("m/(s.s)"), None);
        assert_eq!(base_unit("kkg"), None);
        assert_eq!(base_unit(""), None);
    }
}
