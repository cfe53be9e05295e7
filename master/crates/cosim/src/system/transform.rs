//! What a connection does to the values it carries: a linear map for floats (the input
//! receives `factor * output + offset`, from an SSP `ssc:LinearTransformation`, a TOML
//! `[[connection]]`'s `factor`/`offset`, or the conversion between the two ends' units), and a
//! value map for booleans and integers (SSP's mapping transformations).

use std::sync::Arc;

/// `value -> factor * value + offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Multiplies the output's value.
    pub factor: f64,
    /// Added after the factor.
    pub offset: f64,
}

impl Transform {
    /// Passes values unchanged.
    pub const IDENTITY: Transform = Transform {
        factor: 1.0,
        offset: 0.0,
    };

    /// Whether values pass unchanged.
    pub fn is_identity(self) -> bool {
        self == Self::IDENTITY
    }

    /// The value an input receives from an output of `value`.
    pub fn apply(self, value: f64) -> f64 {
        // Untransformed connections keep their values bit for bit (-0.0 + 0.0 would be +0.0).
        if self.is_identity() {
            value
        } else {
            self.factor * value + self.offset
        }
    }

    /// `factor * output + offset`, for messages.
    pub fn describe(self, output: &str) -> String {
        match (self.factor == 1.0, self.offset == 0.0) {
            (true, true) => output.to_string(),
            (false, true) => format!("{} * {output}", self.factor),
            (true, false) => format!("{output} + {}", self.offset),
            (false, false) => format!("{} * {output} + {}", self.factor, self.offset),
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// An SSP `ssc:BooleanMappingTransformation` or `ssc:IntegerMappingTransformation` on a
/// connection: each listed value becomes its target, other values pass unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueMap {
    /// `(source, target)` as the numbers the master carries (booleans as 0 and 1).
    pairs: Arc<[(f64, f64)]>,
    /// Whether the values are booleans (any non-zero number is true).
    boolean: bool,
}

impl ValueMap {
    /// A map of booleans.
    pub fn booleans(pairs: &[(bool, bool)]) -> ValueMap {
        let number = |b: bool| f64::from(u8::from(b));
        ValueMap {
            pairs: pairs.iter().map(|&(s, t)| (number(s), number(t))).collect(),
            boolean: true,
        }
    }

    /// A map of integers.
    pub fn integers(pairs: &[(i64, i64)]) -> ValueMap {
        ValueMap {
            pairs: pairs.iter().map(|&(s, t)| (s as f64, t as f64)).collect(),
            boolean: false,
        }
    }

    /// Whether it maps booleans (else integers).
    pub fn is_boolean(&self) -> bool {
        self.boolean
    }

    /// The value an input receives from an output of `value`.
    pub fn apply(&self, value: f64) -> f64 {
        let key = if self.boolean {
            f64::from(u8::from(value != 0.0))
        } else {
            value.round()
        };
        self.pairs
            .iter()
            .find(|(source, _)| *source == key)
            .map_or(value, |&(_, target)| target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identity_keeps_the_sign_of_zero_and_others_scale_then_shift() {
        assert!(Transform::IDENTITY.apply(-0.0).is_sign_negative());
        let to_celsius = Transform {
            factor: 1.0,
            offset: -273.15,
        };
        assert_eq!(to_celsius.apply(273.15), 0.0);
        let millimetres = Transform {
            factor: 1000.0,
            offset: 0.0,
        };
        assert_eq!(millimetres.apply(0.25), 250.0);
        assert_eq!(millimetres.describe("a.x"), "1000 * a.x");
        assert_eq!(to_celsius.describe("a.T"), "a.T + -273.15");
    }

    #[test]
    fn value_maps_replace_listed_values_and_pass_others() {
        let negate = ValueMap::booleans(&[(true, false), (false, true)]);
        assert_eq!(negate.apply(1.0), 0.0);
        assert_eq!(negate.apply(0.0), 1.0);
        let gears = ValueMap::integers(&[(1, 3), (2, 1)]);
        assert_eq!([1.0, 2.0, 5.0].map(|x| gears.apply(x)), [3.0, 1.0, 5.0]);
    }
}
