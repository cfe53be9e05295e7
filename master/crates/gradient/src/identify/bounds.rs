//! Bounded parameters (`component.parameter=lower:upper`, either bound optional) and the
//! smooth change of variables that lets an unconstrained optimizer respect the bounds: each
//! parameter `p` becomes a variable `x` of order one at the start value,
//!
//! - no bounds: `p = p0 x` (`x0 = 1`; `p = x` when `p0 = 0`),
//! - a lower bound: `p = l + (p0 - l) e^x`, an upper bound: `p = u - (u - p0) e^x` (`x0 = 0`),
//! - both: `p = l + (u - l) / (1 + e^-x)` (`x0` where `p = p0`).

use tandem_cosim::{Error, Result};

/// A parameter name with optional bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounded {
    /// `component.parameter`.
    pub name: String,
    /// Lower bound.
    pub lower: Option<f64>,
    /// Upper bound.
    pub upper: Option<f64>,
}

impl Bounded {
    /// Parses `component.parameter`, `component.parameter=lower:upper`, `...=lower:` or
    /// `...=:upper`; `option` names where the text came from, for messages.
    pub fn parse(text: &str, option: &str) -> Result<Self> {
        let invalid = |message: String| Error::InvalidValue {
            item: format!("{option} {text}"),
            message,
        };
        let Some((name, range)) = text.split_once('=') else {
            return Ok(Bounded {
                name: text.trim().to_string(),
                lower: None,
                upper: None,
            });
        };
        let (lower, upper) = range.split_once(':').ok_or_else(|| {
            invalid(
                "expected component.parameter=lower:upper (either bound may be left out)".into(),
            )
        })?;
        let bound = |written: &str, which: &str| -> Result<Option<f64>> {
            let written = written.trim();
            if written.is_empty() {
                return Ok(None);
            }
            match written.parse::<f64>() {
                Ok(value) if value.is_finite() => Ok(Some(value)),
                _ => Err(invalid(format!(
                    "the {which} bound \"{written}\" is not a finite number"
                ))),
            }
        };
        let (lower, upper) = (bound(lower, "lower")?, bound(upper, "upper")?);
        if let (Some(l), Some(u)) = (lower, upper) {
            if l >= u {
                return Err(invalid(format!(
                    "the lower bound {l} is not below the upper bound {u}"
                )));
            }
        }
        Ok(Bounded {
            name: name.trim().to_string(),
            lower,
            upper,
        })
    }
}

/// The change of variables of one parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transform {
    /// `p = scale x`.
    Scaled {
        /// The start value (1 when it is 0).
        scale: f64,
    },
    /// `p = lower + span e^x`.
    Lower {
        /// The bound.
        lower: f64,
        /// `p0 - lower`.
        span: f64,
    },
    /// `p = upper - span e^x`.
    Upper {
        /// The bound.
        upper: f64,
        /// `upper - p0`.
        span: f64,
    },
    /// `p = lower + (upper - lower) / (1 + e^-x)`.
    Both {
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
}

impl Transform {
    /// The transform of a parameter bounded by `bounds` starting at `start`, which must lie
    /// strictly inside the bounds.
    pub fn new(bounds: &Bounded, start: f64) -> Result<Self> {
        let outside = |range: String| Error::InvalidValue {
            item: bounds.name.clone(),
            message: format!(
                "the start value {start} is not inside the bounds {range}; give a start value \
                 inside them in the component's parameters"
            ),
        };
        Ok(match (bounds.lower, bounds.upper) {
            (None, None) => Transform::Scaled {
                scale: if start == 0.0 { 1.0 } else { start },
            },
            (Some(lower), None) if start > lower => Transform::Lower {
                lower,
                span: start - lower,
            },
            (None, Some(upper)) if start < upper => Transform::Upper {
                upper,
                span: upper - start,
            },
            (Some(lower), Some(upper)) if lower < start && start < upper => {
                Transform::Both { lower, upper }
            }
            (lower, upper) => {
                let show = |b: Option<f64>| b.map_or(String::new(), |v| v.to_string());
                return Err(outside(format!("{}:{}", show(lower), show(upper))));
            }
        })
    }

    /// The parameter at variable `x`.
    pub fn parameter(&self, x: f64) -> f64 {
        match *self {
            Transform::Scaled { scale } => scale * x,
            Transform::Lower { lower, span } => lower + span * x.exp(),
            Transform::Upper { upper, span } => upper - span * x.exp(),
            Transform::Both { lower, upper } => lower + (upper - lower) / (1.0 + (-x).exp()),
        }
    }

    /// `dp/dx` at `x`.
    pub fn derivative(&self, x: f64) -> f64 {
        match *self {
            Transform::Scaled { scale } => scale,
            Transform::Lower { span, .. } => span * x.exp(),
            Transform::Upper { span, .. } => -span * x.exp(),
            Transform::Both { lower, upper } => {
                let sigma = 1.0 / (1.0 + (-x).exp());
                (upper - lower) * sigma * (1.0 - sigma)
            }
        }
    }

    /// The variable where the parameter is `p` (inside the bounds).
    pub fn variable(&self, p: f64) -> f64 {
        match *self {
            Transform::Scaled { scale } => p / scale,
            Transform::Lower { lower, span } => ((p - lower) / span).ln(),
            Transform::Upper { upper, span } => ((upper - p) / span).ln(),
            Transform::Both { lower, upper } => {
                let fraction = (p - lower) / (upper - lower);
                (fraction / (1.0 - fraction)).ln()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(text: &str) -> Bounded {
        Bounded::parse(text, "--parameters").expect("valid")
    }

    #[test]
    fn every_bound_form_parses() {
        assert_eq!(bounded("m.k").lower, None);
        let both = bounded("m.k=1:2.5");
        assert_eq!(
            (both.name.as_str(), both.lower, both.upper),
            ("m.k", Some(1.0), Some(2.5))
        );
        assert_eq!(bounded("m.k=1:").upper, None);
        assert_eq!(bounded("m.k=:3").upper, Some(3.0));
        for bad in ["m.k=2:1", "m.k=1", "m.k=a:2", "m.k=1:inf"] {
            assert!(Bounded::parse(bad, "--parameters").is_err(), "{bad}");
        }
    }

    #[test]
    fn transforms_invert_and_their_derivatives_match_differences() {
        let start = 3.0;
        for text in ["m.k", "m.k=1:", "m.k=:7", "m.k=1:7"] {
            let transform = Transform::new(&bounded(text), start).expect("inside");
            let x0 = transform.variable(start);
            assert!((transform.parameter(x0) - start).abs() < 1e-14, "{text}");
            for x in [x0 - 0.7, x0, x0 + 1.3] {
                let h = 1e-6;
                let difference =
                    (transform.parameter(x + h) - transform.parameter(x - h)) / (2.0 * h);
                let exact = transform.derivative(x);
                assert!(
                    (difference - exact).abs() < 1e-8 * exact.abs().max(1.0),
                    "{text} at {x}"
                );
                let p = transform.parameter(x);
                assert!(bounded(text).lower.is_none_or(|l| p > l), "{text}: {p}");
                assert!(bounded(text).upper.is_none_or(|u| p < u), "{text}: {p}");
            }
        }
        assert!(
            Transform::new(&bounded("m.k=3:7"), start).is_err(),
            "on the bound"
        );
    }
}
