//! The attributes of an FMI 3.0 Clock variable (2.2.8 of the standard): when it ticks
//! (`intervalVariability`, interval and shift) and in which order its model partition runs
//! (`priority`).

use std::fmt;

use super::xml::Element;
use super::ParseError;

/// How a clock's interval is known (`intervalVariability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalVariability {
    /// Periodic, with the interval and shift of the model description.
    Constant,
    /// Periodic, the interval fixed at initialization.
    Fixed,
    /// Periodic, the interval may change during the run.
    Tunable,
    /// Aperiodic, the FMU gives the next interval after each tick.
    Changing,
    /// Aperiodic, the FMU announces the next tick through the clock-update callback.
    Countdown,
    /// Ticked from outside (input clocks) or by the FMU (output clocks).
    Triggered,
}

impl IntervalVariability {
    /// The keyword of modelDescription.xml.
    pub fn as_str(self) -> &'static str {
        match self {
            IntervalVariability::Constant => "constant",
            IntervalVariability::Fixed => "fixed",
            IntervalVariability::Tunable => "tunable",
            IntervalVariability::Changing => "changing",
            IntervalVariability::Countdown => "countdown",
            IntervalVariability::Triggered => "triggered",
        }
    }

    fn from_keyword(text: &str) -> Option<Self> {
        [
            IntervalVariability::Constant,
            IntervalVariability::Fixed,
            IntervalVariability::Tunable,
            IntervalVariability::Changing,
            IntervalVariability::Countdown,
            IntervalVariability::Triggered,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

impl fmt::Display for IntervalVariability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The attributes of a Clock variable.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockAttributes {
    /// How the interval is known.
    pub interval_variability: IntervalVariability,
    /// `intervalDecimal`: the interval in seconds.
    pub interval_decimal: Option<f64>,
    /// `shiftDecimal`: the delay of the first tick after the start (default 0).
    pub shift_decimal: Option<f64>,
    /// `resolution`: the denominator of the counters (default 1).
    pub resolution: Option<u64>,
    /// `intervalCounter`: the interval as a multiple of 1/resolution.
    pub interval_counter: Option<u64>,
    /// `shiftCounter`: the shift as a multiple of 1/resolution.
    pub shift_counter: Option<u64>,
    /// `supportsFraction`: the FMU takes intervals and shifts as fractions.
    pub supports_fraction: bool,
    /// `canBeDeactivated`.
    pub can_be_deactivated: bool,
    /// `priority`: partitions of clocks ticking at the same time run from the lowest value up
    /// (mandatory in Scheduled Execution).
    pub priority: Option<u32>,
}

impl ClockAttributes {
    /// The interval given by the model description: `intervalDecimal`, else
    /// `intervalCounter / resolution`.
    pub fn declared_interval(&self) -> Option<f64> {
        self.interval_decimal.or_else(|| {
            self.interval_counter
                .map(|counter| counter as f64 / self.resolution.unwrap_or(1) as f64)
        })
    }

    /// The shift given by the model description: `shiftDecimal`, else
    /// `shiftCounter / resolution`, else 0.
    pub fn declared_shift(&self) -> f64 {
        self.shift_decimal
            .or_else(|| {
                self.shift_counter
                    .map(|counter| counter as f64 / self.resolution.unwrap_or(1) as f64)
            })
            .unwrap_or(0.0)
    }
}

/// Reads the clock attributes of the Clock element of the variable `name`; those it leaves
/// out come from its declared ClockType, if any. `None` when neither gives the
/// `intervalVariability` (the validator reports a declared type that does not exist, and a
/// run that needs the clock refuses it).
pub fn read(
    element: &Element,
    declared: Option<&Element>,
    name: &str,
) -> Result<Option<ClockAttributes>, ParseError> {
    // The variable's own attribute wins over its type's.
    let source = |key: &str| {
        if element.attr(key).is_some() {
            element
        } else {
            declared
                .filter(|t| t.attr(key).is_some())
                .unwrap_or(element)
        }
    };
    let Some(text) = source("intervalVariability").attr("intervalVariability") else {
        return Ok(None);
    };
    let interval_variability = IntervalVariability::from_keyword(text).ok_or_else(|| {
        element.error(format!(
            "clock {name}: intervalVariability=\"{text}\" is unknown (constant, fixed, tunable, \
             changing, countdown, triggered)"
        ))
    })?;
    Ok(Some(ClockAttributes {
        interval_variability,
        interval_decimal: source("intervalDecimal").parsed("intervalDecimal")?,
        shift_decimal: source("shiftDecimal").parsed("shiftDecimal")?,
        resolution: source("resolution").parsed("resolution")?,
        interval_counter: source("intervalCounter").parsed("intervalCounter")?,
        shift_counter: source("shiftCounter").parsed("shiftCounter")?,
        supports_fraction: source("supportsFraction").flag("supportsFraction", false)?,
        can_be_deactivated: source("canBeDeactivated").flag("canBeDeactivated", false)?,
        priority: source("priority").parsed("priority")?,
    }))
}
