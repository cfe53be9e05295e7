//! Warnings that flag an unreliable run from a bond's residual power (Rodríguez et al. 2022,
//! Sect. 3.1): a residual power that oscillates within a band is harmless, while sudden spikes
//! or a mean that stays above zero mean the interface is injecting energy, the sign of an
//! unstable or inaccurate co-simulation.
//!
//! - **Spike**: |dP| above `spike_factor` times the RMS of all earlier values (checked after a
//!   warm-up of one window).
//! - **Drift**: over consecutive windows of fixed length, a mean dP above `drift_ratio` times
//!   the window's RMS (a pure oscillation has a mean near 0; a constant injection has mean =
//!   RMS). With the correction on, the coupling still injects energy, which the correction
//!   takes out again: the drift check then looks at the net residual power, what is left after
//!   the correction (see [`Watch::record`]).
//!
//! Flagged times close to each other are merged into one interval per warning.

use std::fmt;

use crate::system::energy_setup::settings::WarningThresholds;

/// What the residual power showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symptom {
    /// |dP| far above its running RMS.
    Spike,
    /// A persistently positive mean.
    Drift,
}

/// One flagged interval of one bond.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The bond, numbered from 1.
    pub bond: usize,
    /// What was seen.
    pub symptom: Symptom,
    /// Start of the interval (s).
    pub from: f64,
    /// End of the interval (s).
    pub to: f64,
    /// The largest |dP| / RMS (spike) or mean / RMS (drift) in the interval.
    pub worst: f64,
    /// The largest |dP| (spike, W) or the net residual energy of the interval (drift, J).
    pub size: f64,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.symptom {
            Symptom::Spike => write!(
                f,
                "bond {}: residual power spikes to {:.1} times its running RMS (|dP| up to \
                 {:.3e} W) between t = {} s and t = {} s: the coupling may be unstable there; \
                 the results may be unreliable",
                self.bond,
                self.worst,
                self.size,
                round(self.from),
                round(self.to)
            ),
            Symptom::Drift => write!(
                f,
                "bond {}: residual power positive on average from t = {} s to t = {} s (mean up \
                 to {:.2} times its RMS, {:.3e} J in all): the coupling creates energy; the \
                 results may be unreliable",
                self.bond,
                round(self.from),
                round(self.to),
                self.worst,
                self.size
            ),
        }
    }
}

/// Times in messages: six significant digits are plenty.
fn round(time: f64) -> f64 {
    if time == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(5 - time.abs().log10().floor() as i32);
    (time * scale).round() / scale
}

/// Sums over a set of samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Moments {
    count: usize,
    sum: f64,
    squares: f64,
    /// The time integral of the samples, each held over its step.
    integral: f64,
}

impl Moments {
    fn add(&mut self, value: f64, step: f64) {
        self.count += 1;
        self.sum += value;
        self.squares += value * value;
        self.integral += value * step;
    }

    fn rms(&self) -> f64 {
        (self.squares / self.count as f64).sqrt()
    }

    fn mean(&self) -> f64 {
        self.sum / self.count as f64
    }
}

/// Watches one bond's residual power.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch {
    bond: usize,
    thresholds: WarningThresholds,
    start: f64,
    all: Moments,
    window: Moments,
    window_start: f64,
    warnings: Vec<Warning>,
}

impl Watch {
    /// Watches bond number `bond` from `start`.
    pub fn new(bond: usize, thresholds: WarningThresholds, start: f64) -> Self {
        Watch {
            bond,
            thresholds,
            start,
            all: Moments::default(),
            window: Moments::default(),
            window_start: start,
            warnings: Vec::new(),
        }
    }

    /// Takes the residual power `power` of the macro step of length `step` ending at `time`,
    /// and the net residual power `net`, which the drift check uses (equal to `power` when not
    /// correcting).
    pub fn record(&mut self, time: f64, step: f64, power: f64, net: f64) {
        let window = self.thresholds.window;
        if time - self.start >= window && self.all.count > 0 {
            let rms = self.all.rms();
            if rms > 0.0 && power.abs() > self.thresholds.spike_factor * rms {
                self.flag(Symptom::Spike, time, time, power.abs() / rms, power.abs());
            }
        }
        self.all.add(power, step);
        self.window.add(net, step);
        if time - self.window_start >= window * (1.0 - 1e-9) {
            self.close_window(time);
        }
    }

    /// The warnings, the last window checked if it covers at least half a window.
    pub fn finish(mut self, time: f64) -> Vec<Warning> {
        if self.window.count > 0 && time - self.window_start >= 0.5 * self.thresholds.window {
            self.close_window(time);
        }
        self.warnings
    }

    fn close_window(&mut self, time: f64) {
        let (mean, rms) = (self.window.mean(), self.window.rms());
        if mean > 0.0 && mean > self.thresholds.drift_ratio * rms {
            let energy = self.window.integral;
            self.flag(Symptom::Drift, self.window_start, time, mean / rms, energy);
        }
        self.window = Moments::default();
        self.window_start = time;
    }

    /// Adds `from..to` to the previous warning of the same kind when it reaches to within a
    /// window of `from`, else starts a new one; a spike's `size` is its |dP| (the largest is
    /// kept), a drift's is its energy (added up).
    fn flag(&mut self, symptom: Symptom, from: f64, to: f64, worst: f64, size: f64) {
        let window = self.thresholds.window;
        let previous = self
            .warnings
            .iter_mut()
            .rev()
            .find(|w| w.symptom == symptom)
            .filter(|w| from - w.to <= window * (1.0 + 1e-9));
        match previous {
            Some(warning) => {
                warning.to = to;
                warning.worst = warning.worst.max(worst);
                warning.size = match symptom {
                    Symptom::Spike => warning.size.max(size),
                    Symptom::Drift => warning.size + size,
                };
            }
            None => self.warnings.push(Warning {
                bond: self.bond,
                symptom,
                from,
                to,
                worst,
                size,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const THRESHOLDS: WarningThresholds = WarningThresholds {
        spike_factor: 10.0,
        window: 1.0,
        drift_ratio: 0.5,
    };
    const H: f64 = 1e-3;

    /// Feeds `power(t)` every millisecond from 0 to `end` and returns the warnings.
    fn watch(end: f64, power: impl Fn(f64) -> f64) -> Vec<Warning> {
        let mut watch = Watch::new(1, THRESHOLDS, 0.0);
        let steps = (end / H).round() as usize;
        for k in 1..=steps {
            let t = k as f64 * H;
            watch.record(t, H, power(t), power(t));
        }
        watch.finish(steps as f64 * H)
    }

    #[test]
    fn an_oscillating_residual_power_raises_nothing() {
        assert_eq!(watch(10.0, |t| 50.0 * (30.0 * t).sin()), []);
    }

    #[test]
    fn a_spike_is_flagged_with_its_interval() {
        let warnings = watch(10.0, |t| {
            // The first burst raises the running RMS; the second, larger one still stands out.
            let gain = if (4.0..4.2).contains(&t) {
                500.0
            } else if (4.6..4.7).contains(&t) {
                5000.0
            } else {
                1.0
            };
            (30.0 * t).sin() * gain
        });
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let spike = &warnings[0];
        assert_eq!(spike.symptom, Symptom::Spike);
        assert!(
            (4.0..4.01).contains(&spike.from) && (4.6..4.7).contains(&spike.to),
            "{spike:?}"
        );
        assert!(spike.worst > 100.0);
        assert!(spike.size > 4900.0 && spike.size <= 5000.0, "{spike:?}");
        let text = spike.to_string();
        assert!(
            text.starts_with("bond 1: residual power spikes to"),
            "{text}"
        );
    }

    #[test]
    fn a_positive_mean_is_flagged_as_drift_over_the_windows_it_lasts() {
        let warnings = watch(10.0, |t| {
            let offset = if (3.0..6.0).contains(&t) { 40.0 } else { 0.0 };
            offset + 50.0 * (30.0 * t).sin()
        });
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let drift = &warnings[0];
        assert_eq!(drift.symptom, Symptom::Drift);
        assert!(
            (drift.from - 3.0).abs() < 2e-3 && (drift.to - 6.0).abs() < 2e-3,
            "{drift:?}"
        );
        // mean 40, RMS sqrt(40^2 + 50^2 / 2) = 53.4 over whole periods; a window holds 4.8.
        assert!(
            (drift.worst - 40.0 / 2850f64.sqrt()).abs() < 0.03,
            "{drift:?}"
        );
        // 40 W over 3 s, plus what the sine leaves over the windows' partial periods.
        assert!((drift.size - 120.0).abs() < 5.0, "{drift:?}");
        assert!(
            drift.to_string().contains("from t = 3 s to t = 6 s"),
            "{drift}"
        );
    }

    #[test]
    fn the_drift_check_uses_the_net_power_and_the_spike_check_the_residual_power() {
        let mut watch = Watch::new(2, THRESHOLDS, 0.0);
        for k in 1..=3000 {
            let t = k as f64 * H;
            let power = 40.0 + 50.0 * (30.0 * t).sin();
            watch.record(t, H, power, power - 40.0);
        }
        assert_eq!(watch.finish(3.0), []);
    }

    #[test]
    fn a_negative_mean_removes_energy_and_is_not_flagged() {
        assert_eq!(watch(5.0, |t| -40.0 + 50.0 * (30.0 * t).sin()), []);
    }
}
