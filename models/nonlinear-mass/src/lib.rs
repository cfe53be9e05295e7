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

use benchmark_equations::nonlinear_laws::{quadratic_damper_force, Spring};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Tunability, Var};

/// Parameter indices.
const M: usize = 0;
const K: usize = 1;
const KAPPA: usize = 2;
const C_Q: usize = 3;
/// Input index.
const F: usize = 0;
/// Index of the output `position`.
pub const POSITION: usize = 0;
/// Index of the output `velocity`.
pub const VELOCITY: usize = 1;
/// Index of the output `acceleration`.
pub const ACCELERATION: usize = 2;
/// Index of the output `energy`.
pub const ENERGY: usize = 3;

/// The nonlinear mass model.
#[derive(Default)]
pub struct NonlinearMass;

/// The spring to ground.
fn spring<T: Scalar>(p: &[T]) -> Spring<T> {
    Spring {
        k: p[K],
        kappa: p[KAPPA],
    }
}

impl MechanicalModel for NonlinearMass {
    fn declaration(&self) -> Declaration {
        let tunable = |name: &str, value: f64, unit: &str, text: &str| {
            let var = Var::new(name, value).description(text);
            (
                if unit.is_empty() { var } else { var.unit(unit) },
                Tunability::Tunable,
            )
        };
        let parameters = [
            (
                Var::new("m", 1.0).unit("kg").description("mass"),
                Tunability::Fixed,
            ),
            tunable("k", 0.0, "N/m", "linear stiffness of the spring to ground"),
            tunable(
                "kappa",
                1000.0,
                "",
                "square-root stiffness of the spring to ground (N/m^(1/2))",
            ),
            tunable(
                "c_q",
                0.0,
                "N.s2/m2",
                "quadratic damping to ground: f = -c_q sgn(v) v^2",
            ),
        ];
        let declaration = Declaration::new(
            "nonlinear_mass",
            "Mass m on a spring S and a quadratic damper D to ground, driven by the force F: \
             m a = S(x) + D(v) + F; S(s) = -(k s + kappa sgn(s) sqrt|s|), D(v) = -c_q sgn(v) v^2",
        )
        .state(Var::new("x", 0.0).unit("m").description("position"))
        .state(Var::new("v", -100.0).unit("m/s").description("velocity"))
        .input(Var::new("F", 0.0).unit("N").description("external force"));
        parameters
            .into_iter()
            .fold(declaration, |d, (var, tunability)| {
                d.parameter(var, tunability)
            })
            .output(
                Var::new("position", 0.0)
                    .unit("m")
                    .description("position x"),
            )
            .output(
                Var::new("velocity", 0.0)
                    .unit("m/s")
                    .description("velocity v"),
            )
            .output(
                Var::new("acceleration", 0.0)
                    .unit("m/s2")
                    .description("acceleration a; depends on F"),
            )
            .output(
                Var::new("energy", 0.0)
                    .unit("J")
                    .description("kinetic plus spring energy"),
            )
            .cosimulation(Method::SymplecticEuler, 1e-3)
            .experiment(0.0, 10.0, 1e-8, 1e-3)
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        f[0] = spring(p).force(x) + quadratic_damper_force(p[C_Q], v) + a.u[F];
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        y[POSITION] = x;
        y[VELOCITY] = v;
        y[ACCELERATION] = acc[0];
        y[ENERGY] = T::cst(0.5) * p[M] * v * v + spring(p).energy(x);
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

    fn outputs() -> [f64; 4] {
        let sys = MechanicalSystem::<NonlinearMass>::default();
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
        let sys = MechanicalSystem::<NonlinearMass>::default();
        let (jac, _) = jacobian(&[X[0], X[1], U[0]], 4, |w, y| {
            let p: Vec<_> = P.iter().map(|&v| v.into()).collect();
            sys.outputs(
                &Args {
                    t: 0.0.into(),
                    x: &w[..2],
                    u: &w[2..],
                    p: &p,
                    d: &[],
                },
                y,
            );
        });
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
        let sys = MechanicalSystem::<NonlinearMass>::default();
        let y = outputs();
        let rate = directional(
            &[X[0], X[1], U[0]],
            &[X[1], y[ACCELERATION], -4.0],
            4,
            |w, out| {
                let p: Vec<_> = P.iter().map(|&v| v.into()).collect();
                sys.outputs(
                    &Args {
                        t: 0.0.into(),
                        x: &w[..2],
                        u: &w[2..],
                        p: &p,
                        d: &[],
                    },
                    out,
                );
            },
        )[ENERGY];
        let expected = U[0] * X[1] - 0.05 * X[1].abs() * X[1] * X[1];
        assert!(
            (rate - expected).abs() < 1e-10 * expected.abs(),
            "{rate} vs {expected}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<NonlinearMass>);
