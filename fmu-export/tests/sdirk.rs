//! SDIRK on non-stiff and stiff problems with closed-form solutions.

mod common;

use common::{orders, oscillator_exact, simulate, Oscillator, MASS, STIFFNESS};
use fmu_export::integrators::{MechanicalIntegrator, Scheme, Sdirk, SdirkScheme};
use fmu_export::jacobian::jacobian;
use fmu_export::{
    Args, Declaration, MechanicalSystem, Method, OdeModel, OdeSystem, Scalar, StepInputs, System,
    Var,
};

/// `x' = -k x`.
#[derive(Default)]
struct Decay;

impl OdeModel for Decay {
    fn declaration(&self) -> Declaration {
        Declaration::new("decay", "").state(Var::new("x", 1.0)).output(Var::new("y", 0.0))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = -a.p[0] * a.x[0];
    }
    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[0] * 2.0;
    }
}

/// Nonlinear Prothero-Robinson problem `x' = cos t - mu (e + e^3)`, `e = x - sin t`.
#[derive(Default)]
struct ProtheroRobinson;

const MU: f64 = 1e6;

impl OdeModel for ProtheroRobinson {
    fn declaration(&self) -> Declaration {
        Declaration::new("prothero_robinson", "").state(Var::new("x", 1.0))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let e = a.x[0] - a.t.sin();
        dx[0] = a.t.cos() - (e + e.powi(3)) * MU;
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

/// Closed form: `e^2 = 1 / ((1/e0^2 + 1) exp(2 mu t) - 1)`, with `e0 = x0` at `t = 0`.
fn prothero_robinson_exact(x0: f64, t: f64) -> f64 {
    let growth = (1.0 / (x0 * x0) + 1.0) * (2.0 * MU * t).exp() - 1.0;
    t.sin() + x0.signum() / growth.sqrt()
}

/// A stiff linear system with eigenvalues -1 and -1000: `x1' = -x1 + x2`, `x2' = -1000 x2`.
#[derive(Default)]
struct StiffLinear;

impl OdeModel for StiffLinear {
    fn declaration(&self) -> Declaration {
        Declaration::new("stiff_linear", "").state(Var::new("x1", 1.0)).state(Var::new("x2", 1.0))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = -a.x[0] + a.x[1];
        dx[1] = a.x[1] * -1000.0;
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

fn stiff_linear_exact(t: f64) -> [f64; 2] {
    let (x10, x20) = (1.0, 1.0);
    let fast = (-1000.0 * t).exp();
    [(x10 + x20 / 999.0) * (-t).exp() - x20 / 999.0 * fast, x20 * fast]
}

fn sdirk<M: OdeModel>(rtol: f64, atol: f64, max_step: f64) -> (OdeSystem<M>, Sdirk) {
    let sys = OdeSystem::<M>::default();
    let declaration =
        sys.declaration().clone().cosimulation(Method::Sdirk { rtol, atol }, max_step);
    let integrator = Sdirk::new(&declaration);
    (sys, integrator)
}

#[test]
fn decay_error_follows_the_tolerance() {
    let mut errors = Vec::new();
    for tol in [1e-4, 1e-6, 1e-8] {
        let (sys, mut integrator) = sdirk::<Decay>(tol, tol, 0.5);
        let mut error = 0.0f64;
        let report =
            simulate(&sys, &mut integrator, &[1.0], 3.0, 0.1, &[], &[2.0], &mut [], |t, x, _| {
                error = error.max((x[0] - (-2.0 * t).exp()).abs());
            });
        println!("tol {tol:e}: error {error:e}, {} steps", report.internal_steps);
        assert!(error < tol, "tol {tol:e}: error {error:e}");
        errors.push(error);
    }
    // Tightening the tolerance 100-fold must buy at least a 30-fold smaller error.
    assert!(errors.windows(2).all(|e| e[0] > 30.0 * e[1]), "{errors:?}");
}

#[test]
fn fixed_steps_converge_with_order_two() {
    // Tolerances so loose that every step is accepted at max_step.
    let errors: Vec<f64> = [0.1, 0.05, 0.025]
        .iter()
        .map(|&h| {
            let (sys, mut integrator) = sdirk::<Decay>(1e6, 1e6, h);
            let mut error = 0.0f64;
            let report = simulate(
                &sys,
                &mut integrator,
                &[1.0],
                2.0,
                0.5,
                &[],
                &[1.0],
                &mut [],
                |t, x, _| {
                    error = error.max((x[0] - (-t).exp()).abs());
                },
            );
            assert_eq!(report.internal_steps, (2.0 / h).round() as usize);
            error
        })
        .collect();
    let observed = orders(&errors);
    println!("errors {errors:?}, orders {observed:?}");
    assert!(observed.iter().all(|o| (1.8..=2.2).contains(o)), "{observed:?}");
}

#[test]
fn a_stiff_nonlinear_transient_is_resolved_in_few_steps() {
    let tol = 1e-6;
    let (sys, mut integrator) = sdirk::<ProtheroRobinson>(tol, tol, 0.1);
    let mut error = 0.0f64;
    let report = simulate(&sys, &mut integrator, &[1.0], 2.0, 0.1, &[], &[], &mut [], |t, x, _| {
        error = error.max((x[0] - prothero_robinson_exact(1.0, t)).abs());
    });
    println!("error {error:e}, {} steps", report.internal_steps);
    assert!(error < 10.0 * tol, "{error:e}");
    // An explicit method would need about mu * T = 2e6 steps for stability; the step count
    // here is set by the accuracy of the smooth part alone.
    assert!(report.internal_steps < 2000, "{} steps", report.internal_steps);
}

#[test]
fn a_stiff_linear_system_matches_its_matrix_exponential() {
    let tol = 1e-7;
    let (sys, mut integrator) = sdirk::<StiffLinear>(tol, tol, 0.1);
    let mut error = 0.0f64;
    let report =
        simulate(&sys, &mut integrator, &[1.0, 1.0], 5.0, 0.01, &[], &[], &mut [], |t, x, _| {
            let exact = stiff_linear_exact(t);
            error = error.max((x[0] - exact[0]).abs()).max((x[1] - exact[1]).abs());
        });
    println!("error {error:e}, {} steps", report.internal_steps);
    assert!(error < 10.0 * tol, "{error:e}");
}

#[test]
fn sdirk_integrates_a_mechanical_model_in_first_order_form() {
    let sys = MechanicalSystem::<Oscillator>::default();
    let method = Method::Sdirk { rtol: 1e-8, atol: 1e-10 };
    let declaration = sys.declaration().clone().cosimulation(method, 1e-2);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let p = [MASS, STIFFNESS, 3.0];
    let mut error = 0.0f64;
    simulate(&sys, &mut integrator, &[0.01, 0.0], 1.0, 0.1, &[0.0], &p, &mut [], |t, x, _| {
        error = error.max((x[0] - oscillator_exact(MASS, STIFFNESS, 3.0, 0.01, 0.0, t).0).abs());
    });
    println!("error {error:e}");
    assert!(error < 1e-7, "{error:e}");
}

#[test]
fn the_step_residual_vanishes_and_its_derivatives_match_finite_differences() {
    let sys = OdeSystem::<StiffLinear>::default();
    let scheme = SdirkScheme::new(2, 1e-8, 1e-8, 0.1);
    let (t, h) = (0.3, 0.05);
    let inputs = StepInputs::held(t, &[]);
    let mut w_prev = vec![0.0; 7];
    scheme.start(&sys, t, &[0.7, -0.2], &inputs, &[], &[], &mut w_prev).unwrap();
    let mut w_next = vec![0.0; 7];
    scheme.step(&sys, t, h, &w_prev, &inputs, &[], &[], &mut w_next).unwrap();
    let mut r = vec![0.0; 6];
    scheme.residual(&sys, t, h, &w_next, &w_prev, &inputs, &[], &[], &mut r);
    assert!(r.iter().all(|v| v.abs() < 1e-9), "{r:?}");
    let (exact, _) = jacobian(&w_prev, 6, |w, r| {
        let next: Vec<_> = w_next.iter().map(|&v| w[0] * 0.0 + v).collect();
        let u = StepInputs { t0: t, coefficients: vec![vec![]] };
        scheme.residual(&sys, t, h, &next, w, &u, &[], &[], r);
    });
    let n = w_prev.len();
    for j in 0..n {
        let (mut plus, mut minus) = (w_prev.clone(), w_prev.clone());
        plus[j] += 1e-6;
        minus[j] -= 1e-6;
        let (mut rp, mut rm) = (vec![0.0; 6], vec![0.0; 6]);
        scheme.residual(&sys, t, h, &w_next, &plus, &inputs, &[], &[], &mut rp);
        scheme.residual(&sys, t, h, &w_next, &minus, &inputs, &[], &[], &mut rm);
        for i in 0..6 {
            let fd = (rp[i] - rm[i]) / 2e-6;
            let scale = exact[i * n + j].abs().max(1.0);
            assert!((fd - exact[i * n + j]).abs() < 1e-6 * scale, "({i},{j})");
        }
    }
    // Only x_prev enters: -I in the update rows, nothing from the old stages.
    assert_eq!((exact[4 * n], exact[4 * n + 2]), (-1.0, 0.0));
}

/// `x' = -x`, undefined (NaN) after `t = 0.5`.
#[derive(Default)]
struct Breaks;

impl OdeModel for Breaks {
    fn declaration(&self) -> Declaration {
        Declaration::new("breaks", "").state(Var::new("x", 1.0)).discrete(
            Var::new("marker", 3.0),
            fmu_export::DiscreteType::Real,
            fmu_export::DiscreteRole::Local,
        )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = if a.t.real() > 0.5 { T::cst(f64::NAN) } else { -a.x[0] };
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

#[test]
fn a_failed_step_reports_why_and_leaves_the_state_untouched() {
    use fmu_export::{Integrator, StepError};
    let (sys, mut integrator) = sdirk::<Breaks>(1e-6, 1e-8, 0.1);
    let mut d = [3.0];
    let inputs = StepInputs::held(0.0, &[]);
    integrator.initialize(&sys, 0.0, &[1.0], &inputs, &[], &d).unwrap();
    integrator.do_step(&sys, 0.0, 0.4, &inputs, &[], &mut d).unwrap();
    let before = Integrator::<OdeSystem<Breaks>>::state(&integrator).to_vec();
    let error = integrator.do_step(&sys, 0.4, 0.2, &inputs, &[], &mut d).unwrap_err();
    assert!(matches!(error, StepError::NonFinite { t } if (t - 0.5).abs() < 1e-6), "{error}");
    assert_eq!(Integrator::<OdeSystem<Breaks>>::state(&integrator), &before[..]);
    assert_eq!(d, [3.0]);
}
