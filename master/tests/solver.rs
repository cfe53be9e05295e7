//! The integrator against analytic solutions, its error control, dense output and the
//! location of zero crossings.

use std::convert::Infallible;

use tandem::solver::{integrate, locate_crossing, DormandPrince, Interpolant, Stepper, Tolerances};

fn tolerances(relative: f64, n: usize) -> Tolerances {
    Tolerances {
        relative,
        absolute: vec![relative; n],
    }
}

#[test]
fn exponential_decay_matches_the_analytic_solution() {
    let k = 2.0;
    for relative in [1e-4, 1e-6, 1e-8] {
        let (x, _) = integrate(
            |_t, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
                dx[0] = -k * x[0];
                Ok(())
            },
            0.0,
            &[1.0],
            3.0,
            &tolerances(relative, 1),
        )
        .unwrap();
        let exact = (-k * 3.0f64).exp();
        // Absolute and relative tolerance are equal and |x| <= 1, so the local error per step is
        // at most ~2 * relative; the global error stays within a small multiple of that.
        assert!(
            (x[0] - exact).abs() < 20.0 * relative,
            "rtol {relative}: {} vs {exact}",
            x[0]
        );
    }
}

#[test]
fn harmonic_oscillator_error_shrinks_with_tolerance() {
    let omega = 3.0;
    let run = |relative: f64| {
        let f = |_t: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
            dx[0] = x[1];
            dx[1] = -omega * omega * x[0];
            Ok(())
        };
        let (x, steps) = integrate(f, 0.0, &[1.0, 0.0], 10.0, &tolerances(relative, 2)).unwrap();
        let error = ((x[0] - (omega * 10.0).cos()).powi(2)
            + (x[1] + omega * (omega * 10.0).sin()).powi(2))
        .sqrt();
        (error, steps)
    };
    let (coarse_error, coarse_steps) = run(1e-5);
    let (fine_error, fine_steps) = run(1e-9);
    assert!(coarse_error < 1e-2, "coarse error {coarse_error}");
    assert!(fine_error < 1e-6, "fine error {fine_error}");
    assert!(
        fine_error < coarse_error / 100.0,
        "tightening the tolerance by 1e4 must reduce the error: {coarse_error} -> {fine_error}"
    );
    assert!(
        fine_steps > coarse_steps,
        "more steps for tighter tolerance: {coarse_steps} vs {fine_steps}"
    );
}

#[test]
fn fifth_order_convergence_on_fixed_steps() {
    // One step of size h on x' = x from x = 1: the local error of a fifth-order method scales as h^6.
    let local_error = |h: f64| {
        let mut stepper = DormandPrince::new(1);
        let mut f = |_t: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
            dx[0] = x[0];
            Ok(())
        };
        stepper
            .attempt(&mut f, 0.0, &[1.0], h, &tolerances(1.0, 1))
            .unwrap();
        (stepper.x_new()[0] - h.exp()).abs()
    };
    let ratio = local_error(0.1) / local_error(0.05);
    assert!(
        (40.0..100.0).contains(&ratio),
        "halving h divides the local error by ~2^6 = 64, got {ratio}"
    );
}

#[test]
fn dense_output_is_accurate_inside_the_step() {
    let mut stepper = DormandPrince::new(2);
    let mut f = |_t: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
        dx[0] = x[1];
        dx[1] = -x[0];
        Ok(())
    };
    let attempt = stepper
        .attempt(&mut f, 0.0, &[0.0, 1.0], 0.2, &tolerances(1e-6, 2))
        .unwrap();
    assert!(attempt.accepted);
    let mut dense = Default::default();
    stepper.dense_output(&mut dense);
    let mut x = [0.0; 2];
    for i in 0..=10 {
        let t = 0.02 * i as f64;
        dense.evaluate(t, &mut x);
        assert!(
            (x[0] - t.sin()).abs() < 1e-7 && (x[1] - t.cos()).abs() < 1e-7,
            "t = {t}: {x:?}"
        );
    }
}

#[test]
fn rejects_steps_that_are_too_large() {
    let mut stepper = DormandPrince::new(1);
    let mut f = |_t: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
        dx[0] = -50.0 * x[0];
        Ok(())
    };
    let attempt = stepper
        .attempt(&mut f, 0.0, &[1.0], 1.0, &tolerances(1e-6, 1))
        .unwrap();
    assert!(!attempt.accepted && attempt.next_step < 1.0, "{attempt:?}");
}

#[test]
fn locates_the_first_of_two_crossings() {
    // z1 = t - 0.3 crosses at 0.3, z2 = (t - 0.6)^3 at 0.6: the earlier one must be found.
    let indicators = |t: f64, z: &mut [f64]| -> Result<(), Infallible> {
        z[0] = t - 0.3;
        z[1] = (t - 0.6f64).powi(3);
        Ok(())
    };
    let (mut z0, mut z1) = ([0.0; 2], [0.0; 2]);
    indicators(0.0, &mut z0).unwrap();
    indicators(1.0, &mut z1).unwrap();
    let crossing = locate_crossing(0.0, &z0, 1.0, &z1, 1e-12, indicators).unwrap();
    assert!(
        crossing.before <= 0.3 && crossing.after >= 0.3,
        "{crossing:?}"
    );
    assert!(crossing.after - crossing.before <= 1e-12);
    assert!(crossing.indicators_after[0] > 0.0 && crossing.indicators_after[1] < 0.0);
}

#[test]
fn locates_a_nonlinear_crossing_precisely() {
    // A falling body h = 1 - g t^2 / 2 reaches the ground at sqrt(2/g).
    let g = 9.81;
    let indicators = |t: f64, z: &mut [f64]| -> Result<(), Infallible> {
        z[0] = 1.0 - 0.5 * g * t * t;
        Ok(())
    };
    let crossing = locate_crossing(0.0, &[1.0], 1.0, &[1.0 - 0.5 * g], 1e-13, indicators).unwrap();
    assert!(
        (crossing.after - (2.0 / g).sqrt()).abs() < 1e-12,
        "{crossing:?}"
    );
}
