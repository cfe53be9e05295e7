//! Test models and a communication-step loop shared by the integrator tests.
#![allow(dead_code)]

use fmu_export::{
    Declaration, Integrator, MechArgs, MechanicalModel, StepInputs, StepReport, System, Var,
};

/// Parameters of the 1-DOF oscillator `m a = -c q - d v + F`.
pub const MASS: f64 = 2.0;
pub const STIFFNESS: f64 = 400.0;

/// A 1-DOF mass-spring-damper with an input force.
#[derive(Default)]
pub struct Oscillator;

impl MechanicalModel for Oscillator {
    fn declaration(&self) -> Declaration {
        Declaration::new("oscillator", "m a = -c q - d v + F")
            .state(Var::new("q", 0.01))
            .state(Var::new("v", 0.0))
            .input(Var::new("F", 0.0))
            .parameter(Var::new("m", MASS), fmu_export::Tunability::Fixed)
            .parameter(Var::new("c", STIFFNESS), fmu_export::Tunability::Fixed)
            .parameter(Var::new("d", 0.0), fmu_export::Tunability::Fixed)
            .output(Var::new("acceleration", 0.0))
    }

    fn mass_matrix<T: fmu_export::Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[0];
    }

    fn forces<T: fmu_export::Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = -a.p[1] * a.q[0] - a.p[2] * a.v[0] + a.u[0];
    }

    fn outputs<T: fmu_export::Scalar>(&self, _a: &MechArgs<T>, acc: &[T], _l: &[T], y: &mut [T]) {
        y[0] = acc[0];
    }
}

/// Closed-form free response `(q, v)` of the under-damped oscillator at time `t`.
pub fn oscillator_exact(m: f64, c: f64, d: f64, q0: f64, v0: f64, t: f64) -> (f64, f64) {
    let omega0 = (c / m).sqrt();
    let zeta = d / (2.0 * (c * m).sqrt());
    let omega = omega0 * (1.0 - zeta * zeta).sqrt();
    let sigma = zeta * omega0;
    let (a, b) = (q0, (v0 + sigma * q0) / omega);
    let (s, co, e) = ((omega * t).sin(), (omega * t).cos(), (-sigma * t).exp());
    let q = e * (a * co + b * s);
    let v = e * (-sigma * (a * co + b * s) + omega * (-a * s + b * co));
    (q, v)
}

/// Initializes `integrator` at `t = 0` from `x0` and runs communication steps of length
/// `step` up to `t_end` with held inputs `u`; `observe(t, x, d)` runs after each step.
/// Returns the summed step reports.
#[allow(clippy::too_many_arguments)]
pub fn simulate<S: System, I: Integrator<S>>(
    sys: &S,
    integrator: &mut I,
    x0: &[f64],
    t_end: f64,
    step: f64,
    u: &[f64],
    p: &[f64],
    d: &mut [f64],
    mut observe: impl FnMut(f64, &[f64], &[f64]),
) -> StepReport {
    integrator
        .initialize(sys, 0.0, x0, &StepInputs::held(0.0, u), p, d)
        .expect("initialize");
    run(sys, integrator, 0.0, t_end, step, u, p, d, &mut observe)
}

/// Runs communication steps from `t0` to `t_end` (no initialization).
#[allow(clippy::too_many_arguments)]
pub fn run<S: System, I: Integrator<S>>(
    sys: &S,
    integrator: &mut I,
    t0: f64,
    t_end: f64,
    step: f64,
    u: &[f64],
    p: &[f64],
    d: &mut [f64],
    observe: &mut impl FnMut(f64, &[f64], &[f64]),
) -> StepReport {
    let count = ((t_end - t0) / step).round() as usize;
    let mut total = StepReport::default();
    let mut x = vec![0.0; sys.declaration().states.len()];
    for k in 0..count {
        let t = t0 + k as f64 * step;
        let report = integrator
            .do_step(sys, t, step, &StepInputs::held(t, u), p, d)
            .unwrap_or_else(|e| panic!("step from t = {t}: {e}"));
        total.internal_steps += report.internal_steps;
        total.events += report.events;
        integrator.continuous_state(&mut x);
        observe(t0 + (k + 1) as f64 * step, &x, d);
    }
    total
}

/// Observed convergence orders `log2(e_k / e_{k+1})` for errors at halved step sizes.
pub fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect()
}
