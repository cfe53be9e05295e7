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

use benchmark_equations::nonlinear_laws::{self, SpringDamper};
pub use benchmark_equations::oscillator_mass::coupled::{
    ACCELERATION, ENERGY, FORCE, POSITION, VELOCITY,
};
use benchmark_equations::oscillator_mass::{self, M, V2, X2};
use fmu_export::{Declaration, MechArgs, MechanicalModel, Scalar, Tunability, Var};

/// Index of the first parameter of the spring-damper to ground, after `m`.
const GROUND: usize = 1;
/// Index of the first parameter of the coupling spring-damper, after the ground's.
const COUPLING: usize = 4;

/// The nonlinear coupled-mass model.
#[derive(Default)]
pub struct NonlinearCoupledMass;

/// The spring-damper to ground.
fn ground<T: Scalar>(p: &[T]) -> SpringDamper<T> {
    SpringDamper::from_parameters(&p[GROUND..])
}

/// The coupling spring-damper.
fn coupling<T: Scalar>(p: &[T]) -> SpringDamper<T> {
    SpringDamper::from_parameters(&p[COUPLING..])
}

/// The coupling force on the second body, `-(S_c(x - x2) + D_c(v - v2))`.
fn coupling_force<T: Scalar>(a: &MechArgs<T>) -> T {
    let (stretch, closing) = (a.q[0] - a.u[X2], a.v[0] - a.u[V2]);
    -coupling(a.p).force(stretch, closing)
}

impl MechanicalModel for NonlinearCoupledMass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "nonlinear_coupled_mass",
            "Mass m on a spring S and a quadratic damper D to ground, coupled by S_c, D_c to a body at \
             x2 moving at v2: m a = S(x) + D(v) - f, f = -(S_c(x - x2) + D_c(v - v2)); \
             S(s) = -(k s + kappa sgn(s) sqrt|s|), D(v) = -c_q sgn(v) v^2",
        );
        let declaration = oscillator_mass::declare(declaration, 100.0);
        let declaration = nonlinear_laws::declare_ground(declaration, 10.0)
            .parameter(
                Var::new("k_c", 0.0)
                    .unit("N/m")
                    .description("linear stiffness of the coupling spring"),
                Tunability::Tunable,
            )
            .parameter(
                Var::new("kappa_c", 100.0)
                    .description("square-root stiffness of the coupling spring (N/m^(1/2))"),
                Tunability::Tunable,
            )
            .parameter(
                Var::new("c_qc", 0.0)
                    .unit("N.s2/m2")
                    .description("quadratic damping of the coupling damper"),
                Tunability::Tunable,
            )
            .output(
                Var::new("f", 0.0)
                    .unit("N")
                    .description("coupling force on the coupled body; depends on x2, v2"),
            );
        oscillator_mass::declare_outputs(
            oscillator_mass::declare_coupled_body(declaration),
            "x2, v2",
            "kinetic energy plus the energies of the spring to ground and of the coupling spring",
        )
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = ground(a.p).force(a.q[0], a.v[0]) - coupling_force(a);
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        let (x, v, p) = (a.q[0], a.v[0], a.p);
        y[FORCE] = coupling_force(a);
        oscillator_mass::write_kinematics(a, acc, &mut y[POSITION..]);
        let springs = ground(p).spring.energy(x) + coupling(p).spring.energy(x - a.u[X2]);
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

    /// The outputs at the state and inputs `w = [x, v, x2, v2]`, with the parameters `P`.
    fn outputs_at<T: Scalar>(w: &[T], y: &mut [T]) {
        let p: Vec<T> = P.iter().map(|&v| T::cst(v)).collect();
        MechanicalSystem::<NonlinearCoupledMass>::default().outputs(
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

    fn outputs() -> [f64; 5] {
        let mut y = [f64::NAN; 5];
        outputs_at(&[X.as_slice(), &U].concat(), &mut y);
        y
    }

    #[test]
    fn outputs_follow_the_square_root_springs_and_quadratic_dampers() {
        let y = outputs();
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
        let (jac, _) = jacobian(&[X.as_slice(), &U].concat(), 5, outputs_at);
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
        let y = outputs();
        let direction = [X[1], y[ACCELERATION], U[1], 17.0];
        let rate = directional(&[X.as_slice(), &U].concat(), &direction, 5, outputs_at)[ENERGY];
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
