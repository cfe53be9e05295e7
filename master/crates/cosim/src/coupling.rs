//! How the components of a system are coupled in time: the schedule kind, the stepping order
//! and the input extrapolation. The system reader checks them, the schedules run them and the
//! energy correction derives its factor from them.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;
use std::sync::Arc;

use serde::de::{self, Deserializer};
use serde::Deserialize;

/// The schedule of a system.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleSettings {
    /// Jacobi or Gauss-Seidel.
    pub kind: ScheduleKind,
    /// Component indices in stepping order (file order for Jacobi).
    pub order: Vec<usize>,
    /// Input extrapolation.
    pub extrapolation: Extrapolation,
    /// Threads of a Jacobi macro step.
    pub threads: Threads,
    /// Implicit coupling: every macro step repeated until the interface converges; none for
    /// explicit coupling.
    pub implicit: Option<ImplicitSettings>,
    /// Macro steps chosen by an error estimate; none for the fixed macro step.
    pub adaptive: Option<AdaptiveSettings>,
    /// The macro points (times, from the start to the stop) of an adaptive run, frozen so
    /// that later runs take the same steps (a gradient's); none: the uniform grid of the
    /// macro step, or the adaptive steps.
    pub frozen: Option<Arc<[f64]>>,
}

/// Macro steps chosen by the error of the coupling (`[schedule] adaptive`): every step's
/// estimate compared with `tolerance`, a step above it rolled back and taken again shorter.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AdaptiveSettings {
    /// What the error of a step is.
    #[serde(default)]
    pub method: AdaptiveMethod,
    /// The largest error allowed: of a connected value at the end of a step, relative to its
    /// scale (by the coupling's error); of a bond's residual power, relative to the power it
    /// carries (ECCO).
    pub tolerance: f64,
    /// The shortest macro step: a step that still errs above the tolerance at this length is
    /// an error (default: 1e-9 of the experiment's duration).
    pub min_step: Option<f64>,
    /// The longest macro step (default: the experiment's duration).
    pub max_step: Option<f64>,
}

/// What an adaptive step's error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdaptiveMethod {
    /// The error of the coupled values' holds at the step's end; a step above the tolerance
    /// is taken back and again, shorter.
    #[default]
    Error,
    /// ECCO: the power bonds' residual power; every step is kept (Sadjina et al. 2017).
    Ecco,
}

impl fmt::Display for AdaptiveMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AdaptiveMethod::Error => "error",
            AdaptiveMethod::Ecco => "ecco",
        })
    }
}

impl AdaptiveSettings {
    /// The problem with these settings, if any.
    pub fn problem(&self) -> Option<String> {
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Some(format!(
                "adaptive.tolerance = {}: must lie between 0 and 1",
                self.tolerance
            ));
        }
        for (key, value) in [("min-step", self.min_step), ("max-step", self.max_step)] {
            if let Some(value) = value.filter(|v| !(v.is_finite() && *v > 0.0)) {
                return Some(format!("adaptive.{key} = {value}: must be positive"));
            }
        }
        match (self.min_step, self.max_step) {
            (Some(min), Some(max)) if min > max => Some(format!(
                "adaptive.min-step = {min} is longer than adaptive.max-step = {max}"
            )),
            _ => None,
        }
    }
}

/// Implicit (iterative) coupling (`[schedule] implicit`): each macro step is repeated from the
/// FMUs' saved states, with Newton on the values the participants exchange at its end, until
/// they agree to `tolerance`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ImplicitSettings {
    /// Where Newton's Jacobian comes from.
    #[serde(default)]
    pub jacobian: InterfaceJacobian,
    /// The interface has converged when no value changes by more than this, relative to its
    /// size (absolutely below 1), in an iteration.
    #[serde(default = "ImplicitSettings::default_tolerance")]
    pub tolerance: f64,
    /// Newton iterations per macro step before the step counts as not converging.
    #[serde(default = "ImplicitSettings::default_max_iterations")]
    pub max_iterations: usize,
    /// The curve the inputs follow over a macro step, between the values at its two ends.
    #[serde(default)]
    pub waveform: Waveform,
}

/// The curve an implicit coupling's inputs follow over a macro step `[t, t + H]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Waveform {
    /// The line between the values at `t` and `t + H`: an error of about `(omega H)^2 / 8` of
    /// the amplitude of a motion of angular frequency `omega`.
    #[default]
    Line,
    /// The cubic through the values and their time derivatives at `t` and `t + H` (Hermite):
    /// an error of order `(omega H)^4`. The derivatives are iterated with the values; every
    /// participant whose values feed another's continuous inputs must give them (a Model
    /// Exchange FMU with directional derivatives). Where the start has none (the first step,
    /// after an event), the quadratic through the two values and the end's derivative.
    Hermite,
}

impl ImplicitSettings {
    fn default_tolerance() -> f64 {
        1e-10
    }

    fn default_max_iterations() -> usize {
        20
    }

    /// The problem with these settings, if any.
    pub fn problem(&self) -> Option<String> {
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Some(format!(
                "implicit.tolerance = {}: must lie between 0 and 1",
                self.tolerance
            ));
        }
        (self.max_iterations == 0)
            .then(|| "implicit.max-iterations = 0: must be at least 1".to_string())
    }
}

impl Default for ImplicitSettings {
    fn default() -> Self {
        ImplicitSettings {
            jacobian: InterfaceJacobian::default(),
            tolerance: Self::default_tolerance(),
            max_iterations: Self::default_max_iterations(),
            waveform: Waveform::default(),
        }
    }
}

/// Where the Jacobian of an implicit coupling's interface equations comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InterfaceJacobian {
    /// The FMUs' directional derivatives where they give the Jacobian, else differences.
    #[default]
    Auto,
    /// The FMUs' directional derivatives of their outputs by their inputs at the end of the
    /// macro step: exact where every participant with inputs is a Co-Simulation FMU taking
    /// one step per macro step (its state then does not depend on the iterate); an error
    /// otherwise.
    DirectionalDerivatives,
    /// Forward differences, one repetition of the macro step per interface value.
    Differences,
    /// Differences once, then Broyden's updates from the iterations.
    Broyden,
}

impl FromStr for InterfaceJacobian {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Ok(match text {
            "auto" => InterfaceJacobian::Auto,
            "directional-derivatives" => InterfaceJacobian::DirectionalDerivatives,
            "differences" => InterfaceJacobian::Differences,
            "broyden" => InterfaceJacobian::Broyden,
            other => {
                return Err(format!(
                    "\"{other}\": expected auto, directional-derivatives, differences or broyden"
                ))
            }
        })
    }
}

impl fmt::Display for InterfaceJacobian {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InterfaceJacobian::Auto => "auto",
            InterfaceJacobian::DirectionalDerivatives => "directional-derivatives",
            InterfaceJacobian::Differences => "differences",
            InterfaceJacobian::Broyden => "broyden",
        })
    }
}

/// The order in which components advance over a macro step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScheduleKind {
    /// All at once, in parallel.
    #[default]
    Jacobi,
    /// One after another.
    GaussSeidel,
}

impl fmt::Display for ScheduleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleKind::Jacobi => "Jacobi",
            ScheduleKind::GaussSeidel => "Gauss-Seidel",
        })
    }
}

/// How inputs are extrapolated from the communicated values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extrapolation {
    /// Zero-order hold: the latest value.
    #[default]
    Zoh,
    /// First-order hold: the line through the latest two values.
    Foh,
    /// Second-order hold: the parabola through the latest three values.
    Soh,
}

impl Extrapolation {
    /// The degree of the hold polynomial.
    pub fn degree(self) -> usize {
        match self {
            Extrapolation::Zoh => 0,
            Extrapolation::Foh => 1,
            Extrapolation::Soh => 2,
        }
    }
}

impl fmt::Display for Extrapolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Extrapolation::Zoh => "ZOH",
            Extrapolation::Foh => "FOH",
            Extrapolation::Soh => "SOH",
        })
    }
}

/// How many threads a Jacobi macro step may use (`[schedule] threads`, `--threads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Threads {
    /// A pool sized to the cores, used only while stepping in parallel pays for the hand-off.
    #[default]
    Auto,
    /// Exactly this many: 1 steps every participant on the calling thread in turn, more always
    /// steps in parallel on a pool of that size.
    Count(NonZeroUsize),
}

impl FromStr for Threads {
    type Err = String;

    /// `"auto"` or a whole number from 1.
    fn from_str(text: &str) -> Result<Self, String> {
        if text == "auto" {
            return Ok(Threads::Auto);
        }
        text.parse()
            .map(Threads::Count)
            .map_err(|_| format!("threads = {text}: must be \"auto\" or a whole number from 1"))
    }
}

impl<'de> Deserialize<'de> for Threads {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Threads;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"auto\" or a whole number from 1")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Threads, E> {
                text.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Threads, E> {
                self.visit_str(&n.to_string())
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threads::Auto => f.write_str("auto"),
            Threads::Count(n) => write!(f, "{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Entry {
        threads: Threads,
    }

    fn parse(value: &str) -> Result<Threads, String> {
        toml::from_str::<Entry>(&format!("threads = {value}"))
            .map(|e| e.threads)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn threads_are_auto_or_a_whole_number_from_one() {
        assert_eq!(parse("\"auto\""), Ok(Threads::Auto));
        assert_eq!(
            parse("3"),
            Ok(Threads::Count(NonZeroUsize::new(3).unwrap()))
        );
        assert_eq!("1".parse(), Ok(Threads::Count(NonZeroUsize::MIN)));
        for bad in ["0", "-2", "\"many\"", "2.5"] {
            let error = parse(bad).unwrap_err();
            assert!(
                error.contains("\"auto\" or a whole number from 1"),
                "{bad}: {error}"
            );
        }
    }
}
