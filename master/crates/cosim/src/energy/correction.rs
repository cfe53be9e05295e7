//! The energy correction of one bond (Rodríguez et al. 2022, Sect. 3.2 and the manager
//! algorithm): after the macro step ending at `t_{k+1}`, the energy error it caused is
//! estimated as `sigma_{k+1} = mu H dP_{k+1}`, and a force that removes it over the next macro
//! step is added to the effort sent to the flow side:
//!
//! ```text
//! f_corr_{k+1} = -(sigma_{k+1} + nu U) / (v_{k+1} H)
//! ```
//!
//! `U` accumulates what the previous corrections left over because the flow changed during the
//! step, `U_k = sigma_k + f_corr_k . v_{k+1} H` (the integral term, gain `nu`). For a vector
//! bond the force is the smallest one that delivers that energy along the flow,
//! `-(sigma + nu U) v / (|v|^2 H)`. Its magnitude is capped (a fraction of the uncorrected
//! effort's magnitude, and/or an absolute value), and it is zero while `|v|` is below
//! `v_epsilon`, where the formula would blow up.

use super::monitor::{dot, norm};
use super::scalar::Scalar;
use crate::system::energy_setup::settings::Cap;

/// How a bond's correction is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectionLaw {
    /// The energy-error factor mu.
    pub mu: f64,
    /// The integral gain nu.
    pub nu: f64,
    /// The cap on the force's magnitude.
    pub cap: Cap,
    /// Flows below this magnitude get no correction.
    pub v_epsilon: f64,
}

impl CorrectionLaw {
    /// The force that delivers the energy `-energy` along `flow` over `step`, capped for the
    /// uncorrected `effort`; zero for a flow below `v_epsilon`.
    pub fn force<T: Scalar>(&self, energy: T, effort: &[T], flow: &[T], step: f64) -> Vec<T> {
        let speed = norm(flow);
        if speed.real() <= self.v_epsilon {
            return vec![T::zero(); flow.len()];
        }
        let scale = -energy / (speed * speed * step);
        let magnitude = scale.abs() * speed;
        let limit = self.cap.limit(norm(effort));
        let scale = if magnitude.real() > limit.real() {
            scale * limit / magnitude
        } else {
            scale
        };
        // `+ 0.0` turns the -0 of a zero energy into 0 (the force is otherwise unchanged, and
        // its derivative is that of the formula even where the energy is zero).
        flow.iter().map(|&v| scale * v + 0.0).collect()
    }
}

/// The state of one bond's correction, in real numbers (a run) or dual numbers (its derivative).
#[derive(Debug, Clone, PartialEq)]
pub struct Correction<T = f64> {
    law: CorrectionLaw,
    /// The energy error estimated at the latest communication point, once there is one.
    error: Option<T>,
    /// The residual `U` left by the corrections so far.
    leftover: T,
    /// The force added to the effort during the current macro step.
    force: Vec<T>,
}

impl<T: Scalar> Correction<T> {
    /// No correction yet, for a bond of `dimension` efforts.
    pub fn new(law: CorrectionLaw, dimension: usize) -> Self {
        Self::resume(law, None, T::zero(), vec![T::zero(); dimension])
    }

    /// The correction in the state `error` (none before the first communication point),
    /// `leftover` and `force`, as [`Correction::error`], [`Correction::leftover`] and
    /// [`Correction::force`] give it.
    pub fn resume(law: CorrectionLaw, error: Option<T>, leftover: T, force: Vec<T>) -> Self {
        Correction {
            law,
            error,
            leftover,
            force,
        }
    }

    /// After a macro step of length `step` with residual power `power`, ending with the
    /// uncorrected `effort` and the `flow`, computes the force to add during the next macro
    /// step, whose length is `next_step`.
    pub fn update(
        &mut self,
        power: T,
        step: f64,
        effort: &[T],
        flow: &[T],
        next_step: f64,
    ) -> &[T] {
        let error = power * (self.law.mu * step);
        if let Some(previous) = self.error {
            self.leftover += previous + dot(&self.force, flow) * step;
        }
        self.error = Some(error);
        self.force = self
            .law
            .force(error + self.leftover * self.law.nu, effort, flow, next_step);
        &self.force
    }

    /// How it corrects.
    pub fn law(&self) -> &CorrectionLaw {
        &self.law
    }

    /// The factor mu it corrects with.
    pub fn mu(&self) -> f64 {
        self.law.mu
    }

    /// The energy error estimated at the latest communication point, once there is one.
    pub fn error(&self) -> Option<T> {
        self.error
    }

    /// The force added to the effort during the current macro step.
    pub fn force(&self) -> &[T] {
        &self.force
    }

    /// The accumulated residual `U`.
    pub fn leftover(&self) -> T {
        self.leftover
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(fraction: f64, absolute: Option<f64>) -> CorrectionLaw {
        CorrectionLaw {
            mu: 0.5,
            nu: 0.0,
            cap: Cap { fraction, absolute },
            v_epsilon: 1e-6,
        }
    }

    #[test]
    fn the_force_removes_the_energy_over_the_next_step() {
        let law = law(f64::INFINITY, None);
        let force = law.force(2.0, &[10.0], &[4.0], 0.5);
        // -2 / (4 * 0.5) = -1: a force against the motion doing -2 J over the step.
        assert_eq!(force, [-1.0]);
        assert_eq!(law.force(-2.0, &[10.0], &[-4.0], 0.5), [-1.0]);
    }

    #[test]
    fn a_vector_bond_gets_the_minimum_norm_force_along_the_flow() {
        let law = law(f64::INFINITY, None);
        let flow = [3.0, 4.0];
        let force: Vec<f64> = law.force(5.0, &[0.0, 100.0], &flow, 0.1);
        // Delivers -5 J in 0.1 s along v: f . v = -50 with f parallel to v (|v| = 5).
        assert!((dot(&force, &flow) * 0.1 + 5.0).abs() < 1e-12);
        assert!((force[0] * flow[1] - force[1] * flow[0]).abs() < 1e-12);
        // Any other force with the same power is longer: add a component normal to v.
        let other = [force[0] + 0.8, force[1] - 0.6];
        assert!((dot(&other, &flow) - dot(&force, &flow)).abs() < 1e-12);
        assert!(norm(&other) > norm(&force));
    }

    #[test]
    fn the_cap_limits_the_magnitude_and_keeps_the_direction() {
        // Uncapped: -1 N; 10 % of |f| = 10 N allows it; 5 % of |f| = 0.5 N halves it.
        assert_eq!(law(0.1, None).force(2.0, &[10.0], &[4.0], 0.5), [-1.0]);
        assert_eq!(law(0.05, None).force(2.0, &[10.0], &[4.0], 0.5), [-0.5]);
        // The smaller of both caps: 100 % of 10 N or 0.25 N.
        assert_eq!(
            law(1.0, Some(0.25)).force(2.0, &[10.0], &[4.0], 0.5),
            [-0.25]
        );
        let force: Vec<f64> = law(1.0, Some(1.0)).force(50.0, &[0.0, 100.0], &[3.0, 4.0], 0.1);
        assert!((norm(&force) - 1.0).abs() < 1e-12);
        assert!(force[0] < 0.0 && (force[0] * 4.0 - force[1] * 3.0).abs() < 1e-12);
    }

    #[test]
    fn no_force_while_the_flow_is_near_zero() {
        assert_eq!(law(1.0, None).force(2.0, &[10.0], &[1e-7], 0.5), [0.0]);
        assert_eq!(
            law(1.0, None).force(2.0, &[10.0, 1.0], &[0.0, 0.0], 0.5),
            [0.0, 0.0]
        );
    }

    #[test]
    fn the_leftover_accumulates_what_the_previous_force_did_not_remove() {
        let mut law = law(f64::INFINITY, None);
        law.nu = 0.5;
        let mut correction = Correction::<f64>::new(law, 1);
        // Step 1 (h = 0.1): dP = 10 W, sigma = 0.5 * 0.1 * 10 = 0.5 J; U = 0, so
        // f = -0.5 / (2 * 0.1) = -2.5 N.
        assert_eq!(correction.update(10.0, 0.1, &[100.0], &[2.0], 0.1), [-2.5]);
        assert_eq!(correction.leftover(), 0.0);
        // Step 2: the flow fell to 1, so the force removed only 2.5 * 1 * 0.1 = 0.25 J:
        // U_1 = 0.5 - 0.25 = 0.25 J. dP = 0 now: f = -(0 + 0.5 * 0.25) / (1 * 0.1) = -1.25 N.
        let force = correction.update(0.0, 0.1, &[100.0], &[1.0], 0.1).to_vec();
        assert!((correction.leftover() - 0.25).abs() < 1e-15);
        assert!((force[0] + 1.25).abs() < 1e-12, "{force:?}");
        // Step 3: U_2 = sigma_2 + f_corr_2 v_3 H = 0 - 1.25 * 1 * 0.1, so U = 0.25 - 0.125.
        correction.update(0.0, 0.1, &[100.0], &[1.0], 0.1);
        assert!((correction.leftover() - 0.125).abs() < 1e-15);
    }
}
