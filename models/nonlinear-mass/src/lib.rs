//! Subsystem M2 of the double nonlinear oscillator of Rodríguez et al. (2022, Sect. 4.2): the
//! mass `m` on a spring and a quadratic damper to ground, driven by the input force `F` (the
//! coupling force of `nonlinear-coupled-mass`):
//!
//! ```text
//! m a = S(x) + D(v) + F,   S(s) = -(k s + kappa sgn(s) sqrt|s|),   D(v) = -c_q sgn(v) v^2
//! ```
//!
//! (force laws in [`benchmark_equations::nonlinear_laws`]). Position, velocity and the energy
//! `m v^2 / 2 + E_S(x)` depend on the state only. Integrated in co-simulation by symplectic
//! Euler.
//!
//! Defaults: mass 2 of case 1 with our values `m = 1` kg, `kappa = 1000` N/m^(1/2), starting
//! at `x = 0`, `v = -100` m/s (the paper's values are not published).

use benchmark_equations::nonlinear_laws::{self, SpringDamper};
pub use benchmark_equations::oscillator_mass::driven::{ACCELERATION, ENERGY, POSITION, VELOCITY};
use benchmark_equations::oscillator_mass::{self, M};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Scalar, Var};

/// Index of the first parameter of the spring-damper to ground, after `m`.
const GROUND: usize = 1;
/// Input index.
const F: usize = 0;

/// The nonlinear mass model.
#[derive(Default)]
pub struct NonlinearMass;

/// The spring-damper to ground.
fn ground<T: Scalar>(p: &[T]) -> SpringDamper<T> {
    SpringDamper::from_parameters(&p[GROUND..])
}

impl MechanicalModel for NonlinearMass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "nonlinear_mass",
            "Mass m on a spring S and a quadratic damper D to ground, driven by the force F: \
             m a = S(x) + D(v) + F; S(s) = -(k s + kappa sgn(s) sqrt|s|), D(v) = -c_q sgn(v) v^2",
        );
        let declaration = oscillator_mass::declare(declaration, -100.0)
            .input(Var::new("F", 0.0).unit("N").description("external force"));
        oscillator_mass::declare_outputs(
            nonlinear_laws::declare_ground(declaration, 1000.0),
            "F",
            "kinetic plus spring energy",
        )
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = ground(a.p).force(a.q[0], a.v[0]) + a.u[F];
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        oscillator_mass::write_kinematics(a, acc, &mut y[POSITION..]);
        y[ENERGY] = T::cst(0.5) * p[M] * v * v + ground(p).spring.energy(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::{directional, jacobian};
    use fmu_export::{Args, MechanicalSystem, System};

    /// Parameters `[m, k, kappa, c_q]`, state `[x, v]` (stretch -0.04 m) and force `[F]`.
    const P: [f64; 4] = [2.0, 30.0, 1000.0, 0.05];
    const X: [f64; 2] = [-0.04, 3.0];
    const U: [f64; 1] = [12.0];

    /// The outputs at the state and force `w = [x, v, F]`, with the parameters `P`.
    fn outputs_at<T: Scalar>(w: &[T], y: &mut [T]) {
        let p: Vec<T> = P.iter().map(|&v| T::cst(v)).collect();
        MechanicalSystem::<NonlinearMass>::default().outputs(
            &Args {
                t: T::cst(0.0),
                x: &w[..2],
                u: &w[2..],
                p: &p,
                d: &[],
            },
            y,
        );
    }

    fn outputs() -> [f64; 4] {
        let mut y = [f64::NAN; 4];
        outputs_at(&[X[0], X[1], U[0]], &mut y);
        y
    }

    #[test]
    fn the_acceleration_follows_the_square_root_spring_and_quadratic_damper() {
        let y = outputs();
        // Spring: -(30 * -0.04 + 1000 * -0.2) = 201.2; damper: -0.05 * 9 = -0.45; a = (201.2 - 0.45 + 12) / 2.
        // Energy: 9 + 15 * 0.0016 + 2000/3 * 0.008.
        let expected = [-0.04, 3.0, 106.375, 9.0 + 0.024 + 2000.0 / 3.0 * 0.008];
        for (i, (a, e)) in y.iter().zip(expected).enumerate() {
            // The regularization shifts the spring energy by 2/3 kappa eps^(3/2), about 2e-11 J.
            assert!(
                (a - e).abs() < 1e-11 * e.abs().max(1.0),
                "output {i}: {a} vs {e}"
            );
        }
    }

    #[test]
    fn dual_jacobian_of_the_acceleration_matches_the_analytic_one() {
        let (jac, _) = jacobian(&[X[0], X[1], U[0]], 4, outputs_at);
        // da/dx = -(k + kappa / (2 sqrt|x|)) / m, da/dv = -2 c_q |v| / m, da/dF = 1 / m.
        let expected = [
            -(30.0 + 1000.0 / (2.0 * 0.2)) / 2.0,
            -2.0 * 0.05 * 3.0 / 2.0,
            0.5,
        ];
        for (j, e) in expected.iter().enumerate() {
            let actual = jac[ACCELERATION * 3 + j];
            assert!(
                (actual - e).abs() < 1e-9 * e.abs(),
                "column {j}: {actual} vs {e}"
            );
        }
    }

    #[test]
    fn energy_changes_by_the_input_power_and_the_damper() {
        let y = outputs();
        let direction = [X[1], y[ACCELERATION], -4.0];
        let rate = directional(&[X[0], X[1], U[0]], &direction, 4, outputs_at)[ENERGY];
        let expected = U[0] * X[1] - 0.05 * X[1].abs() * X[1] * X[1];
        assert!(
            (rate - expected).abs() < 1e-10 * expected.abs(),
            "{rate} vs {expected}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<NonlinearMass>);
