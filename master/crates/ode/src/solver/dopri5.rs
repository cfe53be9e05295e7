//! The Dormand–Prince 5(4) embedded Runge–Kutta method with error control and its
//! fourth-order dense output (Hairer, Nørsett, Wanner, *Solving ODEs I*, II.5 and II.6).

use super::fsal::FsalStages;
use super::linearization::{stage_state, StepLinearization};
use super::stiffness::h_lambda;
use super::{Attempt, Interpolant, Ode, Stepper, Tolerances};

const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// Fifth-order weights minus fourth-order weights: the local error estimate.
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];
/// Weights of the dense output's last coefficient.
const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// The error estimate (difference of the fifth- and fourth-order solutions) grows like `h^5`.
const ESTIMATE_ORDER: u32 = 5;
/// Largest growth of the step per accepted step (Hairer's default).
const MAX_FACTOR: f64 = 10.0;

/// The continuous extension over one accepted step.
#[derive(Debug, Clone, Default)]
pub struct DenseOutput {
    t0: f64,
    h: f64,
    coefficients: [Vec<f64>; 5],
}

impl DenseOutput {
    /// Start of the step.
    pub fn start(&self) -> f64 {
        self.t0
    }

    /// End of the step.
    pub fn end(&self) -> f64 {
        self.t0 + self.h
    }
}

impl Interpolant for DenseOutput {
    fn evaluate(&self, t: f64, x: &mut [f64]) {
        let theta = (t - self.t0) / self.h;
        let theta1 = 1.0 - theta;
        let [r1, r2, r3, r4, r5] = &self.coefficients;
        for i in 0..x.len() {
            x[i] = r1[i] + theta * (r2[i] + theta1 * (r3[i] + theta * (r4[i] + theta1 * r5[i])));
        }
    }
}

/// A Dormand–Prince stepper for systems of dimension `n`, with FSAL reuse of the last stage.
pub struct DormandPrince {
    stages: FsalStages<7>,
    stage: Vec<f64>,
    x_new: Vec<f64>,
    t: f64,
    h: f64,
    x_old: Vec<f64>,
}

impl DormandPrince {
    /// A stepper for `n` states.
    pub fn new(n: usize) -> Self {
        DormandPrince {
            stages: FsalStages::new(n),
            stage: vec![0.0; n],
            x_new: vec![0.0; n],
            t: 0.0,
            h: 0.0,
            x_old: vec![0.0; n],
        }
    }
}

impl DormandPrince {
    /// The last attempted step (after an accepted one: that step) for its tangent and adjoint
    /// with the step size frozen: the six stages whose derivatives make the new state.
    pub fn last_step(&self) -> StepLinearization {
        let k = &self.stages.k;
        let stages = (0..6)
            .map(|s| {
                let mut stage = vec![0.0; self.x_old.len()];
                stage_state(&self.x_old, self.h, &A[s], &k[..s], &mut stage);
                stage
            })
            .collect();
        StepLinearization::new(self.t, self.h, &C[..6], &A, &[0.0; 6], stages)
    }
}

impl DormandPrince {
    /// Hairer's stiffness estimate `h |λ|` of the last attempted step, from its last two
    /// stages (both at `t + h`), for [`super::StiffnessDetector`]. Valid until the next attempt.
    pub fn stiffness_estimate(&self) -> f64 {
        let k = &self.stages.k;
        h_lambda(self.h, &self.stage, &self.x_new, &k[5], &k[6])
    }
}

impl Stepper for DormandPrince {
    type Dense = DenseOutput;

    fn name(&self) -> &'static str {
        "dopri5"
    }

    fn reset(&mut self) {
        self.stages.reset();
    }

    fn x_new(&self) -> &[f64] {
        &self.x_new
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
        self.stages.start(ode, t, x)?;
        let k = &mut self.stages.k;
        for s in 1..7 {
            // The last stage state is the new state; writing it there leaves the sixth stage
            // state in `self.stage` for the stiffness estimate.
            let state = if s == 6 {
                &mut self.x_new
            } else {
                &mut self.stage
            };
            stage_state(x, h, &A[s], &k[..s], state);
            ode.derivatives(t + C[s] * h, state, &mut k[s])?;
        }
        let error = tolerances.norm(x, &self.x_new, |i| {
            h * (0..7).map(|j| E[j] * k[j][i]).sum::<f64>()
        });
        self.t = t;
        self.h = h;
        self.x_old.copy_from_slice(x);
        Ok(Attempt::controlled(h, error, ESTIMATE_ORDER, MAX_FACTOR))
    }

    fn dense_output(&self, dense: &mut DenseOutput) {
        let n = self.x_new.len();
        let (h, k) = (self.h, &self.stages.k);
        for coefficient in &mut dense.coefficients {
            coefficient.resize(n, 0.0);
        }
        let [r1, r2, r3, r4, r5] = &mut dense.coefficients;
        for (i, (&new, &old)) in self.x_new.iter().zip(&self.x_old).enumerate() {
            let difference = new - old;
            let spline = h * k[0][i] - difference;
            r1[i] = old;
            r2[i] = difference;
            r3[i] = spline;
            r4[i] = difference - h * k[6][i] - spline;
            r5[i] = h * (0..7).map(|j| D[j] * k[j][i]).sum::<f64>();
        }
        dense.t0 = self.t;
        dense.h = h;
    }

    /// The last stage becomes the first stage of the next step (first same as last).
    fn accept(&mut self) {
        self.stages.accept();
    }
}
