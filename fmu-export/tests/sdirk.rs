//! The ESDIRK method (the `Sdirk` integrator) on non-stiff and stiff problems with
//! closed-form solutions.

mod common;

use common::{orders, oscillator_exact, simulate, Oscillator, MASS, STIFFNESS};
use fmu_export::integrators::{
    DifferentiableScheme, MechanicalIntegrator, Scheme, Sdirk, SdirkScheme, StepContext,
};
use fmu_export::jacobian::jacobian;
use fmu_export::linear::Lu;
use fmu_export::{
    Args, Declaration, MechanicalSystem, Method, OdeModel, OdeSystem, Scalar, StepInputs, System,
    Var,
};

/// `x' = -k x`.
#[derive(Default)]
struct Decay;

impl OdeModel for Decay {
    fn declaration(&self) -> Declaration {
        Declaration::new("decay", "")
            .state(Var::new("x", 1.0))
            .output(Var::new("y", 0.0))
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
        Declaration::new("stiff_linear", "")
            .state(Var::new("x1", 1.0))
            .state(Var::new("x2", 1.0))
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
    [
        (x10 + x20 / 999.0) * (-t).exp() - x20 / 999.0 * fast,
        x20 * fast,
    ]
}

fn sdirk<M: OdeModel>(rtol: f64, atol: f64, max_step: f64) -> (OdeSystem<M>, Sdirk) {
    let sys = OdeSystem::<M>::default();
    let declaration = sys
        .declaration()
        .clone()
        .cosimulation(Method::Sdirk { rtol, atol }, max_step);
    let integrator = Sdirk::new(&declaration);
    (sys, integrator)
}

/// Integrates the decay `x' = -2 x` over [0, 3] s in communication steps of `communication`
/// and returns the largest error at the communication points and the internal step count.
fn decay(tol: f64, communication: f64) -> (f64, usize) {
    let (sys, mut integrator) = sdirk::<Decay>(tol, tol, 0.5);
    let mut error = 0.0f64;
    let report = simulate(
        &sys,
        &mut integrator,
        &[1.0],
        3.0,
        communication,
        &[],
        &[2.0],
        &mut [],
        |t, x, _| error = error.max((x[0] - (-2.0 * t).exp()).abs()),
    );
    (error, report.internal_steps)
}

#[test]
fn decay_error_follows_the_tolerance() {
    let mut errors = Vec::new();
    for tol in [1e-6, 1e-8, 1e-10] {
        let (error, steps) = decay(tol, 0.5);
        println!("tol {tol:e}: error {error:e}, {steps} steps");
        // Each step's local error is held within atol + rtol |x| <= 2 tol (x <= 1); the
        // global error of this contractive problem stays within that weight.
        assert!(error < 2.0 * tol, "tol {tol:e}: error {error:e}");
        errors.push(error);
    }
    // Tightening the tolerance 100-fold must buy at least a 30-fold smaller error.
    assert!(errors.windows(2).all(|e| e[0] > 30.0 * e[1]), "{errors:?}");
}

#[test]
fn step_counts_grow_like_the_fourth_root_of_the_inverse_tolerance() {
    // One communication step, so that only the error control sets the internal steps.
    let steps: Vec<usize> = [1e-6, 1e-8, 1e-10]
        .iter()
        .map(|&tol| decay(tol, 3.0).1)
        .collect();
    println!("steps at tol 1e-6, 1e-8, 1e-10: {steps:?}");
    // A 100-fold tighter tolerance costs 100^(1/4) ~ 3.2 times the steps for a third-order
    // estimate (a first-order one would cost 10 times).
    for pair in steps.windows(2) {
        let ratio = pair[1] as f64 / pair[0] as f64;
        assert!((2.5..=4.0).contains(&ratio), "{steps:?}");
    }
}

/// `x' = x^2 cos t`: nonlinear and time-dependent, so that every order condition matters.
#[derive(Default)]
struct Riccati;

impl OdeModel for Riccati {
    fn declaration(&self) -> Declaration {
        Declaration::new("riccati", "").state(Var::new("x", 0.5))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = a.x[0] * a.x[0] * a.t.cos();
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

/// Closed form from `x(0) = 1/2`: `1/x = 2 - sin t`.
fn riccati_exact(t: f64) -> f64 {
    1.0 / (2.0 - t.sin())
}

#[test]
fn fixed_steps_converge_with_order_four() {
    // Tolerances so loose that every step is accepted at max_step.
    let errors: Vec<f64> = [0.2, 0.1, 0.05]
        .iter()
        .map(|&h| {
            let (sys, mut integrator) = sdirk::<Riccati>(1e6, 1e6, h);
            let mut error = 0.0f64;
            let report = simulate(
                &sys,
                &mut integrator,
                &[0.5],
                2.0,
                0.4,
                &[],
                &[],
                &mut [],
                |t, x, _| error = error.max((x[0] - riccati_exact(t)).abs()),
            );
            assert_eq!(report.internal_steps, (2.0 / h).round() as usize);
            error
        })
        .collect();
    let observed = orders(&errors);
    println!("errors {errors:?}, orders {observed:?}");
    assert!(
        observed.iter().all(|o| (3.8..=4.2).contains(o)),
        "{observed:?}"
    );
}

/// Free fall `h' = v`, `v' = -g`: a quadratic solution, which both the method and its
/// embedded solution reproduce exactly.
#[derive(Default)]
struct FreeFall;

impl OdeModel for FreeFall {
    fn declaration(&self) -> Declaration {
        Declaration::new("free_fall", "")
            .state(Var::new("h", 1.0))
            .state(Var::new("v", 0.0))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = a.x[1];
        dx[1] = T::cst(-9.81);
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

#[test]
fn a_quadratic_solution_is_integrated_exactly_at_the_largest_step() {
    let (sys, mut integrator) = sdirk::<FreeFall>(1e-8, 1e-10, 0.01);
    let mut error = 0.0f64;
    let report = simulate(
        &sys,
        &mut integrator,
        &[1.0, 0.0],
        0.4,
        0.1,
        &[],
        &[],
        &mut [],
        |t, x, _| {
            error = error.max((x[0] - (1.0 - 0.5 * 9.81 * t * t)).abs());
        },
    );
    println!("error {error:e}, {} steps", report.internal_steps);
    // The error estimate sees only rounding, so the controller stays at max_step.
    assert_eq!(report.internal_steps, 40);
    assert!(error < 1e-14, "{error:e}");
}

#[test]
fn a_stiff_nonlinear_transient_is_resolved_in_few_steps() {
    let tol = 1e-6;
    let (sys, mut integrator) = sdirk::<ProtheroRobinson>(tol, tol, 0.1);
    let mut error = 0.0f64;
    let report = simulate(
        &sys,
        &mut integrator,
        &[1.0],
        2.0,
        0.1,
        &[],
        &[],
        &mut [],
        |t, x, _| {
            error = error.max((x[0] - prothero_robinson_exact(1.0, t)).abs());
        },
    );
    println!("error {error:e}, {} steps", report.internal_steps);
    assert!(error < tol, "{error:e}");
    // An explicit method would need about mu * T = 2e6 steps for stability; the step count
    // here is set by the initial transient and the accuracy of the smooth part.
    assert!(
        report.internal_steps < 300,
        "{} steps",
        report.internal_steps
    );
}

#[test]
fn a_stiff_linear_system_matches_its_matrix_exponential() {
    let tol = 1e-7;
    let (sys, mut integrator) = sdirk::<StiffLinear>(tol, tol, 0.1);
    let mut error = 0.0f64;
    let report = simulate(
        &sys,
        &mut integrator,
        &[1.0, 1.0],
        5.0,
        0.01,
        &[],
        &[],
        &mut [],
        |t, x, _| {
            let exact = stiff_linear_exact(t);
            error = error
                .max((x[0] - exact[0]).abs())
                .max((x[1] - exact[1]).abs());
        },
    );
    println!("error {error:e}, {} steps", report.internal_steps);
    assert!(error < tol, "{error:e}");
}

#[test]
fn sdirk_integrates_a_mechanical_model_in_first_order_form() {
    let sys = MechanicalSystem::<Oscillator>::default();
    let method = Method::Sdirk {
        rtol: 1e-8,
        atol: 1e-10,
    };
    let declaration = sys.declaration().clone().cosimulation(method, 1e-2);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let p = [MASS, STIFFNESS, 3.0];
    let mut error = 0.0f64;
    simulate(
        &sys,
        &mut integrator,
        &[0.01, 0.0],
        1.0,
        0.1,
        &[0.0],
        &p,
        &mut [],
        |t, x, _| {
            error =
                error.max((x[0] - oscillator_exact(MASS, STIFFNESS, 3.0, 0.01, 0.0, t).0).abs());
        },
    );
    println!("error {error:e}");
    assert!(error < 1e-7, "{error:e}");
}

/// Takes one step of `h` from `(t, x)` and checks that its residual vanishes (the explicit rows
/// to rounding, the implicit ones up to a Newton correction of at most 1e-10 relative) and that
/// the residual's derivatives with respect to `w_prev` and to the unknowns `w_next[..7N]`
/// match central differences.
fn check_step_residual<S: System>(sys: &S, x: &[f64], t: f64, h: f64, tol: f64) {
    let n = x.len();
    let scheme = SdirkScheme::new(n, tol, tol, 0.1);
    let (len, rows) = (scheme.state_len(), scheme.residual_len());
    assert_eq!((len, rows), (7 * n + 2, 7 * n));
    let inputs = StepInputs::held(t, &[]);
    let mut w_prev = vec![0.0; len];
    scheme
        .start(sys, t, x, &inputs, &[], &[], &mut w_prev)
        .unwrap();
    let mut w_next = vec![0.0; len];
    let cx = StepContext {
        sys,
        u: &inputs,
        p: &[],
        d: &[],
    };
    scheme.step(&cx, t, h, &w_prev, &mut w_next).unwrap();
    let residual = |w_next: &[f64], w_prev: &[f64]| {
        let mut r = vec![0.0; rows];
        scheme.residual(sys, t, h, w_next, w_prev, &inputs, &[], &[], &mut r);
        r
    };
    let r = residual(&w_next, &w_prev);
    // The explicit first stage is solved exactly, and so is the update row.
    let size = w_next[n..rows].iter().fold(1.0f64, |m, v| m.max(v.abs()));
    assert!(r[..n].iter().all(|v| v.abs() <= 1e-14 * size), "{r:?}");
    assert!(r[6 * n..].iter().all(|&v| v == 0.0), "{r:?}");
    let dual_inputs = StepInputs {
        t0: t,
        coefficients: vec![vec![]],
    };
    let (by_prev, _) = jacobian(&w_prev, rows, |w, r| {
        let next: Vec<_> = w_next.iter().map(|&v| w[0] * 0.0 + v).collect();
        scheme.residual(sys, t, h, &next, w, &dual_inputs, &[], &[], r);
    });
    let (by_next, _) = jacobian(&w_next[..rows], rows, |w, r| {
        let mut next: Vec<_> = w_next.iter().map(|&v| w[0] * 0.0 + v).collect();
        next[..rows].copy_from_slice(w);
        let prev: Vec<_> = w_prev.iter().map(|&v| w[0] * 0.0 + v).collect();
        scheme.residual(sys, t, h, &next, &prev, &dual_inputs, &[], &[], r);
    });
    for (exact, of_next, columns) in [(&by_prev, false, len), (&by_next, true, rows)] {
        for j in 0..columns {
            let (mut plus, mut minus) = if of_next {
                (w_next.clone(), w_next.clone())
            } else {
                (w_prev.clone(), w_prev.clone())
            };
            let step = 1e-6 * plus[j].abs().max(1.0);
            plus[j] += step;
            minus[j] -= step;
            let (rp, rm) = if of_next {
                (residual(&plus, &w_prev), residual(&minus, &w_prev))
            } else {
                (residual(&w_next, &plus), residual(&w_next, &minus))
            };
            for i in 0..rows {
                let fd = (rp[i] - rm[i]) / (2.0 * step);
                let scale = exact[i * columns + j].abs().max(1.0);
                assert!(
                    (fd - exact[i * columns + j]).abs() < 1e-5 * scale,
                    "({i},{j})"
                );
            }
        }
    }
    // Converged: a full Newton step on the step residual would move x_next, and the stage
    // derivatives times h, by at most 1e-10 relative.
    let mut correction: Vec<f64> = r.iter().map(|v| -v).collect();
    Lu::factor(by_next, rows).unwrap().solve(&mut correction);
    let largest = |v: &[f64]| v.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let moved = largest(&correction[..n]).max(h * largest(&correction[n..]));
    let scale = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    println!(
        "largest residual {:e}, Newton correction {moved:e}",
        largest(&r)
    );
    assert!(moved <= 1e-10 * scale, "{moved:e}");
    // Only x_prev enters: -I in the update rows, nothing from the old stages or control data.
    for i in 0..n {
        let row = &by_prev[(6 * n + i) * len..(6 * n + i + 1) * len];
        assert!(row
            .iter()
            .enumerate()
            .all(|(j, &v)| v == if j == i { -1.0 } else { 0.0 }));
    }
    assert!(by_prev
        .chunks(len)
        .all(|row| row[n..].iter().all(|&v| v == 0.0)));
}

#[test]
fn the_step_residual_vanishes_and_its_derivatives_match_finite_differences() {
    check_step_residual(
        &OdeSystem::<StiffLinear>::default(),
        &[0.7, -0.2],
        0.3,
        0.05,
        1e-8,
    );
    // Stiff and nonlinear, off the smooth solution: x = sin t + 1e-3.
    let pr = OdeSystem::<ProtheroRobinson>::default();
    check_step_residual(&pr, &[0.3f64.sin() + 1e-3], 0.3, 1e-3, 1e-6);
}

/// `x' = -x`, undefined (NaN) after `t = 0.5`.
#[derive(Default)]
struct Breaks;

impl OdeModel for Breaks {
    fn declaration(&self) -> Declaration {
        Declaration::new("breaks", "")
            .state(Var::new("x", 1.0))
            .discrete(
                Var::new("marker", 3.0),
                fmu_export::DiscreteType::Real,
                fmu_export::DiscreteRole::Local,
            )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = if a.t.real() > 0.5 {
            T::cst(f64::NAN)
        } else {
            -a.x[0]
        };
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
}

#[test]
fn a_failed_step_reports_why_and_leaves_the_state_untouched() {
    use fmu_export::{Integrator, StepError};
    let (sys, mut integrator) = sdirk::<Breaks>(1e-6, 1e-8, 0.1);
    let mut d = [3.0];
    let inputs = StepInputs::held(0.0, &[]);
    integrator
        .initialize(&sys, 0.0, &[1.0], &inputs, &[], &d)
        .unwrap();
    integrator
        .do_step(&sys, 0.0, 0.4, &inputs, &[], &mut d)
        .unwrap();
    let before = Integrator::<OdeSystem<Breaks>>::state(&integrator).to_vec();
    let error = integrator
        .do_step(&sys, 0.4, 0.2, &inputs, &[], &mut d)
        .unwrap_err();
    assert!(
        matches!(error, StepError::NonFinite { t } if (t - 0.5).abs() < 1e-6),
        "{error}"
    );
    assert_eq!(
        Integrator::<OdeSystem<Breaks>>::state(&integrator),
        &before[..]
    );
    assert_eq!(d, [3.0]);
}

#[test]
fn an_unreachable_tolerance_ends_in_a_too_small_step() {
    use fmu_export::{Integrator, StepError};
    // Even rounding noise exceeds an absolute tolerance of 1e-300.
    let (sys, mut integrator) = sdirk::<Decay>(0.0, 1e-300, 0.1);
    let inputs = StepInputs::held(0.0, &[]);
    integrator
        .initialize(&sys, 0.0, &[1.0], &inputs, &[2.0], &[])
        .unwrap();
    let before = Integrator::<OdeSystem<Decay>>::state(&integrator).to_vec();
    let error = integrator
        .do_step(&sys, 0.0, 0.5, &inputs, &[2.0], &mut [])
        .unwrap_err();
    assert!(
        matches!(error, StepError::StepTooSmall { t, h } if t == 0.0 && h < 64.0 * f64::EPSILON),
        "{error}"
    );
    assert_eq!(
        Integrator::<OdeSystem<Decay>>::state(&integrator),
        &before[..]
    );
}
