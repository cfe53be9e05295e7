//! A massless linear spring-damper between two ends `a` and `b`, as a stateless coupling
//! element: the positions and velocities of both ends come in, the forces on both ends go out.
//!
//! With stretch `s = x_a - x_b - l0`, the force on end `a` is `f_a = -(k s + c (v_a - v_b))`
//! and the force on end `b` is `f_b = -f_a`. Every output depends directly on the inputs
//! (direct feedthrough); the model has no states, so its SDIRK `doStep` only advances time.

use fmu_export::{Args, Declaration, Method, OdeModel, Scalar, Tunability, Var};

/// Input indices.
const X_A: usize = 0;
const V_A: usize = 1;
const X_B: usize = 2;
const V_B: usize = 3;
/// Parameter indices.
const K: usize = 0;
const C: usize = 1;
const L0: usize = 2;
/// Index of the output `f_a`.
pub const F_A: usize = 0;
/// Index of the output `f_b`.
pub const F_B: usize = 1;
/// Index of the output `energy`.
pub const ENERGY: usize = 2;

/// The spring-damper model.
#[derive(Default)]
pub struct SpringDamper;

impl OdeModel for SpringDamper {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "spring_damper",
            "Massless spring-damper between ends a and b: f_a = -(k (x_a - x_b - l0) + c (v_a - v_b)), \
             f_b = -f_a",
        )
        .input(Var::new("x_a", 0.0).unit("m").description("position of end a"))
        .input(Var::new("v_a", 0.0).unit("m/s").description("velocity of end a"))
        .input(Var::new("x_b", 0.0).unit("m").description("position of end b"))
        .input(Var::new("v_b", 0.0).unit("m/s").description("velocity of end b"))
        .parameter(Var::new("k", 100.0).unit("N/m").description("stiffness"), Tunability::Tunable)
        .parameter(Var::new("c", 0.0).unit("N.s/m").description("damping"), Tunability::Tunable)
        .parameter(
            Var::new("l0", 0.0).unit("m").description("value of x_a - x_b at which the spring is unloaded"),
            Tunability::Tunable,
        )
        .output(Var::new("f_a", 0.0).unit("N").description("force on end a"))
        .output(Var::new("f_b", 0.0).unit("N").description("force on end b, -f_a"))
        .output(Var::new("energy", 0.0).unit("J").description("energy stored in the spring, k s^2 / 2"))
        // Without states every step is exact: a long max_step keeps doStep to one internal step.
        .cosimulation(Method::Sdirk { rtol: 1e-8, atol: 1e-10 }, 1.0)
        .experiment(0.0, 10.0, 1e-8, 1e-3)
    }

    fn derivatives<T: Scalar>(&self, _a: &Args<T>, _dx: &mut [T]) {}

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        let (u, p) = (a.u, a.p);
        let stretch = u[X_A] - u[X_B] - p[L0];
        let f_a = -(p[K] * stretch + p[C] * (u[V_A] - u[V_B]));
        y[F_A] = f_a;
        y[F_B] = -f_a;
        y[ENERGY] = T::cst(0.5) * p[K] * stretch * stretch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{Integrator, OdeSystem, StepInputs, System};

    /// Inputs `[x_a, v_a, x_b, v_b]` and parameters `[k, c, l0]` away from every default.
    const U: [f64; 4] = [0.3, -2.0, -0.1, 5.0];
    const P: [f64; 3] = [250.0, 1.5, 0.05];

    fn outputs(u: &[f64], p: &[f64]) -> [f64; 3] {
        let sys = OdeSystem::<SpringDamper>::default();
        let mut y = [f64::NAN; 3];
        sys.outputs(
            &Args {
                t: 0.0,
                x: &[],
                u,
                p,
                d: &[],
            },
            &mut y,
        );
        y
    }

    /// The forces and the stored energy written out for inputs `u` and parameters `p`.
    fn expected(u: &[f64], p: &[f64]) -> [f64; 3] {
        let stretch = u[0] - u[2] - p[2];
        let f_a = -p[0] * stretch - p[1] * (u[1] - u[3]);
        [f_a, -f_a, p[0] * stretch * stretch / 2.0]
    }

    fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64) {
        assert_eq!(actual.len(), expected.len());
        for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
            assert!(
                (a - e).abs() <= tolerance * e.abs().max(1.0),
                "entry {i}: {a} vs {e}"
            );
        }
    }

    #[test]
    fn forces_oppose_the_stretch_and_the_closing_speed_and_balance() {
        let y = outputs(&U, &P);
        // s = 0.3 + 0.1 - 0.05 = 0.35, v_a - v_b = -7.
        assert_close(
            &y,
            &[
                -(250.0 * 0.35 + 1.5 * -7.0),
                250.0 * 0.35 - 1.5 * 7.0,
                15.3125,
            ],
            1e-14,
        );
        assert_close(&y, &expected(&U, &P), 1e-14);
        assert_eq!(y[F_A] + y[F_B], 0.0);
        // An unloaded spring at rest relative to its other end carries no force or energy.
        assert_eq!(
            outputs(&[1.25, 3.0, 1.0, 3.0], &[P[0], P[1], 0.25]),
            [0.0, 0.0, 0.0]
        );
    }

    #[test]
    fn dual_jacobian_of_the_outputs_matches_the_analytic_one() {
        let sys = OdeSystem::<SpringDamper>::default();
        let (jac, value) = jacobian(&[U.as_slice(), &P].concat(), 3, |w, y| {
            let (u, p) = w.split_at(4);
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x: &[],
                    u,
                    p,
                    d: &[],
                },
                y,
            );
        });
        assert_close(&value, &expected(&U, &P), 1e-14);
        let [k, c, _] = P;
        let (stretch, closing) = (U[0] - U[2] - P[2], U[1] - U[3]);
        // Columns x_a, v_a, x_b, v_b, k, c, l0.
        let f_a = [-k, -c, k, c, -stretch, -closing, k];
        let f_b = f_a.map(|v| -v);
        let energy = [
            k * stretch,
            0.0,
            -k * stretch,
            0.0,
            stretch * stretch / 2.0,
            0.0,
            -k * stretch,
        ];
        assert_close(&jac, &[f_a, f_b, energy].concat(), 1e-14);
    }

    #[test]
    fn do_step_without_states_advances_and_gives_outputs_at_the_new_inputs() {
        let sys = OdeSystem::<SpringDamper>::default();
        let p = sys.declaration().parameter_starts();
        let mut integrator = sys.integrator();
        integrator
            .initialize(&sys, 0.0, &[], &StepInputs::held(0.0, &U), &p, &[])
            .unwrap();
        // Held inputs over one step, then a ramp over a step longer than max_step.
        let report = integrator
            .do_step(&sys, 0.0, 1e-3, &StepInputs::held(0.0, &U), &p, &mut [])
            .unwrap();
        assert_eq!(report.internal_steps, 1);
        let rates = [1.0, -4.0, 2.0, 0.5];
        let ramp = StepInputs {
            t0: 1e-3,
            coefficients: vec![U.to_vec(), rates.to_vec()],
        };
        let report = integrator
            .do_step(&sys, 1e-3, 2.5, &ramp, &p, &mut [])
            .unwrap();
        assert_eq!(report.internal_steps, 3);
        let u_end: Vec<f64> = U.iter().zip(rates).map(|(u, r)| u + 2.5 * r).collect();
        let mut y = [f64::NAN; 3];
        integrator.outputs(&sys, 1e-3 + 2.5, &u_end, &p, &[], &mut y);
        assert_close(&y, &expected(&u_end, &p), 1e-14);
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<SpringDamper>);
