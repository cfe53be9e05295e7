//! Subsystem M1 of the double linear oscillator in the force-displacement split of Rodríguez
//! et al. (2022, Sect. 3.3): the mass `m` on its spring-damper `k, c` to ground, together with
//! the coupling spring-damper `kc, cc` to a second body whose position `x2` and velocity `v2`
//! are inputs:
//!
//! ```text
//! m a = -k x - c v - f,    f = kc (x - x2) + cc (v - v2)
//! ```
//!
//! The output `f` is the coupling force on the second body; it depends directly on the inputs
//! (direct feedthrough). The energy output counts the kinetic energy, the spring to ground and
//! the coupling spring, `m v^2 / 2 + k x^2 / 2 + kc (x - x2)^2 / 2`, so that the energies of
//! the subsystems add up to the energy of the coupled system. Integrated in co-simulation by
//! symplectic Euler, the benchmark's integrator.
//!
//! The second body is the `mass` model (input `F = f`). In the n-DOF oscillator (Sect. 4.1)
//! masses `1 .. n-1` are each an instance of this model coupled to mass `n`, which receives
//! the sum of their forces: the `summing-mass` model takes up to four of them.
//!
//! Defaults: mass 1 of the benchmark's undamped case (LIM case 0: `m = 1` kg, `k = 10` N/m,
//! `kc = 100` N/m), starting at `x = 0`, `v = 100` m/s; the inputs start at mass 2's initial
//! state `x2 = 0`, `v2 = -100` m/s.

pub use benchmark_equations::oscillator_mass::coupled::{
    ACCELERATION, ENERGY, FORCE, POSITION, VELOCITY,
};
use benchmark_equations::oscillator_mass::{self, K, M, V2, X2};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Scalar, Tunability, Var};

/// Parameter indices after the spring-damper to ground.
const KC: usize = 3;
const CC: usize = 4;

/// The coupled-mass model.
#[derive(Default)]
pub struct CoupledMass;

/// The coupling force on the second body, `kc (x - x2) + cc (v - v2)`.
fn coupling_force<T: Scalar>(a: &MechArgs<T>) -> T {
    let p = a.p;
    p[KC] * (a.q[0] - a.u[X2]) + p[CC] * (a.v[0] - a.u[V2])
}

impl MechanicalModel for CoupledMass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "coupled_mass",
            "Mass m on a spring-damper k, c to ground, coupled by the spring-damper kc, cc to a body \
             at x2 moving at v2: m a = -k x - c v - f, f = kc (x - x2) + cc (v - v2) (force on that body)",
        );
        let declaration = oscillator_mass::declare(declaration, 100.0);
        let declaration = oscillator_mass::declare_linear_ground(declaration, 10.0)
            .parameter(
                Var::new("kc", 100.0)
                    .unit("N/m")
                    .description("stiffness of the coupling spring"),
                Tunability::Tunable,
            )
            .parameter(
                Var::new("cc", 0.0)
                    .unit("N.s/m")
                    .description("damping of the coupling damper"),
                Tunability::Tunable,
            )
            .output(Var::new("f", 0.0).unit("N").description(
                "coupling force on the coupled body, kc (x - x2) + cc (v - v2); depends on x2, v2",
            ));
        oscillator_mass::declare_outputs(
            oscillator_mass::declare_coupled_body(declaration),
            "x2, v2",
            "kinetic, ground-spring and coupling-spring energy m v^2/2 + k x^2/2 + kc (x - x2)^2/2",
        )
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = oscillator_mass::linear_ground_force(a) - coupling_force(a);
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        let stretch = x - a.u[X2];
        y[FORCE] = coupling_force(a);
        oscillator_mass::write_kinematics(a, acc, &mut y[POSITION..]);
        y[ENERGY] = T::cst(0.5) * (p[M] * v * v + p[K] * x * x + p[KC] * stretch * stretch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{Args, MechanicalSystem, System};

    /// Parameters `[m, k, c, kc, cc]` away from the defaults, so that every term counts.
    const P: [f64; 5] = [2.0, 40.0, 0.3, 250.0, 1.5];
    /// State `[x, v]` and inputs `[x2, v2]`.
    const X: [f64; 2] = [0.2, -3.0];
    const U: [f64; 2] = [-0.1, 5.0];

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
    fn outputs_are_the_coupling_force_the_state_newtons_acceleration_and_the_energy() {
        let sys = MechanicalSystem::<CoupledMass>::default();
        let args = Args {
            t: 0.0,
            x: &X,
            u: &U,
            p: &P,
            d: &[],
        };
        let mut y = [f64::NAN; 5];
        sys.outputs(&args, &mut y);
        // f = 250 * 0.3 + 1.5 * (-8) = 63; a = (-40 * 0.2 + 0.3 * 3 - 63) / 2 = -35.05;
        // E = (2 * 9 + 40 * 0.04 + 250 * 0.09) / 2 = 21.05.
        assert_close(&y, &[63.0, 0.2, -3.0, -35.05, 21.05], 1e-14);
        let mut dx = [f64::NAN; 2];
        sys.derivatives(&args, &mut dx);
        assert_close(&dx, &[-3.0, -35.05], 1e-14);
    }

    #[test]
    fn dual_jacobian_of_the_outputs_matches_the_analytic_one() {
        let sys = MechanicalSystem::<CoupledMass>::default();
        let w: Vec<f64> = [X.as_slice(), &U, &P].concat();
        let (jac, _) = jacobian(&w, 5, |w, y| {
            let (x, rest) = w.split_at(2);
            let (u, p) = rest.split_at(2);
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
        let [m, k, c, kc, cc] = P;
        let ([x, v], [x2, v2]) = (X, U);
        let (stretch, closing) = (x - x2, v - v2);
        let a = (-k * x - c * v - kc * stretch - cc * closing) / m;
        // Columns x, v, x2, v2, m, k, c, kc, cc.
        let expected = [
            [kc, cc, -kc, -cc, 0.0, 0.0, 0.0, stretch, closing],
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                (-k - kc) / m,
                (-c - cc) / m,
                kc / m,
                cc / m,
                -a / m,
                -x / m,
                -v / m,
                -stretch / m,
                -closing / m,
            ],
            [
                k * x + kc * stretch,
                m * v,
                -kc * stretch,
                0.0,
                v * v / 2.0,
                x * x / 2.0,
                0.0,
                stretch * stretch / 2.0,
                0.0,
            ],
        ];
        assert_close(&jac, &expected.concat(), 1e-13);
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<CoupledMass>);
