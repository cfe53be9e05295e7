//! Hydraulic engine mount (Lauss et al., "The discrete adjoint method for parameter
//! identification in multibody system dynamics", Multibody Syst Dyn 42 (2018), Sect. 5, eq. (21)).
//!
//! Coordinates `q = (x1, x2, x3, x4)`, positive downward: x1 the load (engine share), x2 the
//! massless top of the upper chamber, x3 the decoupler membrane, x4 the fluid column in the
//! inertia track. The load sits on the elastomer `F_E` and drives the chamber through the bulge
//! stiffness `c_H`; the lever constraint `x2 (a + b) - x3 b - x4 a = 0` splits the chamber's
//! displacement between membrane (`F_M`) and track (`F_H`). The excitation is the exponential
//! sweep `F(t) = A sin(omega0 C^t t)`, whose instantaneous frequency rises from 2 Hz at t = 0
//! to about 211 Hz at t = 1 s.
//!
//! The paper's parameter table is not available; the defaults are our own plausible choices
//! (a passenger-car hydromount carrying a quarter of a powertrain), not the paper's values.
//! The identified parameters `c_E1, c_E2, d_E, d_H2` are tunable, all others fixed.

use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Tunability, Var};

/// Parameter indices: the four identified parameters first, then the fixed ones.
const C_E1: usize = 0;
const C_E2: usize = 1;
const D_E: usize = 2;
const D_H2: usize = 3;
const M_L: usize = 4;
const M_M: usize = 5;
const M_H: usize = 6;
const G: usize = 7;
const A: usize = 8;
const B: usize = 9;
const C_H: usize = 10;
const C_M: usize = 11;
const D_M: usize = 12;
const D_H1: usize = 13;
const AMPLITUDE: usize = 14;
const OMEGA0: usize = 15;
const SWEEP_BASE: usize = 16;

/// The engine-mount model.
#[derive(Default)]
pub struct EngineMount;

impl MechanicalModel for EngineMount {
    fn declaration(&self) -> Declaration {
        let tunable = |name: &str, value: f64, unit: &str, text: &str| {
            (
                Var::new(name, value)
                    .unit(unit)
                    .nominal(value)
                    .description(text),
                Tunability::Tunable,
            )
        };
        let fixed = |name: &str, value: f64, unit: &str, text: &str| {
            (
                Var::new(name, value).unit(unit).description(text),
                Tunability::Fixed,
            )
        };
        // Order must match the parameter index constants above.
        let parameters = [
            tunable("c_E1", 2.0e5, "N/m", "elastomer linear stiffness"),
            tunable("c_E2", 5.0e9, "N/m3", "elastomer cubic stiffness"),
            tunable("d_E", 200.0, "N.s/m", "elastomer damping"),
            tunable("d_H2", 10.0, "N.s3/m3", "inertia-track cubic damping"),
            fixed("m_L", 50.0, "kg", "load mass"),
            fixed("m_M", 0.05, "kg", "membrane mass"),
            fixed("m_H", 0.3, "kg", "fluid-column mass in x4 coordinates"),
            fixed("g", 9.81, "m/s2", "gravitational acceleration"),
            fixed("a", 1.0, "m", "lever arm of the inertia track"),
            fixed("b", 9.0, "m", "lever arm of the membrane"),
            fixed("c_H", 3.0e5, "N/m", "upper-chamber bulge stiffness"),
            fixed("c_M", 5.0e4, "N/m", "membrane stiffness"),
            fixed("d_M", 5.0, "N.s/m", "membrane damping"),
            fixed("d_H1", 5.0, "N.s/m", "inertia-track linear damping"),
            fixed("A", 100.0, "N", "sweep force amplitude"),
            fixed(
                "omega0",
                4.0 * std::f64::consts::PI,
                "rad/s",
                "initial sweep angular frequency",
            ),
            fixed("C", 25.0, "1", "sweep base: the phase is omega0 C^t t"),
        ];
        let coordinates = [
            ("x1", "load displacement"),
            ("x2", "upper-chamber displacement (massless)"),
            ("x3", "membrane displacement"),
            ("x4", "inertia-track fluid displacement"),
        ];
        let mut decl = Declaration::new(
            "engine_mount",
            "Hydraulic engine mount with a lever constraint under an exponential frequency sweep",
        );
        for (name, text) in coordinates {
            decl = decl.state(Var::new(name, 0.0).unit("m").description(text));
        }
        for (name, text) in coordinates {
            let velocity = Var::new(&format!("v{}", &name[1..]), 0.0);
            decl = decl.state(velocity.unit("m/s").description(&format!("rate of {text}")));
        }
        for (var, tunability) in parameters {
            decl = decl.parameter(var, tunability);
        }
        decl.output(Var::new("load_position", 0.0).unit("m").description("x1"))
            .output(
                Var::new("load_velocity", 0.0)
                    .unit("m/s")
                    .description("x1'"),
            )
            .output(
                Var::new("load_acceleration", 0.0)
                    .unit("m/s2")
                    .description("x1'', the acceleration sensor signal s"),
            )
            .output(Var::new("track_position", 0.0).unit("m").description("x4"))
            .output(
                Var::new("lever_multiplier", 0.0)
                    .unit("N/m")
                    .description("constraint multiplier lambda (lever force per unit arm length)"),
            )
            .cosimulation(Method::Hht { alpha: -0.1 }, 1e-4)
            .experiment(0.0, 1.0, 1e-8, 1e-3)
    }

    fn constraint_count(&self) -> usize {
        1
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        // diag(m_L, 0, m_M, m_H): x2 is massless, the constraint makes the system solvable.
        m[0] = a.p[M_L];
        m[2 * 4 + 2] = a.p[M_M];
        m[3 * 4 + 3] = a.p[M_H];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        let (p, q, v) = (a.p, a.q, a.v);
        let elastomer = p[C_E1] * q[0] + p[C_E2] * q[0].powi(3) + p[D_E] * v[0];
        let membrane = p[C_M] * q[2] + p[D_M] * v[2];
        let track = p[D_H1] * v[3] + p[D_H2] * v[3].powi(3);
        let chamber = p[C_H] * (q[0] - q[1]);
        f[0] = sweep_force(a.t, p) + p[M_L] * p[G] - elastomer - chamber;
        f[1] = chamber;
        f[2] = -membrane;
        f[3] = -track;
    }

    fn constraints<T: Scalar>(&self, _t: T, q: &[T], p: &[T], c: &mut [T]) {
        c[0] = q[1] * (p[A] + p[B]) - q[2] * p[B] - q[3] * p[A];
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], lambda: &[T], y: &mut [T]) {
        y[0] = a.q[0];
        y[1] = a.v[0];
        y[2] = acc[0];
        y[3] = a.q[3];
        y[4] = lambda[0];
    }
}

/// The sweep excitation `A sin(omega0 C^t t)`, with `C^t = exp(t ln C)` so that it stays
/// differentiable in `t` and `C`.
fn sweep_force<T: Scalar>(t: T, p: &[T]) -> T {
    let growth = (t * p[SWEEP_BASE].ln()).exp();
    p[AMPLITUDE] * (p[OMEGA0] * growth * t).sin()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::scalar::Dual64;
    use fmu_export::{MechanicalSystem, System};
    use std::f64::consts::PI;

    fn system() -> (MechanicalSystem<EngineMount>, Vec<f64>) {
        let sys = MechanicalSystem::<EngineMount>::default();
        let p = sys.declaration().parameter_starts();
        (sys, p)
    }

    fn args<'a, T: Scalar>(t: T, q: &'a [T], v: &'a [T], p: &'a [T]) -> MechArgs<'a, T> {
        MechArgs {
            t,
            q,
            v,
            u: &[],
            p,
            d: &[],
        }
    }

    /// A state with every coordinate and velocity non-zero, on the constraint manifold.
    fn sample_state(p: &[f64]) -> ([f64; 4], [f64; 4]) {
        let lever = |x3: f64, x4: f64| (p[B] * x3 + p[A] * x4) / (p[A] + p[B]);
        let (x3, x4, v3, v4) = (1.3e-3, -2.1e-2, 0.07, -0.6);
        (
            [2.7e-3, lever(x3, x4), x3, x4],
            [-0.11, lever(v3, v4), v3, v4],
        )
    }

    /// Eq. (21) written out independently of the model code, as the oracle.
    fn paper_forces(t: f64, q: &[f64; 4], v: &[f64; 4], p: &[f64]) -> [f64; 4] {
        let sweep = 100.0 * (4.0 * PI * 25f64.powf(t) * t).sin();
        let f_e = p[C_E1] * q[0] + p[C_E2] * q[0] * q[0] * q[0] + p[D_E] * v[0];
        let f_m = p[C_M] * q[2] + p[D_M] * v[2];
        let f_h = p[D_H1] * v[3] + p[D_H2] * v[3] * v[3] * v[3];
        let coupling = p[C_H] * (q[0] - q[1]);
        [sweep + p[M_L] * p[G] - f_e - coupling, coupling, -f_m, -f_h]
    }

    fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
        let error = (actual - expected).abs();
        assert!(
            error <= tol * (1.0 + expected.abs()),
            "{what}: {actual} vs {expected}"
        );
    }

    #[test]
    fn initial_state_gives_free_fall_of_the_load_and_no_lever_force() {
        let (sys, p) = system();
        let x0 = sys.declaration().state_starts();
        assert_eq!(x0, [0.0; 8]);
        let (q, v) = sys.split(&x0);
        let (acc, lambda) = sys.accelerations(&args(0.0, q, v, &p)).unwrap();
        for (i, (&ai, expected)) in acc.iter().zip([p[G], 0.0, 0.0, 0.0]).enumerate() {
            assert_close(ai, expected, 1e-14, &format!("a0[{i}]"));
        }
        assert_close(lambda[0], 0.0, 1e-14, "lambda0");
    }

    #[test]
    fn forces_match_equation_21() {
        let (sys, p) = system();
        let (q, v) = sample_state(&p);
        for t in [0.0, 0.137, 0.9] {
            let forces = sys.forces(&args(t, &q, &v, &p));
            for (i, (&f, expected)) in forces.iter().zip(paper_forces(t, &q, &v, &p)).enumerate() {
                assert_close(f, expected, 1e-12, &format!("Q[{i}] at t = {t}"));
            }
        }
    }

    #[test]
    fn consistent_accelerations_satisfy_constraint_and_force_balance() {
        let (sys, p) = system();
        let (q, v) = sample_state(&p);
        let t = 0.42;
        assert_close(
            sys.constraints(t, &q, &p)[0],
            0.0,
            1e-16,
            "position constraint",
        );
        let cq = sys.constraint_jacobian(t, &q, &p);
        assert_eq!(cq[..], [0.0, p[A] + p[B], -p[B], -p[A]]);
        let (acc, lambda) = sys.accelerations(&args(t, &q, &v, &p)).unwrap();
        // The terms of C_q a are large (about 3e5 here); compare the sum with their magnitude.
        let cq_a: f64 = cq.iter().zip(&acc).map(|(c, a)| c * a).sum();
        let scale: f64 = cq.iter().zip(&acc).map(|(c, a)| (c * a).abs()).sum();
        assert!(
            cq_a.abs() <= 1e-14 * scale,
            "C_q a = {cq_a}, terms of size {scale}"
        );
        let mass = [p[M_L], 0.0, p[M_M], p[M_H]];
        let forces = paper_forces(t, &q, &v, &p);
        for i in 0..4 {
            let balance = mass[i] * acc[i] + cq[i] * lambda[0];
            assert_close(
                balance,
                forces[i],
                1e-12,
                &format!("row {i} of M a + C_q^T lambda = Q"),
            );
        }
    }

    #[test]
    fn force_jacobians_match_the_derived_expressions() {
        let (sys, p) = system();
        let (q, v) = sample_state(&p);
        let t = 0.3;
        // One dual evaluation over (q, v, u) gives J_Q, J_V and dQ/du together.
        let point: Vec<f64> = q.iter().chain(&v).chain(&p[..4]).copied().collect();
        let (jac, _) = jacobian(&point, 4, |w, f| {
            let mut pd: Vec<Dual64> = p.iter().map(|&x| Dual64::from(x)).collect();
            pd[..4].copy_from_slice(&w[8..]);
            let (q, v) = (&w[..4], &w[4..8]);
            f.copy_from_slice(&sys.forces(&args(Dual64::from(t), q, v, &pd)));
        });
        let stiff_e = p[C_E1] + 3.0 * p[C_E2] * q[0] * q[0];
        let expected_jq = [
            [-stiff_e - p[C_H], p[C_H], 0.0, 0.0],
            [p[C_H], -p[C_H], 0.0, 0.0],
            [0.0, 0.0, -p[C_M], 0.0],
            [0.0; 4],
        ];
        let damp_h = p[D_H1] + 3.0 * p[D_H2] * v[3] * v[3];
        let expected_jv = [-p[D_E], 0.0, -p[D_M], -damp_h];
        let expected_du = [
            [-q[0], -q[0].powi(3), -v[0], 0.0],
            [0.0; 4],
            [0.0; 4],
            [0.0, 0.0, 0.0, -v[3].powi(3)],
        ];
        for row in 0..4 {
            let mut expected = [0.0; 12];
            expected[..4].copy_from_slice(&expected_jq[row]);
            expected[4 + row] = expected_jv[row];
            expected[8..].copy_from_slice(&expected_du[row]);
            for (col, &e) in expected.iter().enumerate() {
                let what = format!("dQ[{row}]/d(q, v, u)[{col}]");
                assert_close(jac[row * 12 + col], e, 1e-14, &what);
            }
        }
    }

    #[test]
    fn sweep_starts_at_2_hz_and_reaches_about_211_hz_at_one_second() {
        // dF/dt = A cos(phase) phase'; at t = 0 and t = 1 s the phase (0 and 100 pi) is a
        // multiple of 2 pi, so there dF/dt / (2 pi A) is the instantaneous frequency in Hz.
        let (sys, p) = system();
        let frequency = |t: f64| {
            let (q, v) = ([Dual64::from(0.0); 4], [Dual64::from(0.0); 4]);
            let pd: Vec<Dual64> = p.iter().map(|&x| Dual64::from(x)).collect();
            let force = sys.forces(&args(Dual64::new(t, 1.0), &q, &v, &pd))[0];
            force.eps / (2.0 * PI * p[AMPLITUDE])
        };
        assert_close(frequency(0.0), 2.0, 1e-14, "f(0)");
        let expected_at_1 = 2.0 * 25.0 * (1.0 + 25f64.ln());
        assert_close(frequency(1.0), expected_at_1, 1e-12, "f(1)");
        assert!((frequency(1.0) - 211.0).abs() < 0.5);
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<EngineMount>);
