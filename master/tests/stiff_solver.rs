//! The implicit ESDIRK solver against analytic solutions: its order, its dense output, its
//! Jacobians (given or by differences), and its step counts on a stiff problem next to
//! Dormand–Prince.

use std::convert::Infallible;

use tandem::solver::{
    forward_differences, integrate_with, DormandPrince, Esdirk, Interpolant, Jacobian, Ode,
    Stepper, Tolerances,
};

fn tolerances(relative: f64, n: usize) -> Tolerances {
    Tolerances {
        relative,
        absolute: vec![relative; n],
    }
}

/// `x' = -2 t x`, `x(0) = 1`: `x = exp(-t^2)`.
fn gaussian(t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), Infallible> {
    dx[0] = -2.0 * t * x[0];
    Ok(())
}

/// Takes `steps` equal steps of the Gaussian problem to t = 1 whatever the error estimate.
fn fixed_steps(steps: usize) -> f64 {
    let mut stepper = Esdirk::new(1);
    let loose = tolerances(1e3, 1);
    let h = 1.0 / steps as f64;
    let mut x = vec![1.0];
    let mut ode = gaussian;
    for k in 0..steps {
        stepper
            .attempt(&mut ode, k as f64 * h, &x, h, &loose)
            .unwrap();
        x.copy_from_slice(stepper.x_new());
        stepper.accept();
    }
    x[0]
}

#[test]
fn the_method_converges_with_order_three() {
    let exact = (-1.0f64).exp();
    let errors: Vec<f64> = [20, 40, 80].map(|n| (fixed_steps(n) - exact).abs()).into();
    for pair in errors.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        assert!(
            (order - 3.0).abs() < 0.25,
            "observed order {order} from errors {errors:?}"
        );
    }
}

#[test]
fn the_hermite_dense_output_interpolates_with_fourth_order_local_error() {
    // x' = x from 0: one step of h; the interpolant at mid-step against exp(h/2).
    let mid_error = |h: f64| {
        let mut stepper = Esdirk::new(1);
        let mut ode = |_t: f64, x: &[f64], dx: &mut [f64]| -> Result<(), Infallible> {
            dx[0] = x[0];
            Ok(())
        };
        stepper
            .attempt(&mut ode, 0.0, &[1.0], h, &tolerances(1e3, 1))
            .unwrap();
        let (mut x, mut dense) = ([0.0], Default::default());
        stepper.dense_output(&mut dense);
        dense.evaluate(h / 2.0, &mut x);
        (x[0] - (h / 2.0).exp()).abs()
    };
    let (coarse, fine) = (mid_error(0.1), mid_error(0.05));
    let order = (coarse / fine).log2();
    assert!(coarse < 1e-5, "{coarse}");
    assert!(
        order > 3.6,
        "local interpolation error order {order}: {coarse} {fine}"
    );
}

/// A linear system with eigenvalues `-1` and `-10000` and its Jacobian, exact when asked.
struct StiffLinear {
    exact_jacobian: bool,
    jacobians: usize,
}

impl StiffLinear {
    const A: [[f64; 2]; 2] = [[-1.0, 1.0], [0.0, -10000.0]];

    /// The solution from `x(0) = (1, 1)`.
    fn solution(t: f64) -> [f64; 2] {
        // x2 = e^(-10000 t); x1 = c e^-t + d e^(-10000 t) with d = 1 / (1 - 10000).
        let d = 1.0 / (1.0 - 10000.0);
        let x2 = (-10000.0 * t).exp();
        [(1.0 - d) * (-t).exp() + d * x2, x2]
    }
}

impl Ode for StiffLinear {
    type Error = Infallible;

    fn derivatives(&mut self, _t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), Infallible> {
        for (i, row) in Self::A.iter().enumerate() {
            dx[i] = row[0] * x[0] + row[1] * x[1];
        }
        Ok(())
    }

    fn jacobian(
        &mut self,
        t: f64,
        x: &[f64],
        fx: &[f64],
        typical: &[f64],
        jacobian: &mut Jacobian,
    ) -> Result<(), Infallible> {
        self.jacobians += 1;
        if !self.exact_jacobian {
            return forward_differences(self, t, x, fx, typical, jacobian);
        }
        for i in 0..2 {
            for j in 0..2 {
                jacobian.set(i, j, Self::A[i][j]);
            }
        }
        Ok(())
    }
}

#[test]
fn forward_differences_approximate_the_jacobian() {
    let mut ode = StiffLinear {
        exact_jacobian: false,
        jacobians: 0,
    };
    let x = [0.3, -2.0];
    let mut fx = [0.0; 2];
    ode.derivatives(0.0, &x, &mut fx).unwrap();
    let mut jacobian = Jacobian::dense(2);
    ode.jacobian(0.0, &x, &fx, &[1.0, 1.0], &mut jacobian)
        .unwrap();
    for i in 0..2 {
        for j in 0..2 {
            let exact = StiffLinear::A[i][j];
            assert!(
                (jacobian.get(i, j) - exact).abs() <= 1e-6 * exact.abs().max(1.0),
                "J[{i}][{j}] = {} vs {exact}",
                jacobian.get(i, j)
            );
        }
    }
}

#[test]
fn a_stiff_system_takes_few_steps_with_either_jacobian_and_many_with_dopri5() {
    let (t1, relative) = (10.0, 1e-6);
    let exact = StiffLinear::solution(t1);
    let mut implicit_steps = Vec::new();
    for exact_jacobian in [true, false] {
        let mut ode = StiffLinear {
            exact_jacobian,
            jacobians: 0,
        };
        let (x, steps) = integrate_with(
            Esdirk::new(2),
            &mut ode,
            0.0,
            &[1.0, 1.0],
            t1,
            &tolerances(relative, 2),
        )
        .unwrap();
        assert!(
            (x[0] - exact[0]).abs() < 1e-5 && (x[1] - exact[1]).abs() < 1e-5,
            "exact Jacobian {exact_jacobian}: {x:?} vs {exact:?}"
        );
        assert!(
            ode.jacobians >= 1 && ode.jacobians < steps,
            "{} Jacobians",
            ode.jacobians
        );
        implicit_steps.push(steps);
    }
    let (_, explicit_steps) = integrate_with(
        DormandPrince::new(2),
        &mut StiffLinear {
            exact_jacobian: true,
            jacobians: 0,
        },
        0.0,
        &[1.0, 1.0],
        t1,
        &tolerances(relative, 2),
    )
    .unwrap();
    for steps in implicit_steps {
        assert!(steps < 200, "esdirk took {steps} steps");
        // Dormand–Prince is stable only for h < 3.3e-4 here: about 30000 steps for 10 s.
        assert!(
            explicit_steps > 50 * steps,
            "dopri5 {explicit_steps}, esdirk {steps}"
        );
    }
}
