//! Plants of the control co-design examples (He, Kaneko, Howell, Li, Martins), written once,
//! generic over the scalar type: the FMUs that export them and the master's co-design tests,
//! which link them directly, share these equations.
//!
//! Each plant is `ẋ = r(x, u, p)` with all its real parameters in `p`, in the order of its
//! `PARAMETERS` list; which of them are design parameters is the co-design problem's choice.

use fmu_export::{Args, Declaration, Method, OdeModel, Scalar, Tunability, Var};

/// A plant `ẋ = r(x, u, p)`.
pub trait PlantEquations: Default + Send + Sync + 'static {
    /// The model name of its FMU.
    const NAME: &'static str;
    /// One line saying what it is.
    const DESCRIPTION: &'static str;
    /// State names, in order.
    const STATES: &'static [&'static str];
    /// Input names, in order.
    const INPUTS: &'static [&'static str];
    /// Parameter names and default values, in order.
    const PARAMETERS: &'static [(&'static str, f64)];

    /// Writes r(x, u, p) into `dx`.
    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]);
}

/// A plant as an FMU model: its states (starting at zero) are also its outputs, every
/// parameter is tunable, and Co-Simulation integrates it with the embedded SDIRK.
#[derive(Debug, Default)]
pub struct PlantModel<P>(P);

impl<P: PlantEquations> OdeModel for PlantModel<P> {
    fn declaration(&self) -> Declaration {
        let mut declaration = Declaration::new(P::NAME, P::DESCRIPTION);
        for name in P::STATES {
            declaration = declaration.state(Var::new(name, 0.0));
        }
        for name in P::INPUTS {
            declaration = declaration.input(Var::new(name, 0.0));
        }
        for &(name, value) in P::PARAMETERS {
            declaration = declaration.parameter(Var::new(name, value), Tunability::Tunable);
        }
        for name in P::STATES {
            declaration =
                declaration.output(Var::new(&format!("{name}_out"), 0.0).description("the state"));
        }
        declaration
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-8,
                    atol: 1e-10,
                },
                1e-2,
            )
            .experiment(0.0, 10.0, 1e-8, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        self.0.rhs(a.x, a.u, a.p, dx);
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y.copy_from_slice(a.x);
    }
}

/// The cart-pole of the paper's eqs. 30–31: cart position and velocity, pole angle (θ = π is
/// up when g < 0, the sign the paper's results need) and rate; a force on the cart.
#[derive(Debug, Clone, Copy, Default)]
pub struct CartPole;

impl PlantEquations for CartPole {
    const NAME: &'static str = "cart_pole";
    const DESCRIPTION: &'static str = "Cart-pole (He et al. eqs. 30-31), a force on the cart";
    const STATES: &'static [&'static str] = &["x", "v", "theta", "omega"];
    const INPUTS: &'static [&'static str] = &["force"];
    const PARAMETERS: &'static [(&'static str, f64)] = &[
        ("g", -10.0),
        ("delta", 0.0),
        ("m", 1.0),
        ("M", 5.0),
        ("L", 2.0),
    ];

    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]) {
        let (g, delta, m, big_m, l) = (p[0], p[1], p[2], p[3], p[4]);
        let (v, theta, omega) = (x[1], x[2], x[3]);
        let (sin, cos) = (theta.sin(), theta.cos());
        let inertia = big_m + m * (T::cst(1.0) - cos * cos);
        let d0 = m * l * l * inertia;
        let swing = m * l * omega * omega * sin - delta * v;
        dx[0] = v;
        dx[1] = (-m * m * l * l * g * cos * sin + m * l * l * swing) / d0 + u[0] / inertia;
        dx[2] = omega;
        dx[3] =
            ((m + big_m) * m * g * l * sin - m * l * cos * swing) / d0 + cos * u[0] / (l * inertia);
    }
}

/// The longitudinal quadrotor of the paper's eq. 39 with thrust `c_T Ω²` per rotor in place of
/// the blade-element model, and the drag's |v| smoothed as `√(vx² + vy² + ε²)` so that it is
/// differentiable at hover.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quadrotor;

impl PlantEquations for Quadrotor {
    const NAME: &'static str = "quadrotor";
    const DESCRIPTION: &'static str = "Longitudinal quadrotor with thrust c_T Omega^2 per rotor";
    const STATES: &'static [&'static str] = &["x", "y", "theta", "vx", "vy", "omega"];
    const INPUTS: &'static [&'static str] = &["rotor_speed_right", "rotor_speed_left"];
    const PARAMETERS: &'static [(&'static str, f64)] = &[
        ("mass", 1.4),
        ("inertia", 0.0211),
        ("g", 9.81),
        ("c_T", 1e-5),
        ("beta", 0.1365),
        ("arm", 0.159),
        ("epsilon", 1e-6),
    ];

    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]) {
        let (mass, inertia, g, c_t, beta, arm, eps) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        let (theta, vx, vy, omega) = (x[2], x[3], x[4], x[5]);
        let (t1, t2) = (c_t * u[0] * u[0], c_t * u[1] * u[1]);
        let speed = (vx * vx + vy * vy + eps * eps).sqrt();
        let thrust = (t1 + t2) * 2.0;
        dx[0] = vx;
        dx[1] = vy;
        dx[2] = omega;
        dx[3] = (-thrust * theta.sin() - beta * vx * speed) / mass;
        dx[4] = (thrust * theta.cos() - beta * vy * speed) / mass - g;
        dx[5] = (t1 - t2) * arm * 2.0 / inertia;
    }
}

/// A forced Duffing oscillator `ẍ = −k x − c x³ − b ẋ + F + u`: its equilibrium position
/// depends on the design, so co-design must solve for it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Duffing;

impl PlantEquations for Duffing {
    const NAME: &'static str = "duffing";
    const DESCRIPTION: &'static str = "Forced Duffing oscillator with a force input";
    const STATES: &'static [&'static str] = &["x", "v"];
    const INPUTS: &'static [&'static str] = &["force"];
    const PARAMETERS: &'static [(&'static str, f64)] =
        &[("k", 1.0), ("c", 0.5), ("b", 0.3), ("F", 0.8)];

    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]) {
        let (k, c, b, force) = (p[0], p[1], p[2], p[3]);
        dx[0] = x[1];
        dx[1] = -k * x[0] - c * x[0].powi(3) - b * x[1] + force + u[0];
    }
}

/// A linear mass-spring-damper `m ẍ = −k x − c ẋ + u`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MassSpringDamper;

impl PlantEquations for MassSpringDamper {
    const NAME: &'static str = "mass_spring_damper";
    const DESCRIPTION: &'static str = "Linear mass-spring-damper with a force input";
    const STATES: &'static [&'static str] = &["x", "v"];
    const INPUTS: &'static [&'static str] = &["force"];
    const PARAMETERS: &'static [(&'static str, f64)] = &[("m", 1.0), ("k", 2.0), ("c", 0.5)];

    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]) {
        let (m, k, c) = (p[0], p[1], p[2]);
        dx[0] = x[1];
        dx[1] = (-k * x[0] - c * x[1] + u[0]) / m;
    }
}

/// Masses in [`MassChain`].
pub const CHAIN_MASSES: usize = 10;

/// A chain of [`CHAIN_MASSES`] unit masses, the first tied to a wall, each link a spring `k_i`
/// and a damper `c_i` (2 × 10 design parameters), pushed by a force on the last mass: the
/// co-design plant whose gradient cost is measured against the number of design parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct MassChain;

impl PlantEquations for MassChain {
    const NAME: &'static str = "mass_chain";
    const DESCRIPTION: &'static str =
        "Chain of 10 unit masses with a spring and a damper per link and a force on the last";
    const STATES: &'static [&'static str] = &[
        "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "v1", "v2", "v3", "v4", "v5",
        "v6", "v7", "v8", "v9", "v10",
    ];
    const INPUTS: &'static [&'static str] = &["force"];
    const PARAMETERS: &'static [(&'static str, f64)] = &[
        ("k1", 1.0),
        ("k2", 1.0),
        ("k3", 1.0),
        ("k4", 1.0),
        ("k5", 1.0),
        ("k6", 1.0),
        ("k7", 1.0),
        ("k8", 1.0),
        ("k9", 1.0),
        ("k10", 1.0),
        ("c1", 0.1),
        ("c2", 0.1),
        ("c3", 0.1),
        ("c4", 0.1),
        ("c5", 0.1),
        ("c6", 0.1),
        ("c7", 0.1),
        ("c8", 0.1),
        ("c9", 0.1),
        ("c10", 0.1),
    ];

    fn rhs<T: Scalar>(&self, x: &[T], u: &[T], p: &[T], dx: &mut [T]) {
        let n = CHAIN_MASSES;
        let (position, velocity) = x.split_at(n);
        let (k, c) = p.split_at(n);
        // Link i joins mass i − 1 (the wall for i = 0) to mass i.
        let link = |i: usize| {
            let (x0, v0) = if i == 0 {
                (T::cst(0.0), T::cst(0.0))
            } else {
                (position[i - 1], velocity[i - 1])
            };
            k[i] * (position[i] - x0) + c[i] * (velocity[i] - v0)
        };
        for i in 0..n {
            dx[i] = velocity[i];
            let pull = if i + 1 < n { link(i + 1) } else { u[0] };
            dx[n + i] = pull - link(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;

    fn defaults<P: PlantEquations>() -> Vec<f64> {
        P::PARAMETERS.iter().map(|&(_, v)| v).collect()
    }

    /// J and G of `plant` at (x, u) with the default parameters, row-major over (x, u).
    fn linearization<P: PlantEquations>(plant: P, x: &[f64], u: &[f64]) -> Vec<f64> {
        let p = defaults::<P>();
        let w: Vec<f64> = x.iter().chain(u).copied().collect();
        let (n, m) = (x.len(), u.len());
        jacobian(&w, n, |w, dx| {
            let lifted: Vec<_> = p
                .iter()
                .map(|&v| fmu_export::scalar::Dual64::from(v))
                .collect();
            plant.rhs(&w[..n], &w[n..n + m], &lifted, dx)
        })
        .0
    }

    #[test]
    fn upright_cart_pole_linearization_is_the_papers() {
        // Digest: with g = −10 at θ = π, J[v, θ] = 2, J[ω, θ] = 6, G = [0, 0.2, 0, −0.1].
        let jac = linearization(CartPole, &[0.0, 0.0, std::f64::consts::PI, 0.0], &[0.0]);
        let at = |i: usize, j: usize| jac[i * 5 + j];
        assert!((at(1, 2) - 2.0).abs() < 1e-14 && (at(3, 2) - 6.0).abs() < 1e-14);
        let g: Vec<f64> = (0..4).map(|i| at(i, 4)).collect();
        for (a, b) in g.iter().zip([0.0, 0.2, 0.0, -0.1]) {
            assert!((a - b).abs() < 1e-15, "{g:?}");
        }
    }

    #[test]
    fn quadrotor_hovers_at_the_closed_form_rotor_speed() {
        let p = defaults::<Quadrotor>();
        let hover = (p[0] * p[2] / (4.0 * p[3])).sqrt();
        let mut dx = [0.0; 6];
        Quadrotor.rhs(&[0.0; 6], &[hover, hover], &p, &mut dx);
        assert!(dx.iter().all(|v| v.abs() < 1e-12), "{dx:?}");
    }
}
