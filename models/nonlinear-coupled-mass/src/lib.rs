//! Subsystem M1 of the double nonlinear oscillator of Rodríguez et al. (2022, Sect. 4.2): the
//! mass `m` on a spring and a damper to ground, with the coupling spring and damper to a second
//! body whose position `x2` and velocity `v2` are inputs. Springs have a linear and a
//! square-root term, dampers are quadratic (eqs. (22)-(23), see
//! [`benchmark_equations::nonlinear_laws`]):
//!
//! ```text
//! m a = S(x) + D(v) - f,    f = -(S_c(x - x2) + D_c(v - v2))    (force on the second body)
//! S(s) = -(k s + kappa sgn(s) sqrt|s|),   D(v) = -c_q sgn(v) v^2
//! ```
//!
//! The output `f` depends directly on the inputs (direct feedthrough). The energy output is the
//! kinetic energy plus both springs' energies (the coupling spring's included), so the
//! subsystems' energies add up to the coupled system's. Integrated in co-simulation by
//! symplectic Euler. The second body is the `nonlinear-mass` model (input `F = f`).
//!
//! Defaults: mass 1 of case 1 (all springs square-root, no damping) with our values `m = 1`
//! kg, `kappa = 10` and `kappa_c = 100` N/m^(1/2) (the paper's are not published); case 2
//! (linear springs `k = 10`, `k_c = 100` N/m, quadratic dampers 0.01 N.s2/m2) is set through the
//! parameters.

use benchmark_equations::nonlinear_laws::{quadratic_damper_force, Spring};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Tunability, Var};

/// Parameter indices.
const M: usize = 0;
const K: usize = 1;
const KAPPA: usize = 2;
const C_Q: usize = 3;
const K_C: usize = 4;
const KAPPA_C: usize = 5;
const C_QC: usize = 6;
/// Input indices.
const X2: usize = 0;
const V2: usize = 1;
/// Index of the output `f`.
pub const FORCE: usize = 0;
/// Index of the output `position`.
pub const POSITION: usize = 1;
/// Index of the output `velocity`.
pub const VELOCITY: usize = 2;
/// Index of the output `acceleration`.
pub const ACCELERATION: usize = 3;
/// Index of the output `energy`.
pub const ENERGY: usize = 4;

/// The nonlinear coupled-mass model.
#[derive(Default)]
pub struct NonlinearCoupledMass;

/// The spring to ground.
fn ground_spring<T: Scalar>(p: &[T]) -> Spring<T> {
    Spring {
        k: p[K],
        kappa: p[KAPPA],
    }
}

/// The coupling spring.
fn coupling_spring<T: Scalar>(p: &[T]) -> Spring<T> {
    Spring {
        k: p[K_C],
        kappa: p[KAPPA_C],
    }
}

/// The coupling force on the second body, `-(S_c(x - x2) + D_c(v - v2))`.
fn coupling_force<T: Scalar>(a: &MechArgs<T>) -> T {
    let (stretch, closing) = (a.q[0] - a.u[X2], a.v[0] - a.u[V2]);
    -(coupling_spring(a.p).force(stretch) + quadratic_damper_force(a.p[C_QC], closing))
}

impl MechanicalModel for NonlinearCoupledMass {
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
                10.0,
                "",
                "square-root stiffness of the spring to ground (N/m^(1/2))",
            ),
            tunable(
                "c_q",
                0.0,
                "N.s2/m2",
                "quadratic damping to ground: f = -c_q sgn(v) v^2",
            ),
            tunable("k_c", 0.0, "N/m", "linear stiffness of the coupling spring"),
            tunable(
                "kappa_c",
                100.0,
                "",
                "square-root stiffness of the coupling spring (N/m^(1/2))",
            ),
            tunable(
                "c_qc",
                0.0,
                "N.s2/m2",
                "quadratic damping of the coupling damper",
            ),
        ];
        let declaration = Declaration::new(
            "nonlinear_coupled_mass",
            "Mass m on a spring S and a quadratic damper D to ground, coupled by S_c, D_c to a body at \
             x2 moving at v2: m a = S(x) + D(v) - f, f = -(S_c(x - x2) + D_c(v - v2)); \
             S(s) = -(k s + kappa sgn(s) sqrt|s|), D(v) = -c_q sgn(v) v^2",
        )
        .state(Var::new("x", 0.0).unit("m").description("position"))
        .state(Var::new("v", 100.0).unit("m/s").description("velocity"))
        .input(Var::new("x2", 0.0).unit("m").description("position of the coupled body"))
        .input(Var::new("v2", -100.0).unit("m/s").description("velocity of the coupled body"));
        parameters
            .into_iter()
            .fold(declaration, |d, (var, tunability)| d.parameter(var, tunability))
            .output(
                Var::new("f", 0.0)
                    .unit("N")
                    .description("coupling force on the coupled body; depends on x2, v2"),
            )
            .output(Var::new("position", 0.0).unit("m").description("position x"))
            .output(Var::new("velocity", 0.0).unit("m/s").description("velocity v"))
            .output(Var::new("acceleration", 0.0).unit("m/s2").description("acceleration a; depends on x2, v2"))
            .output(Var::new("energy", 0.0).unit("J").description(
                "kinetic energy plus the energies of the spring to ground and of the coupling spring",
            ))
            .cosimulation(Method::SymplecticEuler, 1e-3)
            .experiment(0.0, 10.0, 1e-8, 1e-3)
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        f[0] = ground_spring(p).force(x) + quadratic_damper_force(p[C_Q], v) - coupling_force(a);
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        y[FORCE] = coupling_force(a);
        y[POSITION] = x;
        y[VELOCITY] = v;
        y[ACCELERATION] = acc[0];
        let springs = ground_spring(p).energy(x) + coupling_spring(p).energy(x - a.u[X2]);
        y[ENERGY] = T::cst(0.5) * p[M] * v * v + springs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::{directional, jacobian};
    use fmu_export::{Args, MechanicalSystem, System};

    /// Parameters `[m, k, kappa, c_q, k_c, kappa_c, c_qc]`, every term active.
    const P: [f64; 7] = [2.0, 3.0, 10.0, 0.05, 7.0, 100.0, 0.02];
    /// State `[x, v]` (stretch 0.25 m to ground) and inputs `[x2, v2]` (coupling stretch 0.09 m).
    const X: [f64; 2] = [0.25, -3.0];
    const U: [f64; 2] = [0.16, 2.0];

    fn outputs(x: &[f64], u: &[f64]) -> [f64; 5] {
        let sys = MechanicalSystem::<NonlinearCoupledMass>::default();
        let mut y = [f64::NAN; 5];
        sys.outputs(
            &Args {
                t: 0.0,
                x,
                u,
                p: &P,
                d: &[],
            },
            &mut y,
        );
        y
    }

    #[test]
    fn outputs_follow_the_square_root_springs_and_quadratic_dampers() {
        let y = outputs(&X, &U);
        // Coupling: stretch 0.09, closing speed -5: on this mass -(7 * 0.09 + 100 * 0.3)
        // + 0.02 * 25, so f = 30.63 - 0.5 = 30.13 on the other body.
        // Ground: -(3 * 0.25 + 10 * 0.5) + 0.05 * 9 = -5.3; a = (-5.3 - 30.13) / 2.
        // Energy: 9 + (1.5 * 0.0625 + 20/3 * 0.125) + (3.5 * 0.0081 + 200/3 * 0.027).
        let energy = 9.0 + 0.09375 + 20.0 / 3.0 * 0.125 + 0.02835 + 200.0 / 3.0 * 0.027;
        let expected = [30.13, 0.25, -3.0, -17.715, energy];
        for (i, (a, e)) in y.iter().zip(expected).enumerate() {
            // The regularization shifts the spring energy by 2/3 kappa eps^(3/2), about 2e-11 J.
            assert!(
                (a - e).abs() < 1e-11 * e.abs().max(1.0),
                "output {i}: {a} vs {e}"
            );
        }
    }

    #[test]
    fn dual_jacobian_of_the_coupling_force_matches_the_analytic_one() {
        let sys = MechanicalSystem::<NonlinearCoupledMass>::default();
        let w: Vec<f64> = [X.as_slice(), &U].concat();
        let (jac, _) = jacobian(&w, 5, |w, y| {
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
        let (stretch, closing) = (X[0] - U[0], X[1] - U[1]);
        // df/dstretch = k_c + kappa_c / (2 sqrt(stretch)); df/dclosing = 2 c_qc |closing|.
        let stiffness = 7.0 + 100.0 / (2.0 * stretch.sqrt());
        let damping = 2.0 * 0.02 * closing.abs();
        let expected = [stiffness, damping, -stiffness, -damping];
        for (j, e) in expected.iter().enumerate() {
            assert!(
                (jac[FORCE * 4 + j] - e).abs() < 1e-9 * e.abs(),
                "column {j}: {} vs {e}",
                jac[FORCE * 4 + j]
            );
        }
    }

    #[test]
    fn energy_changes_by_the_power_given_to_the_other_body_and_the_dampers() {
        // dE/dt along the motion, with v2' arbitrary (E does not depend on v2), must be
        // -f v2 + D(v) v + D_c(v - v2) (v - v2), the power balance the energy monitor relies on.
        let sys = MechanicalSystem::<NonlinearCoupledMass>::default();
        let y = outputs(&X, &U);
        let direction = [X[1], y[ACCELERATION], U[1], 17.0];
        let rate = directional(&[X.as_slice(), &U].concat(), &direction, 5, |w, out| {
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
        })[ENERGY];
        let closing = X[1] - U[1];
        let dissipated =
            -0.05 * X[1].abs() * X[1] * X[1] - 0.02 * closing.abs() * closing * closing;
        let expected = -y[FORCE] * U[1] + dissipated;
        assert!(
            (rate - expected).abs() < 1e-10 * expected.abs(),
            "{rate} vs {expected}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<NonlinearCoupledMass>);
