//! Subsystem M_n of the n-DOF linear oscillator of Rodríguez et al. (2022, Sect. 4.1): mass
//! `n` on its spring-damper to ground, driven by the algebraic sum of the coupling forces of
//! masses `1 .. n-1`:
//!
//! ```text
//! m a = -k x - c v + F1 + F2 + F3 + F4
//! ```
//!
//! Each of masses `1 .. n-1` is a `coupled-mass` FMU whose output `f` is connected to one of
//! the inputs `F1 .. F4`; unconnected inputs stay at 0, so the model serves `n` up to 5 (the
//! paper runs `n = 3` and `n = 5`). FMI connects one output to each input and cannot add
//! outputs, which is why the sum is formed here rather than in the master or in `mass`.
//! Position, velocity and the energy `m v^2 / 2 + k x^2 / 2` depend on the state only (no
//! direct feedthrough). Integrated in co-simulation by symplectic Euler.
//!
//! Defaults: the benchmark's last mass, `m = 1` kg, `k = 1000` N/m, starting at `x = 0`,
//! `v = -100` m/s. With masses `1 .. n-1` of `1/(n-1)` times mass 1's inertia, stiffnesses
//! and damping and identical initial states, the n-DOF system moves exactly as the 2-DOF one
//! (our default split; the paper's values are not published).

pub use benchmark_equations::oscillator_mass::driven::{ACCELERATION, ENERGY, POSITION, VELOCITY};
use benchmark_equations::oscillator_mass::{self, M};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Scalar, Var};

/// Number of force inputs `F1 .. F4`.
pub const FORCE_INPUTS: usize = 4;

/// The summing-mass model.
#[derive(Default)]
pub struct SummingMass;

impl MechanicalModel for SummingMass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "summing_mass",
            "Mass m on a spring k and a damper c to ground, driven by the sum of the forces F1..F4: \
             m a = -k x - c v + F1 + F2 + F3 + F4",
        );
        let declaration = (1..=FORCE_INPUTS).fold(
            oscillator_mass::declare(declaration, -100.0),
            |declaration, i| {
                let text = format!("external force {i}; unconnected forces stay 0");
                declaration.input(Var::new(&format!("F{i}"), 0.0).unit("N").description(&text))
            },
        );
        oscillator_mass::declare_outputs(
            oscillator_mass::declare_linear_ground(declaration, 1000.0),
            "F1..F4",
            "kinetic plus spring energy m v^2 / 2 + k x^2 / 2",
        )
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let applied = a.u.iter().fold(T::cst(0.0), |sum, &force| sum + force);
        f[0] = oscillator_mass::linear_ground_force(a) + applied;
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        oscillator_mass::write_kinematics(a, acc, &mut y[POSITION..]);
        y[ENERGY] = oscillator_mass::linear_energy(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{Args, MechanicalSystem, System};

    /// Parameters `[m, k, c]`, state `[x, v]` and forces `F1..F4`.
    const P: [f64; 3] = [2.5, 40.0, 0.3];
    const X: [f64; 2] = [0.2, -3.0];
    const U: [f64; 4] = [7.0, -2.0, 0.5, 1.5];

    #[test]
    fn the_acceleration_uses_the_sum_of_the_forces_and_the_energy_the_state() {
        let sys = MechanicalSystem::<SummingMass>::default();
        let mut y = [f64::NAN; 4];
        sys.outputs(
            &Args {
                t: 0.0,
                x: &X,
                u: &U,
                p: &P,
                d: &[],
            },
            &mut y,
        );
        // a = (-40 * 0.2 + 0.3 * 3 + 7) / 2.5, E = (2.5 * 9 + 40 * 0.04) / 2.
        let expected = [0.2, -3.0, -0.04, 12.05];
        for (a, e) in y.iter().zip(expected) {
            assert!(
                (a - e).abs() < 1e-14 * e.abs().max(1.0),
                "{y:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn every_force_input_enters_with_weight_one_over_m() {
        let sys = MechanicalSystem::<SummingMass>::default();
        let w: Vec<f64> = [X.as_slice(), &U, &P].concat();
        let (jac, _) = jacobian(&w, 4, |w, y| {
            let (x, rest) = w.split_at(2);
            let (u, p) = rest.split_at(4);
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x,
                    u,
                    p,
                    d: &[],
                },
                y,
            );
        });
        let [m, k, c] = P;
        let a = -0.04;
        // Columns x, v, F1..F4, m, k, c.
        let acceleration = [
            -k / m,
            -c / m,
            1.0 / m,
            1.0 / m,
            1.0 / m,
            1.0 / m,
            -a / m,
            -X[0] / m,
            -X[1] / m,
        ];
        let energy = [
            k * X[0],
            m * X[1],
            0.0,
            0.0,
            0.0,
            0.0,
            X[1] * X[1] / 2.0,
            X[0] * X[0] / 2.0,
            0.0,
        ];
        for (row, expected) in [(ACCELERATION, acceleration), (ENERGY, energy)] {
            for (j, e) in expected.iter().enumerate() {
                let actual = jac[row * w.len() + j];
                assert!(
                    (actual - e).abs() < 1e-13 * e.abs().max(1.0),
                    "row {row}, column {j}: {actual} vs {e}"
                );
            }
        }
        // Position and velocity do not depend on the forces (no direct feedthrough).
        for row in [POSITION, VELOCITY] {
            assert!((2..6).all(|j| jac[row * w.len() + j] == 0.0));
        }
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<SummingMass>);
