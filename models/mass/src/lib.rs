//! A mass on a spring-damper to ground, driven by an input force: `m a = -k x - c v + F`.
//!
//! One subsystem of the double linear oscillator used to study energy in explicit
//! co-simulation; integrated in co-simulation by symplectic Euler. Position, velocity and the
//! subsystem's energy `m v^2 / 2 + k x^2 / 2` depend on the state only; the acceleration also
//! depends directly on `F` (direct feedthrough).

pub use benchmark_equations::oscillator_mass::driven::{ACCELERATION, ENERGY, POSITION, VELOCITY};
use benchmark_equations::oscillator_mass::{self, M};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Scalar, Var};

/// Input index.
const F: usize = 0;

/// The mass model.
#[derive(Default)]
pub struct Mass;

impl MechanicalModel for Mass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "mass",
            "Mass m on a spring k and a damper c to ground, driven by the force F: m a = -k x - c v + F",
        );
        let declaration = oscillator_mass::declare(declaration, 0.0)
            .input(Var::new("F", 0.0).unit("N").description("external force"));
        oscillator_mass::declare_outputs(
            oscillator_mass::declare_linear_ground(declaration, 10.0),
            "F",
            "kinetic plus spring energy m v^2 / 2 + k x^2 / 2",
        )
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = oscillator_mass::linear_ground_force(a) + a.u[F];
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        oscillator_mass::write_kinematics(a, acc, &mut y[POSITION..]);
        y[ENERGY] = oscillator_mass::linear_energy(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchmark_equations::oscillator_mass::{C, K};
    use fmu_export::jacobian::jacobian;
    use fmu_export::{Args, Integrator, MechanicalSystem, StepInputs, System};

    /// Parameters `[m, k, c]` away from the defaults, so that every term counts.
    const P: [f64; 3] = [2.5, 40.0, 0.3];

    /// `(-k x - c v + F) / m`, in the order the integrator evaluates it (force, then one
    /// division by the 1 x 1 mass matrix).
    fn acceleration(p: &[f64], x: f64, v: f64, force: f64) -> f64 {
        (-p[K] * x - p[C] * v + force) / p[M]
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
    fn outputs_are_the_state_newtons_acceleration_and_the_energy() {
        let sys = MechanicalSystem::<Mass>::default();
        let (x, v, force) = (0.2, -3.0, 7.0);
        let mut y = [f64::NAN; 4];
        sys.outputs(
            &Args {
                t: 0.0,
                x: &[x, v],
                u: &[force],
                p: &P,
                d: &[],
            },
            &mut y,
        );
        // a = (-40 * 0.2 + 0.3 * 3 + 7) / 2.5, E = (2.5 * 9 + 40 * 0.04) / 2.
        assert_close(&y, &[x, v, -0.04, 12.05], 1e-14);
        let mut dx = [f64::NAN; 2];
        sys.derivatives(
            &Args {
                t: 0.0,
                x: &[x, v],
                u: &[force],
                p: &P,
                d: &[],
            },
            &mut dx,
        );
        assert_close(&dx, &[v, -0.04], 1e-14);
    }

    #[test]
    fn dual_jacobian_of_the_outputs_matches_the_analytic_one() {
        let sys = MechanicalSystem::<Mass>::default();
        let (x, v, force) = (0.2, -3.0, 7.0);
        let (jac, value) = jacobian(&[x, v, force, P[M], P[K], P[C]], 4, |w, y| {
            let (state, rest) = w.split_at(2);
            let (u, p) = rest.split_at(1);
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x: state,
                    u,
                    p,
                    d: &[],
                },
                y,
            );
        });
        let [m, k, c] = P;
        let a = acceleration(&P, x, v, force);
        assert_close(&value, &[x, v, a, 0.5 * (m * v * v + k * x * x)], 1e-14);
        // Columns x, v, F, m, k, c. Only the acceleration depends on F (direct feedthrough).
        let expected = [
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [-k / m, -c / m, 1.0 / m, -a / m, -x / m, -v / m],
            [k * x, m * v, 0.0, v * v / 2.0, x * x / 2.0, 0.0],
        ];
        assert_close(&jac, &expected.concat(), 1e-14);
    }

    /// One symplectic Euler step written out: velocity first, then position with the new
    /// velocity.
    fn symplectic_euler(p: &[f64], [x, v]: [f64; 2], force: f64, h: f64) -> [f64; 2] {
        let v_next = v + h * acceleration(p, x, v, force);
        [x + h * v_next, v_next]
    }

    /// The integrator's `[x, v]`.
    fn continuous_state(integrator: &impl Integrator<MechanicalSystem<Mass>>) -> [f64; 2] {
        let mut x = [f64::NAN; 2];
        integrator.continuous_state(&mut x);
        x
    }

    #[test]
    fn do_step_is_symplectic_euler_bit_for_bit() {
        let sys = MechanicalSystem::<Mass>::default();
        let mut integrator = sys.integrator();
        let x0 = [0.01, 100.0];
        // A dyadic step keeps every time and step length exact, so the hand steps can match the
        // integrator to the last bit.
        let h = 2f64.powi(-10);
        let forces = [0.5, -2.0, 3.0];
        integrator
            .initialize(
                &sys,
                0.0,
                &x0,
                &StepInputs::held(0.0, &[forces[0]]),
                &P,
                &[],
            )
            .unwrap();
        let mut expected = x0;
        for (i, force) in forces.into_iter().enumerate() {
            let t = i as f64 * h;
            let report = integrator
                .do_step(&sys, t, h, &StepInputs::held(t, &[force]), &P, &mut [])
                .unwrap();
            assert_eq!(report.internal_steps, 1);
            expected = symplectic_euler(&P, expected, force, h);
            assert_eq!(continuous_state(&integrator), expected, "step {i}");
        }
        let (t_end, force) = (3.0 * h, 1.25);
        let mut y = [f64::NAN; 4];
        integrator.outputs(&sys, t_end, &[force], &P, &[], &mut y);
        let [x, v] = expected;
        let energy = 0.5 * (P[M] * v * v + P[K] * x * x);
        assert_close(&y, &[x, v, acceleration(&P, x, v, force), energy], 1e-14);
    }

    #[test]
    fn a_long_communication_step_takes_equal_internal_steps_with_the_input_at_each_start() {
        let sys = MechanicalSystem::<Mass>::default();
        let mut integrator = sys.integrator();
        let x0 = [0.0, -100.0];
        let h = 2f64.powi(-10);
        // First-order hold: F(t) = 4 - 300 t over [0, 3h].
        let ramp = StepInputs {
            t0: 0.0,
            coefficients: vec![vec![4.0], vec![-300.0]],
        };
        integrator
            .initialize(&sys, 0.0, &x0, &ramp, &P, &[])
            .unwrap();
        let report = integrator
            .do_step(&sys, 0.0, 3.0 * h, &ramp, &P, &mut [])
            .unwrap();
        assert_eq!(report.internal_steps, 3);
        let expected = (0..3).fold(x0, |w, i| {
            symplectic_euler(&P, w, 4.0 - 300.0 * (i as f64 * h), h)
        });
        assert_eq!(continuous_state(&integrator), expected);
    }

    #[test]
    fn a_communication_step_shorter_than_max_step_is_one_internal_step_of_that_length() {
        // Multi-rate coupling at 0.1 ms with max_step 1 ms.
        let sys = MechanicalSystem::<Mass>::default();
        let mut integrator = sys.integrator();
        let (x0, force, step) = ([0.0, 100.0], -5.0, 1e-4);
        let held = StepInputs::held(0.0, &[force]);
        integrator
            .initialize(&sys, 0.0, &x0, &held, &P, &[])
            .unwrap();
        let report = integrator
            .do_step(&sys, 0.0, step, &held, &P, &mut [])
            .unwrap();
        assert_eq!(report.internal_steps, 1);
        assert_eq!(
            continuous_state(&integrator),
            symplectic_euler(&P, x0, force, step)
        );
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<Mass>);
