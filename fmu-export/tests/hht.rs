//! HHT-alpha against closed-form and constrained references.

mod common;

use common::{orders, oscillator_exact, simulate, Oscillator, MASS, STIFFNESS};
use fmu_export::integrators::{
    DifferentiableScheme, Hht, MechanicalIntegrator, Scheme, StepContext,
};
use fmu_export::jacobian::jacobian;
use fmu_export::{
    Declaration, Integrator, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar,
    StepInputs, System, Var,
};

/// Largest error of `(q, v / omega)` over communication points 0.1 s apart up to 1 s.
fn oscillator_error(method: Method, h: f64, damping: f64) -> f64 {
    let sys = MechanicalSystem::<Oscillator>::default();
    let declaration = sys.declaration().clone().cosimulation(method, h);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let p = [MASS, STIFFNESS, damping];
    let omega = (STIFFNESS / MASS).sqrt();
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
            let (q, v) = oscillator_exact(MASS, STIFFNESS, damping, 0.01, 0.0, t);
            error = error.max((x[0] - q).abs()).max(((x[1] - v) / omega).abs());
        },
    );
    error
}

#[test]
fn hht_converges_with_order_two_on_the_oscillator() {
    for alpha in [0.0, -0.1, -0.3] {
        for damping in [0.0, 3.0] {
            let errors: Vec<f64> = [4e-3, 2e-3, 1e-3]
                .iter()
                .map(|&h| oscillator_error(Method::Hht { alpha }, h, damping))
                .collect();
            let observed = orders(&errors);
            println!("alpha {alpha}, d {damping}: errors {errors:?}, orders {observed:?}");
            assert!(
                observed.iter().all(|o| (1.8..=2.2).contains(o)),
                "{observed:?}"
            );
        }
    }
}

#[test]
fn symplectic_euler_converges_with_order_one_on_the_oscillator() {
    for damping in [0.0, 3.0] {
        let errors: Vec<f64> = [1e-3, 5e-4, 2.5e-4]
            .iter()
            .map(|&h| oscillator_error(Method::SymplecticEuler, h, damping))
            .collect();
        let observed = orders(&errors);
        println!("d {damping}: errors {errors:?}, orders {observed:?}");
        assert!(
            observed.iter().all(|o| (0.8..=1.2).contains(o)),
            "{observed:?}"
        );
    }
}

#[test]
fn symplectic_euler_keeps_the_energy_error_bounded() {
    let sys = MechanicalSystem::<Oscillator>::default();
    let h = 1e-3;
    let declaration = sys
        .declaration()
        .clone()
        .cosimulation(Method::SymplecticEuler, h);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let p = [MASS, STIFFNESS, 0.0];
    let energy = |x: &[f64]| 0.5 * MASS * x[1] * x[1] + 0.5 * STIFFNESS * x[0] * x[0];
    let e0 = energy(&[0.01, 0.0]);
    let (mut early, mut late) = (0.0f64, 0.0f64);
    simulate(
        &sys,
        &mut integrator,
        &[0.01, 0.0],
        50.0,
        0.01,
        &[0.0],
        &p,
        &mut [],
        |t, x, _| {
            let deviation = (energy(x) - e0).abs() / e0;
            if t <= 5.0 {
                early = early.max(deviation);
            } else if t > 45.0 {
                late = late.max(deviation);
            }
        },
    );
    let omega_h = (STIFFNESS / MASS).sqrt() * h;
    println!("relative energy error: first 5 s {early:e}, last 5 s {late:e}, omega h {omega_h:e}");
    // Symplectic: an O(omega h) oscillation that does not grow over ~110 periods.
    assert!(early > 0.0 && early <= omega_h, "{early}");
    assert!(late <= 1.05 * early, "{late} vs {early}");
}

/// A pendulum of length 1 in Cartesian coordinates (the constraint keeps it on the circle).
#[derive(Default)]
struct Pendulum;

impl MechanicalModel for Pendulum {
    fn declaration(&self) -> Declaration {
        Declaration::new("pendulum", "")
            .state(Var::new("x", 1.0))
            .state(Var::new("y", 0.0))
            .state(Var::new("vx", 0.0))
            .state(Var::new("vy", 0.5))
            .output(Var::new("lambda", 0.0))
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass_matrix<T: Scalar>(&self, _a: &MechArgs<T>, m: &mut [T]) {
        m[0] = T::cst(2.0);
        m[3] = T::cst(2.0);
    }
    fn forces<T: Scalar>(&self, _a: &MechArgs<T>, f: &mut [T]) {
        f[1] = T::cst(-2.0 * 9.81);
    }
    fn constraints<T: Scalar>(&self, _t: T, q: &[T], _p: &[T], c: &mut [T]) {
        c[0] = (q[0] * q[0] + q[1] * q[1] - T::cst(1.0)) * T::cst(0.5);
    }
    fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, _acc: &[T], l: &[T], y: &mut [T]) {
        y[0] = l[0];
    }
}

#[test]
fn hht_keeps_the_pendulum_on_its_constraint() {
    let sys = MechanicalSystem::<Pendulum>::default();
    let x0 = sys.declaration().state_starts();
    let energy = |x: &[f64]| (x[2] * x[2] + x[3] * x[3]) + 2.0 * 9.81 * x[1];
    for alpha in [0.0, -0.1, -0.3] {
        let declaration = sys
            .declaration()
            .clone()
            .cosimulation(Method::Hht { alpha }, 1e-3);
        let mut integrator = MechanicalIntegrator::new(&declaration, 2, 1);
        let (mut worst, mut drift) = (0.0f64, 0.0f64);
        simulate(
            &sys,
            &mut integrator,
            &x0,
            1.0,
            0.01,
            &[],
            &[],
            &mut [],
            |_, x, _| {
                worst = worst.max((0.5 * (x[0] * x[0] + x[1] * x[1] - 1.0)).abs());
                drift = drift.max((energy(x) - energy(&x0)).abs());
            },
        );
        println!("alpha {alpha}: max |C| {worst:e}, max |E - E0| {drift:e}");
        assert!(
            worst < 1e-10,
            "alpha {alpha}: constraint residual {worst:e}"
        );
        // The pendulum falls by ~1 m (potential energy change ~20 J); the step error of the
        // energy stays four orders of magnitude below that.
        assert!(drift < 5e-4, "alpha {alpha}: energy drift {drift:e}");
        let mut y = [0.0];
        Integrator::<MechanicalSystem<Pendulum>>::outputs(
            &integrator,
            &sys,
            1.0,
            &[],
            &[],
            &[],
            &mut y,
        );
        assert!(y[0].is_finite() && y[0] != 0.0, "multiplier output {y:?}");
    }
}

/// The engine mount of Lauß et al. (2018) with the project's default parameters: a massless
/// coordinate (singular mass matrix) coupled by a lever constraint.
#[derive(Default)]
struct EngineMount;

const G: f64 = 9.81;
const LEVER: (f64, f64) = (1.0, 9.0);

impl MechanicalModel for EngineMount {
    fn declaration(&self) -> Declaration {
        let mut declaration = Declaration::new("engine_mount", "");
        for name in ["x1", "x2", "x3", "x4", "v1", "v2", "v3", "v4"] {
            declaration = declaration.state(Var::new(name, 0.0));
        }
        declaration
    }
    fn constraint_count(&self) -> usize {
        1
    }
    fn mass_matrix<T: Scalar>(&self, _a: &MechArgs<T>, m: &mut [T]) {
        m[0] = T::cst(50.0);
        m[10] = T::cst(0.05);
        m[15] = T::cst(0.3);
    }
    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let (q, v) = (a.q, a.v);
        let (c_h, c_m, d_m, d_h1) = (3.0e5, 5.0e4, 5.0, 5.0);
        let (c_e1, c_e2, d_e, d_h2) = (2.0e5, 5.0e9, 200.0, 10.0);
        let sweep = (a.t * T::cst(25f64.ln())).exp() * a.t * T::cst(4.0 * std::f64::consts::PI);
        let elastomer = q[0] * c_e1 + q[0].powi(3) * c_e2 + v[0] * d_e;
        let bulge = (q[0] - q[1]) * c_h;
        f[0] = sweep.sin() * 100.0 + T::cst(50.0 * G) - elastomer - bulge;
        f[1] = bulge;
        f[2] = -(q[2] * c_m + v[2] * d_m);
        f[3] = -(v[3] * d_h1 + v[3].powi(3) * d_h2);
    }
    fn constraints<T: Scalar>(&self, _t: T, q: &[T], _p: &[T], c: &mut [T]) {
        let (a, b) = LEVER;
        c[0] = q[1] * (a + b) - q[2] * b - q[3] * a;
    }
    fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, _acc: &[T], _l: &[T], _y: &mut [T]) {}
}

#[test]
fn hht_starts_and_runs_the_engine_mount_with_a_singular_mass_matrix() {
    let sys = MechanicalSystem::<EngineMount>::default();
    let declaration = sys
        .declaration()
        .clone()
        .cosimulation(Method::Hht { alpha: -0.1 }, 1e-4);
    let mut integrator = MechanicalIntegrator::new(&declaration, 4, 1);
    let x0 = [0.0; 8];
    let mut worst = 0.0f64;
    let mut largest = 0.0f64;
    let report = simulate(
        &sys,
        &mut integrator,
        &x0,
        0.1,
        0.01,
        &[],
        &[],
        &mut [],
        |_, x, _| {
            let (a, b) = LEVER;
            worst = worst.max((x[1] * (a + b) - x[2] * b - x[3] * a).abs());
            largest = largest.max(x[0].abs());
        },
    );
    assert_eq!(report.internal_steps, 1000);
    println!("max |C| {worst:e}, max |x1| {largest:e}");
    assert!(worst < 1e-14, "{worst:e}");
    assert!(
        largest > 1e-4 && largest < 1e-2,
        "the load must move under gravity: {largest:e}"
    );
}

/// Largest error of the oscillator started from rest under the ramp `F = r t`, which reaches
/// each communication step as a first-order Taylor polynomial (zero force at the start).
fn ramp_error(method: Method, h: f64) -> f64 {
    // m q'' + c q = r t from rest: q = (r / c) (t - sin(omega t) / omega).
    let sys = MechanicalSystem::<Oscillator>::default();
    let (rate, omega) = (100.0, (STIFFNESS / MASS).sqrt());
    let exact = |t: f64| {
        let amplitude = rate / STIFFNESS;
        (
            amplitude * (t - (omega * t).sin() / omega),
            amplitude * (1.0 - (omega * t).cos()),
        )
    };
    let p = [MASS, STIFFNESS, 0.0];
    let declaration = sys.declaration().clone().cosimulation(method, h);
    let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
    let ramp = |t: f64| StepInputs {
        t0: t,
        coefficients: vec![vec![rate * t], vec![rate]],
    };
    integrator
        .initialize(&sys, 0.0, &[0.0, 0.0], &ramp(0.0), &p, &[])
        .unwrap();
    let (mut x, mut error) = ([0.0; 2], 0.0f64);
    for k in 0..50 {
        let t = k as f64 * 0.02;
        integrator
            .do_step(&sys, t, 0.02, &ramp(t), &p, &mut [])
            .unwrap();
        Integrator::<MechanicalSystem<Oscillator>>::continuous_state(&integrator, &mut x);
        let (q, v) = exact(t + 0.02);
        error = error.max((x[0] - q).abs()).max(((x[1] - v) / omega).abs());
    }
    error
}

#[test]
fn a_start_from_rest_follows_a_ramped_input_with_the_method_order() {
    for (method, order) in [
        (Method::Hht { alpha: -0.1 }, 2.0),
        (Method::SymplecticEuler, 1.0),
    ] {
        let errors: Vec<f64> = [2e-3, 1e-3, 5e-4]
            .iter()
            .map(|&h| ramp_error(method, h))
            .collect();
        let observed = orders(&errors);
        println!("{method:?}: errors {errors:?}, orders {observed:?}");
        assert!(
            observed.iter().all(|o| (o - order).abs() <= 0.2),
            "{method:?}: {observed:?}"
        );
    }
}

#[test]
fn the_consistent_start_and_the_step_residual_are_right() {
    let sys = MechanicalSystem::<EngineMount>::default();
    let hht = Hht::new(-0.1, 4, 1, 1e-4);
    let inputs = StepInputs::held(0.0, &[]);
    let mut w0 = vec![0.0; 13];
    hht.start(&sys, 0.0, &[0.0; 8], &inputs, &[], &[], &mut w0)
        .unwrap();
    let expected = [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, G, 0.0, 0.0, 0.0, 0.0,
    ];
    assert!(
        w0.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12),
        "{w0:?}"
    );
    let mut w1 = vec![0.0; 13];
    let cx = StepContext {
        sys: &sys,
        u: &inputs,
        p: &[],
        d: &[],
    };
    hht.step(&cx, 0.0, 1e-4, &w0, &mut w1).unwrap();
    let mut r = vec![0.0; 13];
    hht.residual(&sys, 0.0, 1e-4, &w1, &w0, &inputs, &[], &[], &mut r);
    // Rows 1-2 are in m and m/s; 3 in N; 4 in m / (beta h^2).
    assert!(r.iter().all(|v| v.abs() < 1e-9), "{r:?}");
}

#[test]
fn residual_derivatives_match_finite_differences() {
    // dF/dw_prev and dF/du for the oscillator: the quantities a discrete adjoint needs.
    let sys = MechanicalSystem::<Oscillator>::default();
    let hht = Hht::new(-0.3, 1, 0, 1e-3);
    let (h, t) = (1e-3, 0.2);
    let w_next = [0.011, 0.3, -2.0];
    let w_prev = [0.0105, 0.31, -1.9];
    let p = [MASS, STIFFNESS, 3.0];
    let residual = |w_prev: &[f64], force: f64| {
        let mut r = [0.0; 3];
        let u = StepInputs::held(t, &[force]);
        hht.residual(&sys, t, h, &w_next, w_prev, &u, &p, &[], &mut r);
        r
    };
    let mut seed = w_prev.to_vec();
    seed.push(0.7);
    let (exact, _) = jacobian(&seed, 3, |x, r| {
        let w_next: Vec<_> = w_next.iter().map(|&v| x[0] * 0.0 + v).collect();
        let pd: Vec<_> = p.iter().map(|&v| x[0] * 0.0 + v).collect();
        let u = StepInputs {
            t0: t,
            coefficients: vec![vec![x[3]]],
        };
        hht.residual(&sys, t, h, &w_next, &x[..3], &u, &pd, &[], r);
    });
    for j in 0..4 {
        let step = 1e-6 * seed[j].abs().max(1.0);
        let (mut plus, mut minus) = (seed.clone(), seed.clone());
        plus[j] += step;
        minus[j] -= step;
        let (rp, rm) = (
            residual(&plus[..3], plus[3]),
            residual(&minus[..3], minus[3]),
        );
        for i in 0..3 {
            let fd = (rp[i] - rm[i]) / (2.0 * step);
            let scale = exact[i * 4 + j].abs().max(1.0);
            assert!(
                (fd - exact[i * 4 + j]).abs() < 1e-6 * scale,
                "({i},{j}): {fd} vs {}",
                exact[i * 4 + j]
            );
        }
    }
}

#[test]
fn a_singular_augmented_matrix_is_reported_at_the_start() {
    use fmu_export::StepError;
    let sys = MechanicalSystem::<Oscillator>::default();
    let p = [0.0, STIFFNESS, 0.0]; // zero mass, no constraint: no consistent acceleration
    for method in [Method::Hht { alpha: -0.1 }, Method::SymplecticEuler] {
        let declaration = sys.declaration().clone().cosimulation(method, 1e-3);
        let mut integrator = MechanicalIntegrator::new(&declaration, 1, 0);
        let inputs = StepInputs::held(0.5, &[0.0]);
        let result = integrator
            .initialize(&sys, 0.5, &[0.01, 0.0], &inputs, &p, &[])
            .and_then(|_| {
                integrator
                    .do_step(&sys, 0.5, 0.01, &inputs, &p, &mut [])
                    .map(|_| ())
            });
        assert_eq!(result, Err(StepError::Singular { t: 0.5 }), "{method:?}");
    }
}
