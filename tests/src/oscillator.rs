//! The closed-form free response of the damped oscillator `m x'' + d x' + c x = 0`, the
//! reference for the oscillator FMUs.

/// Parameters and initial state of an underdamped oscillator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampedOscillator {
    /// Mass.
    pub m: f64,
    /// Stiffness.
    pub c: f64,
    /// Damping coefficient.
    pub d: f64,
    /// Initial position.
    pub x0: f64,
    /// Initial velocity.
    pub v0: f64,
}

impl DampedOscillator {
    /// The undamped natural frequency `sqrt(c/m)`.
    pub fn natural_frequency(&self) -> f64 {
        (self.c / self.m).sqrt()
    }

    /// Position and velocity at time `t`.
    pub fn state(&self, t: f64) -> [f64; 2] {
        let w0 = self.natural_frequency();
        let zeta = self.d / (2.0 * (self.c * self.m).sqrt());
        assert!(
            zeta < 1.0,
            "the closed form here is for underdamped oscillators (zeta = {zeta})"
        );
        let sigma = zeta * w0;
        let wd = w0 * (1.0 - zeta * zeta).sqrt();
        let b = (self.v0 + sigma * self.x0) / wd;
        let decay = (-sigma * t).exp();
        let (sin, cos) = (wd * t).sin_cos();
        let x = decay * (self.x0 * cos + b * sin);
        let v = decay * (wd * (b * cos - self.x0 * sin)) - sigma * x;
        [x, v]
    }

    /// The distance between two states in the energy norm `sqrt(dx^2 + (dv/w0)^2)`, relative to
    /// the initial amplitude in the same norm: position and velocity errors weigh alike, and the
    /// measure stays meaningful after the response has decayed.
    pub fn relative_error(&self, state: [f64; 2], reference: [f64; 2]) -> f64 {
        let w0 = self.natural_frequency();
        let norm = |x: f64, v: f64| x.hypot(v / w0);
        norm(state[0] - reference[0], state[1] - reference[1]) / norm(self.x0, self.v0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OSCILLATOR: DampedOscillator = DampedOscillator {
        m: 2.0,
        c: 400.0,
        d: 3.0,
        x0: 0.01,
        v0: 0.02,
    };

    #[test]
    fn closed_form_satisfies_the_equation_of_motion_and_the_initial_state() {
        let o = OSCILLATOR;
        assert_eq!(o.state(0.0)[0], o.x0);
        assert!((o.state(0.0)[1] - o.v0).abs() < 1e-15);
        let h = 1e-5;
        for t in [0.1, 0.7, 3.3] {
            let [x, v] = o.state(t);
            let dx = (o.state(t + h)[0] - o.state(t - h)[0]) / (2.0 * h);
            let dv = (o.state(t + h)[1] - o.state(t - h)[1]) / (2.0 * h);
            let scale = o.x0 * o.natural_frequency();
            assert!((dx - v).abs() < 1e-6 * scale, "x' = v fails at t = {t}");
            assert!(
                (o.m * dv + o.d * v + o.c * x).abs() < 1e-6 * o.m * scale * o.natural_frequency()
            );
        }
    }

    #[test]
    fn relative_error_is_zero_on_the_reference_and_scales() {
        let o = OSCILLATOR;
        let r = o.state(1.0);
        assert_eq!(o.relative_error(r, r), 0.0);
        let amplitude = o.x0.hypot(o.v0 / o.natural_frequency());
        assert!((o.relative_error([r[0] + 1e-3 * amplitude, r[1]], r) - 1e-3).abs() < 1e-12);
    }
}
