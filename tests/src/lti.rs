//! The closed-form free response of a two-state linear time-invariant system
//! `x' = A x, y = C x` whose matrix `A` has complex eigenvalues, the reference for the
//! state-space FMUs with their input at zero.

/// A two-state system with one output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lti2 {
    /// `A`, row-major.
    pub a: [f64; 4],
    /// `C` (one row).
    pub c: [f64; 2],
    /// The initial state.
    pub x0: [f64; 2],
}

impl Lti2 {
    /// The state at time `t`: `e^{A t} x0` with, for the eigenvalues `s +- i w` of `A`
    /// (Cayley-Hamilton), `e^{A t} = e^{s t} ((cos wt - s/w sin wt) I + (sin wt / w) A)`.
    pub fn state(&self, t: f64) -> [f64; 2] {
        let [a11, a12, a21, a22] = self.a;
        let s = (a11 + a22) / 2.0;
        let determinant = a11 * a22 - a12 * a21;
        let w2 = determinant - s * s;
        assert!(
            w2 > 0.0,
            "the closed form here is for complex eigenvalues (A = {:?})",
            self.a
        );
        let w = w2.sqrt();
        let (sin, cos) = (w * t).sin_cos();
        let (identity, of_a) = (cos - s / w * sin, sin / w);
        let decay = (s * t).exp();
        let [x1, x2] = self.x0;
        [
            decay * (identity * x1 + of_a * (a11 * x1 + a12 * x2)),
            decay * (identity * x2 + of_a * (a21 * x1 + a22 * x2)),
        ]
    }

    /// The output `C x` at time `t`.
    pub fn output(&self, t: f64) -> f64 {
        let x = self.state(t);
        self.c[0] * x[0] + self.c[1] * x[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oscillator::DampedOscillator;

    #[test]
    fn a_companion_matrix_gives_the_damped_oscillator() {
        let oscillator = DampedOscillator {
            m: 2.0,
            c: 8.0,
            d: 0.8,
            x0: 1.0,
            v0: -0.5,
        };
        let lti = Lti2 {
            a: [0.0, 1.0, -4.0, -0.4],
            c: [1.0, 0.0],
            x0: [1.0, -0.5],
        };
        for t in [0.0, 0.3, 1.7, 6.0] {
            let (x, expected) = (lti.state(t), oscillator.state(t));
            for (a, b) in x.iter().zip(expected) {
                assert!((a - b).abs() <= 1e-14, "t = {t}: {x:?} vs {expected:?}");
            }
            assert_eq!(lti.output(t), x[0]);
        }
    }
}
