//! The linear map a connection applies to the values it carries: the input receives
//! `factor * output + offset`. It comes from an SSP `ssc:LinearTransformation`, a TOML
//! `[[connection]]`'s `factor`/`offset`, or the conversion between the two ends' units.

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
}
