//! The `[energy]` table of a TOML system file as written, and the energy settings once
//! checked: whether to monitor and to correct, the correction's gains
//! and cap, and the thresholds of the reliability warnings.

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use num_dual::DualNum;

use crate::error::Error;

/// Makes an error about the system file at a byte span.
pub type ErrorAt<'a> = &'a dyn Fn(Range<usize>, String) -> Error;

/// `[energy]` as written; every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyEntry {
    /// Monitor the residual power of every bond (default true).
    pub monitor: Option<Spanned<bool>>,
    /// Correct the efforts (default false).
    pub correction: Option<Spanned<bool>>,
    /// `"auto"` (default) or a number in [0, 1].
    pub mu: Option<Spanned<toml::Value>>,
    /// Integral gain in [0, 1] (default 0).
    pub nu: Option<Spanned<f64>>,
    /// Cap on |f_corr| as a fraction of |f| (default 1, i.e. 100 %).
    pub cap_fraction: Option<Spanned<f64>>,
    /// Cap on |f_corr| in the effort's unit (default: none).
    pub cap_absolute: Option<Spanned<f64>>,
    /// Below this |v| no correction is applied (default 1e-9).
    pub v_epsilon: Option<Spanned<f64>>,
    /// A residual power above this multiple of its running RMS is a spike (default 15).
    pub spike_factor: Option<Spanned<f64>>,
    /// Length of the windows over which the residual power's mean is checked, in s (default 1).
    pub drift_window: Option<Spanned<f64>>,
    /// A window whose mean residual power exceeds this fraction of its RMS drifts (default 0.5).
    pub drift_ratio: Option<Spanned<f64>>,
}

/// How the energy-error factor mu of the correction is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MuChoice {
    /// From the rules of Rodríguez et al. (2022), per bond: direct feedthrough, step ratio and
    /// extrapolation.
    Auto,
    /// The same given value for every bond.
    Given(f64),
}

/// The cap on the magnitude of a correction force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cap {
    /// At most this fraction of the magnitude of the uncorrected effort.
    pub fraction: f64,
    /// At most this value, if given.
    pub absolute: Option<f64>,
}

impl Cap {
    /// The largest correction magnitude allowed with an uncorrected effort of magnitude `effort`,
    /// in real or dual numbers (the energy formulas' scalars).
    pub fn limit<T: DualNum<Primitive = f64> + Copy>(&self, effort: T) -> T {
        let relative = effort * self.fraction;
        match self.absolute {
            // As `f64::min`: the absolute cap also wins over a NaN (an infinite fraction of 0).
            Some(absolute) if relative.re().is_nan() || relative.re() > absolute => {
                T::from(absolute)
            }
            _ => relative,
        }
    }
}

/// Thresholds of the warnings that flag an unreliable run from its residual power.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarningThresholds {
    /// |dP| above this multiple of its running RMS is a spike.
    pub spike_factor: f64,
    /// Window length (s) of the drift check; also the warm-up before spikes are looked for.
    pub window: f64,
    /// A window whose mean dP exceeds this fraction of its RMS drifts.
    pub drift_ratio: f64,
}

/// The checked `[energy]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergySettings {
    /// Monitor the residual power (and the total energy).
    pub monitor: bool,
    /// Correct the efforts.
    pub correction: bool,
    /// The factor mu.
    pub mu: MuChoice,
    /// The integral gain nu.
    pub nu: f64,
    /// The cap on the correction force.
    pub cap: Cap,
    /// Flows of a smaller magnitude get no correction.
    pub v_epsilon: f64,
    /// The warning thresholds.
    pub warnings: WarningThresholds,
}

impl Default for EnergySettings {
    fn default() -> Self {
        EnergySettings {
            monitor: true,
            correction: false,
            mu: MuChoice::Auto,
            nu: 0.0,
            cap: Cap {
                fraction: 1.0,
                absolute: None,
            },
            v_epsilon: 1e-9,
            warnings: WarningThresholds {
                spike_factor: 15.0,
                window: 1.0,
                drift_ratio: 0.5,
            },
        }
    }
}

impl EnergySettings {
    /// Checks `entry` (keys left out take the defaults); every value error points at its key.
    pub fn check(entry: &EnergyEntry, error: ErrorAt<'_>) -> Result<Self, Error> {
        let mut settings = EnergySettings::default();
        let number = |value: &Option<Spanned<f64>>,
                      key: &str,
                      valid: fn(f64) -> bool,
                      rule: &str,
                      default: f64|
         -> Result<f64, Error> {
            match value {
                None => Ok(default),
                Some(v) if valid(*v.get_ref()) => Ok(*v.get_ref()),
                Some(v) => Err(error(
                    v.span(),
                    format!("energy.{key} = {}: must be {rule}", v.get_ref()),
                )),
            }
        };
        settings.monitor = entry.monitor.as_ref().is_none_or(|m| *m.get_ref());
        settings.correction = entry.correction.as_ref().is_some_and(|c| *c.get_ref());
        if let Some(mu) = &entry.mu {
            settings.mu = match mu.get_ref() {
                toml::Value::String(text) if text == "auto" => MuChoice::Auto,
                toml::Value::Float(value) if (0.0..=1.0).contains(value) => MuChoice::Given(*value),
                toml::Value::Integer(value @ (0 | 1)) => MuChoice::Given(*value as f64),
                other => {
                    return Err(error(
                        mu.span(),
                        format!("energy.mu = {other}: must be \"auto\" or a number from 0 to 1"),
                    ))
                }
            };
        }
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        let positive = |x: f64| x > 0.0;
        let defaults = EnergySettings::default();
        settings.nu = number(&entry.nu, "nu", unit, "from 0 to 1", defaults.nu)?;
        settings.cap.fraction = number(
            &entry.cap_fraction,
            "cap_fraction",
            positive,
            "positive (inf for no relative cap)",
            defaults.cap.fraction,
        )?;
        if let Some(absolute) = &entry.cap_absolute {
            settings.cap.absolute = Some(number(
                &Some(absolute.clone()),
                "cap_absolute",
                positive,
                "positive",
                f64::INFINITY,
            )?);
        }
        settings.v_epsilon = number(
            &entry.v_epsilon,
            "v_epsilon",
            |x| x >= 0.0 && x.is_finite(),
            "zero or positive",
            defaults.v_epsilon,
        )?;
        settings.warnings = WarningThresholds {
            spike_factor: number(
                &entry.spike_factor,
                "spike_factor",
                |x| x > 1.0,
                "greater than 1",
                defaults.warnings.spike_factor,
            )?,
            window: number(
                &entry.drift_window,
                "drift_window",
                |x| x > 0.0 && x.is_finite(),
                "a positive time",
                defaults.warnings.window,
            )?,
            drift_ratio: number(
                &entry.drift_ratio,
                "drift_ratio",
                |x| x > 0.0 && x <= 1.0,
                "greater than 0 and at most 1",
                defaults.warnings.drift_ratio,
            )?,
        };
        if settings.correction && !settings.monitor {
            let span = entry.monitor.as_ref().map_or(0..0, Spanned::span);
            return Err(error(
                span,
                "energy.correction = true needs energy.monitor = true: the correction acts on the \
                 monitored residual power"
                    .into(),
            ));
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<EnergySettings, String> {
        #[derive(Deserialize)]
        struct File {
            energy: EnergyEntry,
        }
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        let error = |span: Range<usize>, message: String| Error::InvalidValue {
            item: format!("{}..{}", span.start, span.end),
            message,
        };
        EnergySettings::check(&file.energy, &error).map_err(|e| e.to_string())
    }

    #[test]
    fn an_empty_table_monitors_without_correcting() {
        let settings = check("[energy]").unwrap();
        assert_eq!(settings, EnergySettings::default());
        assert!(settings.monitor && !settings.correction);
        assert_eq!(settings.mu, MuChoice::Auto);
    }

    #[test]
    fn values_are_read_and_checked() {
        let settings = check(
            "[energy]\ncorrection = true\nmu = 0.0125\nnu = 0.25\ncap_fraction = 0.1\ncap_absolute = 100",
        )
        .unwrap();
        assert!(settings.correction);
        assert_eq!(settings.mu, MuChoice::Given(0.0125));
        assert_eq!(settings.nu, 0.25);
        assert_eq!(settings.cap.limit(500.0), 50.0);
        assert_eq!(settings.cap.limit(5000.0), 100.0);
        assert_eq!(check("[energy]\nmu = 1").unwrap().mu, MuChoice::Given(1.0));
        for (text, needle) in [
            (
                "mu = 1.5",
                "energy.mu = 1.5: must be \"auto\" or a number from 0 to 1",
            ),
            ("mu = \"fast\"", "must be \"auto\""),
            ("nu = -0.1", "energy.nu = -0.1: must be from 0 to 1"),
            (
                "cap_fraction = 0.0",
                "energy.cap_fraction = 0: must be positive",
            ),
            ("spike_factor = 1.0", "greater than 1"),
            (
                "monitor = false\ncorrection = true",
                "needs energy.monitor = true",
            ),
        ] {
            let message = check(&format!("[energy]\n{text}")).unwrap_err();
            assert!(message.contains(needle), "{text}: {message}");
        }
        assert!(check("[energy]\ngain = 1")
            .unwrap_err()
            .contains("unknown field"));
    }
}
