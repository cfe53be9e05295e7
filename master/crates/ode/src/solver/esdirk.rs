//! An implicit adaptive method for stiff Model Exchange FMUs: the L-stable, stiffly accurate
//! ESDIRK3(2)4L[2]SA (tableau in the `tableau` module) with an embedded second-order error
//! estimate.
//!
//! Each implicit stage `z_i = x + h sum_{j<i} a_ij k_j + h gamma f(t + c_i h, z_i)` is solved by
//! simplified Newton with the iteration matrix `I - h gamma J`, `J = df/dx` at the start of a
//! step. `J` comes from the problem ([`Ode::jacobian`]: the FMU's directional derivatives when it
//! provides them, else forward differences) and is kept across steps while the iterations
//! converge quickly; it is re-evaluated after an event, after a failed iteration and after a
//! step whose iteration converged slowly. The stage derivatives are recovered from the stage
//! equation, `k_i = (z_i - x - h sum_{j<i} a_ij k_j) / (h gamma)`, which does not amplify the
//! iteration error by the stiffness as `f(z_i)` would.
//!
//! The error estimate `h sum_j (b_j - b^_j) k_j` is filtered through `(I - h gamma J)^-1`
//! (Shampine's device, also used by RADAU5) so that stiff components, which the method damps,
//! do not dominate it. The dense output is the cubic Hermite interpolant of the step's end
//! values and derivatives, of the method's order.

mod tableau;

use super::fsal::FsalStages;
use super::iteration_matrix::{Factorization, IterationMatrix, SPARSE_FROM};
use super::jacobian::Jacobian;
use super::linearization::{stage_state, StepLinearization};
use super::spectral_radius::spectral_radius;
use super::{Attempt, Interpolant, Ode, Stepper, Tolerances};
use tableau::{A, B, B_HAT, C, DIAGONAL, GAMMA, ROWS, STAGES};

/// The error estimate (difference of the third- and second-order solutions) grows like `h^3`.
const ESTIMATE_ORDER: u32 = 3;
/// Largest growth of the step per accepted step.
const MAX_FACTOR: f64 = 5.0;
/// Most simplified-Newton iterations per stage.
const MAX_ITERATIONS: usize = 10;
/// A contraction rate above this marks the Jacobian for re-evaluation at the next step.
const SLOW_RATE: f64 = 0.1;
/// Step reduction after a stage iteration failed with a Jacobian evaluated for this step.
const FAILURE_FACTOR: f64 = 0.25;

/// How many Jacobians, factorizations and failed stage iterations a run needed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EsdirkStatistics {
    /// Jacobian evaluations.
    pub jacobians: usize,
    /// Products (directional derivatives or difference evaluations) the Jacobian evaluations
    /// took: one per colour of the Jacobian's columns each.
    pub jacobian_products: usize,
    /// LU factorizations of the iteration matrix.
    pub factorizations: usize,
    /// Stage iterations that diverged or did not converge in time.
    pub failed_iterations: usize,
}

/// The ESDIRK stepper for systems of dimension `n`.
pub struct Esdirk {
    /// Stage derivatives `k_1 .. k_4` of the last attempt.
    stages: FsalStages<STAGES>,
    /// The explicit part `x + h sum_{j<i} a_ij k_j` of the stage being solved.
    base: Vec<f64>,
    /// The stage value being iterated.
    z: Vec<f64>,
    /// `f` at the stage value.
    f: Vec<f64>,
    /// Newton correction (and the filtered error estimate).
    correction: Vec<f64>,
    x_old: Vec<f64>,
    x_new: Vec<f64>,
    t: f64,
    h: f64,
    /// `df/dx`, on the problem's pattern when it has one (made at the first evaluation).
    jacobian: Option<Jacobian>,
    /// The Jacobian must be evaluated before the next attempt.
    jacobian_due: bool,
    /// The Jacobian was evaluated at the start of the current step.
    jacobian_fresh: bool,
    /// The LU factors of `I - h gamma J`.
    iteration_matrix: IterationMatrix,
    /// Hairer's `eta = theta / (1 - theta)` of the last iteration, to judge convergence after
    /// the first iteration of the next stage.
    eta: f64,
    /// The largest contraction rate seen during the last attempt.
    slowest_rate: f64,
    /// The spectral radius of `jacobian`, once asked for.
    spectral_radius: Option<f64>,
    statistics: EsdirkStatistics,
}

/// The outcome of one stage iteration.
enum StageIteration {
    Converged,
    Failed,
}

impl Esdirk {
    /// A stepper for `n` states.
    pub fn new(n: usize) -> Self {
        Esdirk {
            stages: FsalStages::new(n),
            base: vec![0.0; n],
            z: vec![0.0; n],
            f: vec![0.0; n],
            correction: vec![0.0; n],
            x_old: vec![0.0; n],
            x_new: vec![0.0; n],
            t: 0.0,
            h: 0.0,
            jacobian: None,
            jacobian_due: true,
            jacobian_fresh: false,
            iteration_matrix: IterationMatrix::default(),
            eta: 1.0,
            slowest_rate: 0.0,
            spectral_radius: None,
            statistics: EsdirkStatistics::default(),
        }
    }

    /// The work done so far.
    pub fn statistics(&self) -> EsdirkStatistics {
        self.statistics
    }

    /// How the iteration matrix was last factored (none before the first attempt, or after
    /// a singular one).
    pub fn factorization(&self) -> Option<Factorization> {
        self.iteration_matrix.factorization()
    }

    /// The spectral radius of the Jacobian the last attempt iterated with (computed once per
    /// Jacobian evaluation): with the step size, whether an explicit method would be stable.
    /// Of a large Jacobian, sparse or dense, whose Schur form would cost far more than the
    /// integration (a dense one of 1000 states: seconds per Jacobian, against milliseconds for
    /// its LU), the infinity norm stands in: an upper bound, so the problem is judged stiff for
    /// longer.
    pub fn spectral_radius(&mut self) -> f64 {
        let jacobian = &self.jacobian;
        *self.spectral_radius.get_or_insert_with(|| match jacobian {
            None => 0.0,
            Some(jacobian) if jacobian.n() >= SPARSE_FROM => jacobian.infinity_norm(),
            Some(jacobian) => match jacobian.as_dense() {
                Some(matrix) => spectral_radius(matrix),
                None => spectral_radius(&jacobian.to_dense()),
            },
        })
    }

    /// The last attempted step (after an accepted one: that step) for its tangent and adjoint
    /// with the step size frozen: its stage states, each the explicit part plus `h gamma` times
    /// the stage derivative (which is how the step computed the derivative from the state).
    pub fn last_step(&self) -> StepLinearization {
        let k = &self.stages.k;
        let stages = (0..STAGES)
            .map(|s| {
                let mut stage = vec![0.0; self.x_old.len()];
                stage_state(&self.x_old, self.h, &ROWS[s], &k[..s], &mut stage);
                for (z, ks) in stage.iter_mut().zip(&k[s]) {
                    *z += self.h * DIAGONAL[s] * ks;
                }
                stage
            })
            .collect();
        StepLinearization::new(self.t, self.h, &C, &ROWS, &DIAGONAL, stages)
    }

    /// Evaluates the Jacobian afresh at the start of the next attempt, even if the iterations
    /// still converge with the one it has: a stale Jacobian of a stiffer past would hide that
    /// the problem has become non-stiff ([`super::Auto`]).
    pub fn refresh_jacobian(&mut self) {
        self.jacobian_due = true;
    }

    /// Evaluates the Jacobian at `(t, x)` when due and factors `I - h gamma J` when `h` or the
    /// Jacobian changed; returns false when the matrix is singular.
    fn prepare_iteration<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        h: f64,
        tolerances: &Tolerances,
    ) -> Result<bool, O::Error> {
        if self.jacobian_due {
            let typical = tolerances.typical();
            let jacobian = self
                .jacobian
                .get_or_insert_with(|| Jacobian::for_problem(x.len(), ode.sparsity()));
            ode.jacobian(t, x, &self.stages.k[0], &typical, jacobian)?;
            self.statistics.jacobians += 1;
            self.statistics.jacobian_products += jacobian.colours();
            self.jacobian_due = false;
            self.jacobian_fresh = true;
            self.iteration_matrix.invalidate();
            self.spectral_radius = None;
        }
        let h_gamma = h * GAMMA;
        if self.iteration_matrix.is_factored_for(h_gamma) {
            return Ok(true);
        }
        let jacobian = self.jacobian.as_ref().expect("evaluated above");
        self.statistics.factorizations += 1;
        Ok(self.iteration_matrix.factor(jacobian, h_gamma))
    }

    /// Solves stage `stage` for `z` by simplified Newton, starting from `z`; `self.base` holds
    /// the stage's explicit part.
    fn solve_stage<O: Ode>(
        &mut self,
        ode: &mut O,
        stage_time: f64,
        x: &[f64],
        h: f64,
        tolerances: &Tolerances,
    ) -> Result<StageIteration, O::Error> {
        let h_gamma = h * GAMMA;
        // Iteration errors well below the error tolerance (RADAU5's choice).
        let kappa = 0.03_f64
            .min(tolerances.relative.sqrt())
            .max(10.0 * f64::EPSILON / tolerances.relative);
        let mut eta = self.eta.max(f64::EPSILON).powf(0.8);
        let mut previous: Option<f64> = None;
        for _ in 0..MAX_ITERATIONS {
            ode.derivatives(stage_time, &self.z, &mut self.f)?;
            for i in 0..self.z.len() {
                self.correction[i] = self.base[i] + h_gamma * self.f[i] - self.z[i];
            }
            self.iteration_matrix.solve_mut(&mut self.correction);
            for i in 0..self.z.len() {
                self.z[i] += self.correction[i];
            }
            let norm = tolerances.norm(x, &self.z, |i| self.correction[i]);
            if !norm.is_finite() {
                return Ok(StageIteration::Failed);
            }
            if let Some(previous) = previous {
                let rate = norm / previous;
                if rate >= 1.0 {
                    return Ok(StageIteration::Failed);
                }
                self.slowest_rate = self.slowest_rate.max(rate);
                eta = rate / (1.0 - rate);
            }
            if eta * norm <= kappa || norm == 0.0 {
                self.eta = eta;
                return Ok(StageIteration::Converged);
            }
            previous = Some(norm);
        }
        Ok(StageIteration::Failed)
    }

    /// The outcome of an attempt whose stage iteration failed: with a Jacobian from an earlier
    /// step, retry the same step with a new one; otherwise shrink the step.
    fn iteration_failed(&mut self, h: f64) -> Attempt {
        self.statistics.failed_iterations += 1;
        self.eta = 1.0;
        if self.jacobian_fresh {
            Attempt::failed(h, FAILURE_FACTOR)
        } else {
            self.jacobian_due = true;
            Attempt::failed(h, 1.0)
        }
    }
}

impl Stepper for Esdirk {
    type Dense = HermiteOutput;

    fn name(&self) -> &'static str {
        "esdirk"
    }

    fn initial_step<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        tolerances: &Tolerances,
        max_step: f64,
    ) -> Result<f64, O::Error> {
        self.stages
            .initial_step(ode, t, x, tolerances, max_step, ESTIMATE_ORDER)
    }

    fn attempt<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        h: f64,
        tolerances: &Tolerances,
    ) -> Result<Attempt, O::Error> {
        let n = x.len();
        self.stages.start(ode, t, x)?;
        self.t = t;
        self.h = h;
        self.x_old.copy_from_slice(x);
        self.slowest_rate = 0.0;
        if !self.prepare_iteration(ode, t, x, h, tolerances)? {
            return Ok(self.iteration_failed(h));
        }
        let h_gamma = h * GAMMA;
        for stage in 1..STAGES {
            for (i, &xi) in x.iter().enumerate() {
                let explicit: f64 = (0..stage).map(|j| A[stage][j] * self.stages.k[j][i]).sum();
                self.base[i] = xi + h * explicit;
                // Predictor: the previous stage's slope.
                self.z[i] = self.base[i] + h_gamma * self.stages.k[stage - 1][i];
            }
            match self.solve_stage(ode, t + C[stage] * h, x, h, tolerances)? {
                StageIteration::Converged => {}
                StageIteration::Failed => return Ok(self.iteration_failed(h)),
            }
            for i in 0..n {
                self.stages.k[stage][i] = (self.z[i] - self.base[i]) / h_gamma;
            }
        }
        // Stiffly accurate: the last stage value is the new state.
        self.x_new.copy_from_slice(&self.z);
        for i in 0..n {
            self.correction[i] = h
                * (0..STAGES)
                    .map(|j| (B[j] - B_HAT[j]) * self.stages.k[j][i])
                    .sum::<f64>();
        }
        self.iteration_matrix.solve_mut(&mut self.correction);
        let error = tolerances.norm(x, &self.x_new, |i| self.correction[i]);
        Ok(Attempt::controlled(h, error, ESTIMATE_ORDER, MAX_FACTOR))
    }

    fn x_new(&self) -> &[f64] {
        &self.x_new
    }

    fn dense_output(&self, dense: &mut HermiteOutput) {
        dense.t0 = self.t;
        dense.h = self.h;
        dense.x0.clone_from(&self.x_old);
        dense.f0.clone_from(&self.stages.k[0]);
        dense.x1.clone_from(&self.x_new);
        dense.f1.clone_from(&self.stages.k[STAGES - 1]);
    }

    /// The last stage derivative is `f` at the new state (first same as last); the Jacobian
    /// is kept unless the iteration converged slowly.
    fn accept(&mut self) {
        self.stages.accept();
        self.jacobian_fresh = false;
        if self.slowest_rate > SLOW_RATE {
            self.jacobian_due = true;
        }
    }

    fn reset(&mut self) {
        self.stages.reset();
        self.jacobian_due = true;
        self.eta = 1.0;
    }
}

/// The cubic Hermite interpolant of a step from its end values and derivatives.
#[derive(Debug, Clone, Default)]
pub struct HermiteOutput {
    t0: f64,
    h: f64,
    x0: Vec<f64>,
    f0: Vec<f64>,
    x1: Vec<f64>,
    f1: Vec<f64>,
}

impl Interpolant for HermiteOutput {
    fn evaluate(&self, t: f64, x: &mut [f64]) {
        let s = (t - self.t0) / self.h;
        let r = 1.0 - s;
        let (h00, h10) = ((1.0 + 2.0 * s) * r * r, s * r * r);
        let (h01, h11) = (s * s * (3.0 - 2.0 * s), -s * s * r);
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = h00 * self.x0[i]
                + h01 * self.x1[i]
                + self.h * (h10 * self.f0[i] + h11 * self.f1[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::SingularStage;
    use nalgebra::{DMatrix, DVector};

    #[derive(Debug)]
    struct Singular;

    impl From<SingularStage> for Singular {
        fn from(_: SingularStage) -> Self {
            Singular
        }
    }

    /// Robertson's stiff chemical kinetics.
    fn robertson(x: &[f64]) -> [f64; 3] {
        let r1 = 0.04 * x[0];
        let r2 = 3e7 * x[1] * x[1];
        let r3 = 1e4 * x[1] * x[2];
        [-r1 + r3, r1 - r2 - r3, r2]
    }

    fn jacobian(x: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(
            3,
            3,
            &[
                -0.04,
                1e4 * x[2],
                1e4 * x[1],
                0.04,
                -6e7 * x[1] - 1e4 * x[2],
                -1e4 * x[1],
                0.0,
                6e7 * x[1],
                0.0,
            ],
        )
    }

    /// One ESDIRK step of size `h` from `x` with a tight stage iteration; the stepper after it.
    fn step(x: &[f64], h: f64) -> Esdirk {
        let mut stepper = Esdirk::new(3);
        let mut ode = |_: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Singular> {
            dx.copy_from_slice(&robertson(x));
            Ok(())
        };
        let tight = Tolerances::from_nominals(1e-7, &[1.0, 1e-4, 1.0]);
        let attempt = stepper.attempt(&mut ode, 0.0, x, h, &tight).unwrap();
        assert!(
            attempt.error.is_finite(),
            "the stage iterations converged: {attempt:?} {:?}",
            stepper.statistics()
        );
        stepper
    }

    #[test]
    fn the_implicit_step_tangent_matches_differences_and_its_adjoint() {
        let (x, h) = ([0.9, 2e-5, 0.1], 0.005);
        let linear = step(&x, h).last_step();
        assert!(linear.is_implicit());
        let jvp = |_: usize, _: f64, s: &[f64], d: &[f64], out: &mut [f64]| {
            let product = jacobian(s) * DVector::from_column_slice(d);
            out.copy_from_slice(product.as_slice());
            Ok::<(), Singular>(())
        };
        let vjp = |_: usize, _: f64, s: &[f64], b: &[f64], out: &mut [f64]| {
            let product = jacobian(s).transpose() * DVector::from_column_slice(b);
            out.copy_from_slice(product.as_slice());
            Ok::<(), Singular>(())
        };
        let matrix = |_: usize, _: f64, s: &[f64], j: &mut DMatrix<f64>| {
            j.copy_from(&jacobian(s));
            Ok::<(), Singular>(())
        };
        for direction in [[1.0, 0.0, 0.0], [0.0, 1e-5, 0.0], [0.3, -2e-6, 0.7]] {
            let tangent = linear.tangent(&direction, jvp, matrix).unwrap();
            let e = 1e-4;
            let shifted = |sign: f64| {
                let y: Vec<f64> = (0..3).map(|i| x[i] + sign * e * direction[i]).collect();
                step(&y, h).x_new().to_vec()
            };
            let (plus, minus) = (shifted(1.0), shifted(-1.0));
            for i in 0..3 {
                let difference = (plus[i] - minus[i]) / (2.0 * e);
                let scale = tangent.iter().map(|v| v.abs()).fold(1e-8, f64::max);
                assert!(
                    (tangent[i] - difference).abs() < 1e-6 * scale,
                    "component {i}: tangent {tangent:?}, differences {difference}"
                );
            }
            let bar = [0.4, 2.1, -1.3];
            let adjoint = linear.adjoint(&bar, vjp, matrix).unwrap();
            let left: f64 = (0..3).map(|i| bar[i] * tangent[i]).sum();
            let right: f64 = (0..3).map(|i| adjoint[i] * direction[i]).sum();
            assert!(
                (left - right).abs() < 1e-12 * left.abs().max(1.0),
                "{left} {right}"
            );
        }
    }
}
