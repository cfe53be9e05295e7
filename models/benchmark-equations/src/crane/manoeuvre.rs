//! The spool displacement `gamma(t)` that drives the crane's valve, for the two manoeuvres of
//! the LIM benchmark:
//!
//! - **M1, steps:** `gamma0` until 2 s, a ramp of `-0.01` over 1 ms, held until 6 s, a ramp
//!   of `+0.03` over 2 ms, then held.
//! - **M2, sinusoid** (Rodríguez et al. 2022, eq. (33)):
//!   `gamma = gamma0 (1 - A(t) sin(2 pi omega t))` with `omega = 2` (so 2 Hz) and the
//!   amplitude `A = 0.1 t` up to 1 s, `0.1` up to 8 s, `0.1 (9 - t)` up to 9 s, then 0.
//!
//! `gamma0` is the spool displacement of the static initial state (see
//! [`equilibrium`](super::equilibrium)). The times where `gamma` has a kink are announced as
//! time events, so error-controlled integrators restart there instead of stepping over them.

use fmu_export::{Declaration, DiscreteRole, DiscreteType, Scalar, Tunability, Var};

/// Start and length (s) of the first ramp of the step manoeuvre, and its change of `gamma`.
const FIRST_RAMP: (f64, f64, f64) = (2.0, 1e-3, -0.01);
/// Start and length (s) of the second ramp of the step manoeuvre, and its change of `gamma`.
const SECOND_RAMP: (f64, f64, f64) = (6.0, 2e-3, 0.03);
/// Frequency `omega` of the sinusoidal manoeuvre, used as `sin(2 pi omega t)` (Hz).
const FREQUENCY: f64 = 2.0;
/// Plateau of the sinusoid's relative amplitude.
const AMPLITUDE: f64 = 0.1;
/// The sinusoid's amplitude rises until 1 s, holds until 8 s and has vanished at 9 s.
const AMPLITUDE_TIMES: [f64; 3] = [1.0, 8.0, 9.0];

/// A spool manoeuvre.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manoeuvre {
    /// M1: two ramps ("steps").
    Steps,
    /// M2: the sinusoid of Rodríguez et al. (2022).
    Sinusoid,
}

/// Adds the real parameter `gamma0` (default `gamma0`, the equilibrium spool displacement)
/// and the integer parameter `manoeuvre` (1: steps, 2: sinusoid, the default).
pub fn declare(declaration: Declaration, gamma0: f64) -> Declaration {
    declaration
        .parameter(
            Var::new("gamma0", gamma0)
                .range(0.0, 1.0)
                .description("spool displacement of the static initial state"),
            Tunability::Fixed,
        )
        .discrete(
            Var::new("manoeuvre", 2.0)
                .range(1.0, 2.0)
                .description("spool manoeuvre: 1 = steps (M1), 2 = sinusoid (M2)"),
            DiscreteType::Integer,
            DiscreteRole::Parameter,
        )
}

impl Manoeuvre {
    /// The manoeuvre selected by the integer parameter `manoeuvre` (1 or 2).
    pub fn from_setting(value: f64) -> Self {
        if value == 1.0 {
            Manoeuvre::Steps
        } else {
            Manoeuvre::Sinusoid
        }
    }

    /// The spool displacement at time `t`.
    pub fn spool<T: Scalar>(self, t: T, gamma0: T) -> T {
        match self {
            Manoeuvre::Steps => gamma0 + steps_offset(t),
            Manoeuvre::Sinusoid => {
                let phase = T::cst(2.0 * std::f64::consts::PI * FREQUENCY) * t;
                gamma0 * (T::cst(1.0) - sinusoid_amplitude(t) * phase.sin())
            }
        }
    }

    /// The first kink of `gamma` strictly after `t`, if any.
    pub fn next_kink(self, t: f64) -> Option<f64> {
        let kinks = match self {
            Manoeuvre::Steps => [
                FIRST_RAMP.0,
                FIRST_RAMP.0 + FIRST_RAMP.1,
                SECOND_RAMP.0,
                SECOND_RAMP.0 + SECOND_RAMP.1,
            ]
            .to_vec(),
            Manoeuvre::Sinusoid => AMPLITUDE_TIMES.to_vec(),
        };
        kinks.into_iter().find(|&kink| kink > t)
    }
}

/// `gamma - gamma0` of the step manoeuvre: the sum of the two ramps.
fn steps_offset<T: Scalar>(t: T) -> T {
    let ramp = |(start, length, change): (f64, f64, f64)| {
        if t.real() <= start {
            T::cst(0.0)
        } else if t.real() <= start + length {
            T::cst(change / length) * (t - T::cst(start))
        } else {
            T::cst(change)
        }
    };
    ramp(FIRST_RAMP) + ramp(SECOND_RAMP)
}

/// The sinusoid's relative amplitude `A(t)`.
fn sinusoid_amplitude<T: Scalar>(t: T) -> T {
    let [rise, hold, end] = AMPLITUDE_TIMES;
    let a = T::cst(AMPLITUDE);
    match t.real() {
        x if x <= rise => a * t / T::cst(rise),
        x if x <= hold => a,
        x if x <= end => a * (T::cst(end) - t) / T::cst(end - hold),
        _ => T::cst(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAMMA0: f64 = 0.45;

    #[test]
    fn the_step_manoeuvre_ramps_down_then_up() {
        let gamma = |t: f64| Manoeuvre::Steps.spool(t, GAMMA0);
        assert_eq!(gamma(0.0), GAMMA0);
        assert_eq!(gamma(2.0), GAMMA0);
        assert!((gamma(2.0005) - (GAMMA0 - 0.005)).abs() < 1e-12);
        assert!((gamma(4.0) - (GAMMA0 - 0.01)).abs() < 1e-15);
        assert!((gamma(6.001) - (GAMMA0 - 0.01 + 0.015)).abs() < 1e-12);
        assert!((gamma(7.0) - (GAMMA0 + 0.02)).abs() < 1e-15);
    }

    #[test]
    fn the_sinusoid_follows_equation_33() {
        let gamma = |t: f64| Manoeuvre::Sinusoid.spool(t, GAMMA0);
        let formula = |t: f64, amplitude: f64| {
            GAMMA0 * (1.0 - amplitude * (4.0 * std::f64::consts::PI * t).sin())
        };
        for (t, amplitude) in [
            (0.3, 0.03),
            (1.0, 0.1),
            (4.13, 0.1),
            (8.6, 0.04),
            (9.5, 0.0),
        ] {
            assert!((gamma(t) - formula(t, amplitude)).abs() < 1e-14, "t = {t}");
        }
        // The LIM reference tabulates gamma(0.01 s) = 0.45429 with gamma0 = 0.45435.
        let tabulated: f64 = Manoeuvre::Sinusoid.spool(0.01, 0.45435);
        assert!((tabulated - 0.45429).abs() < 5e-6, "{tabulated}");
    }

    #[test]
    fn kinks_are_announced_in_order() {
        let kinks = |m: Manoeuvre| {
            std::iter::successors(m.next_kink(0.0), |&t| m.next_kink(t)).collect::<Vec<_>>()
        };
        assert_eq!(kinks(Manoeuvre::Sinusoid), [1.0, 8.0, 9.0]);
        assert_eq!(kinks(Manoeuvre::Steps), [2.0, 2.001, 6.0, 6.002]);
        assert_eq!(Manoeuvre::from_setting(1.0), Manoeuvre::Steps);
        assert_eq!(Manoeuvre::from_setting(2.0), Manoeuvre::Sinusoid);
    }
}
