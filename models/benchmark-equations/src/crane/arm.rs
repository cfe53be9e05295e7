//! The crane's arm in the minimal coordinates `theta = (theta1, theta2)`, both measured from
//! the `x` axis, driven by the actuator force `f` along the cylinder:
//!
//! ```text
//! M(theta) theta'' + f_cor(theta, theta') = f_grav(theta) + J^T f
//! M      = [ L^2 (m/3 + m_p + m_h),  L L_h m_h cos(theta1 - theta2) ;
//!            L L_h m_h cos(theta1 - theta2),  L_h^2 m_h ]
//! f_cor  = L L_h m_h sin(theta1 - theta2) [ theta2'^2 ; -theta1'^2 ]
//! f_grav = [ -L g (m/2 + m_p + m_h) cos(theta1) ; -L_h g m_h cos(theta2) ]
//! s      = L sqrt(1 - (sqrt(3)/2) cos(theta1)),   J = [ sqrt(3) L^2 sin(theta1) / (4 s), 0 ]
//! ```
//!
//! `s` is the actuator length between the base `B = (sqrt(3) L / 2, 0)` and the attachment at
//! mid-length of link 1 (this is the geometry the formula encodes), and `s' = J theta'`.

use fmu_export::{Declaration, Scalar, Tunability, Var};

/// Number of arm parameters [`declare_parameters`] adds: `L, L_h, m, m_p, m_h, g`.
pub const PARAMETER_COUNT: usize = 6;

/// Initial angles `(pi/6, -pi/2)`: link 1 at 30 degrees, link 2 hanging straight down (the
/// paper writes the second angle as `3 pi / 2`).
pub const INITIAL_ANGLES: [f64; 2] = [std::f64::consts::FRAC_PI_6, -std::f64::consts::FRAC_PI_2];

/// The arm's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arm<T> {
    /// Length of link 1 (m).
    pub l: T,
    /// Length of the massless link 2 (m).
    pub lh: T,
    /// Mass of link 1, distributed (kg).
    pub m: T,
    /// Point mass at the end of link 1 (kg).
    pub mp: T,
    /// Point mass at the end of link 2 (kg).
    pub mh: T,
    /// Gravitational acceleration, along `-y` (m/s2).
    pub g: T,
}

/// The benchmark's arm.
pub const BENCHMARK: Arm<f64> = Arm {
    l: 1.0,
    lh: 0.5,
    m: 200.0,
    mp: 250.0,
    mh: 100.0,
    g: 9.81,
};

/// Adds the states `theta1, theta2, omega1, omega2`, starting at rest at [`INITIAL_ANGLES`].
pub fn declare_states(declaration: Declaration) -> Declaration {
    let [theta1, theta2] = INITIAL_ANGLES;
    declaration
        .state(
            Var::new("theta1", theta1)
                .unit("rad")
                .description("angle of link 1 from the x axis"),
        )
        .state(
            Var::new("theta2", theta2)
                .unit("rad")
                .description("angle of link 2 from the x axis"),
        )
        .state(
            Var::new("omega1", 0.0)
                .unit("rad/s")
                .description("angular velocity of link 1"),
        )
        .state(
            Var::new("omega2", 0.0)
                .unit("rad/s")
                .description("angular velocity of link 2"),
        )
}

/// Adds the parameters of [`BENCHMARK`] in the order [`Arm::from_parameters`] reads them.
pub fn declare_parameters(declaration: Declaration) -> Declaration {
    let a = BENCHMARK;
    let fixed = |name: &str, value: f64, unit: &str, text: &str| {
        (
            Var::new(name, value).unit(unit).description(text),
            Tunability::Fixed,
        )
    };
    [
        fixed("L", a.l, "m", "length of link 1"),
        fixed("L_h", a.lh, "m", "length of the massless link 2"),
        fixed("m", a.m, "kg", "mass of link 1, distributed"),
        fixed("m_p", a.mp, "kg", "point mass at the end of link 1"),
        fixed("m_h", a.mh, "kg", "point mass at the end of link 2"),
        fixed("g", a.g, "m/s2", "gravitational acceleration, along -y"),
    ]
    .into_iter()
    .fold(declaration, |d, (var, tunability)| {
        d.parameter(var, tunability)
    })
}

impl Arm<f64> {
    /// The same arm in another scalar type.
    pub fn lift<S: Scalar>(&self) -> Arm<S> {
        let c = S::cst;
        Arm {
            l: c(self.l),
            lh: c(self.lh),
            m: c(self.m),
            mp: c(self.mp),
            mh: c(self.mh),
            g: c(self.g),
        }
    }
}

impl<T: Scalar> Arm<T> {
    /// Reads the parameters in the order [`declare_parameters`] adds them.
    pub fn from_parameters(p: &[T]) -> Self {
        Arm {
            l: p[0],
            lh: p[1],
            m: p[2],
            mp: p[3],
            mh: p[4],
            g: p[5],
        }
    }

    /// The mass matrix `M(theta)`, row-major.
    pub fn mass_matrix(&self, theta: [T; 2]) -> [T; 4] {
        let coupling = self.l * self.lh * self.mh * (theta[0] - theta[1]).cos();
        let link1 = self.l * self.l * (self.m / T::cst(3.0) + self.mp + self.mh);
        [link1, coupling, coupling, self.lh * self.lh * self.mh]
    }

    /// The velocity-dependent (Coriolis and centrifugal) term `f_cor`, on the left-hand side.
    pub fn coriolis(&self, theta: [T; 2], omega: [T; 2]) -> [T; 2] {
        let factor = self.l * self.lh * self.mh * (theta[0] - theta[1]).sin();
        [factor * omega[1] * omega[1], -factor * omega[0] * omega[0]]
    }

    /// The generalized gravity forces `f_grav`.
    pub fn gravity(&self, theta: [T; 2]) -> [T; 2] {
        let link1 = self.m / T::cst(2.0) + self.mp + self.mh;
        [
            -theta[0].cos() * self.l * self.g * link1,
            -self.mh * self.lh * self.g * theta[1].cos(),
        ]
    }

    /// The actuator length `s = L sqrt(1 - (sqrt(3)/2) cos(theta1))`.
    pub fn actuator_length(&self, theta1: T) -> T {
        self.l * (T::cst(1.0) - T::cst(0.75f64.sqrt()) * theta1.cos()).sqrt()
    }

    /// `J1 = ds/dtheta1 = sqrt(3) L^2 sin(theta1) / (4 s)`; `ds/dtheta2` is zero.
    pub fn actuator_jacobian(&self, theta1: T) -> T {
        T::cst(3f64.sqrt() / 4.0) * self.l * self.l * theta1.sin() / self.actuator_length(theta1)
    }

    /// The actuator's extension rate `s' = J theta'`.
    pub fn actuator_rate(&self, theta1: T, omega1: T) -> T {
        self.actuator_jacobian(theta1) * omega1
    }

    /// The right-hand side `f_grav - f_cor + J^T f` for the actuator force `f`.
    pub fn generalized_forces(&self, theta: [T; 2], omega: [T; 2], f: T) -> [T; 2] {
        let (gravity, coriolis) = (self.gravity(theta), self.coriolis(theta, omega));
        let jacobian = self.actuator_jacobian(theta[0]);
        [
            gravity[0] - coriolis[0] + jacobian * f,
            gravity[1] - coriolis[1],
        ]
    }

    /// `M(theta)^-1 rhs` (the 2 x 2 mass matrix is symmetric positive definite).
    pub fn solve_mass(&self, theta: [T; 2], rhs: [T; 2]) -> [T; 2] {
        let [m11, m12, _, m22] = self.mass_matrix(theta);
        let det = m11 * m22 - m12 * m12;
        [
            (m22 * rhs[0] - m12 * rhs[1]) / det,
            (m11 * rhs[1] - m12 * rhs[0]) / det,
        ]
    }

    /// The accelerations `theta''` under the actuator force `f`.
    pub fn accelerations(&self, theta: [T; 2], omega: [T; 2], f: T) -> [T; 2] {
        self.solve_mass(theta, self.generalized_forces(theta, omega, f))
    }

    /// Kinetic plus potential energy, the potential measured from the pivot's height.
    pub fn energy(&self, theta: [T; 2], omega: [T; 2]) -> T {
        let [m11, m12, _, m22] = self.mass_matrix(theta);
        let [w1, w2] = omega;
        let kinetic = T::cst(0.5) * (m11 * w1 * w1 + T::cst(2.0) * m12 * w1 * w2 + m22 * w2 * w2);
        let link1 = self.m / T::cst(2.0) + self.mp + self.mh;
        let potential =
            self.g * (self.l * link1 * theta[0].sin() + self.mh * self.lh * theta[1].sin());
        kinetic + potential
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;

    const THETA: [f64; 2] = [0.7, -1.9];
    const OMEGA: [f64; 2] = [0.4, -1.3];

    #[test]
    fn terms_match_the_formulas_of_the_benchmark_code() {
        let a = BENCHMARK;
        let [t1, t2] = THETA;
        let [w1, w2] = OMEGA;
        let mass = a.mass_matrix(THETA);
        let expected = [
            1.0 * (200.0 / 3.0 + 250.0 + 100.0),
            0.5 * 100.0 * (t1 - t2).cos(),
            0.5 * 100.0 * (t1 - t2).cos(),
            0.25 * 100.0,
        ];
        for (m, e) in mass.iter().zip(expected) {
            assert!(
                (m - e).abs() < 1e-12 * e.abs().max(1.0),
                "{mass:?} vs {expected:?}"
            );
        }
        let coriolis = a.coriolis(THETA, OMEGA);
        let factor = 50.0 * (t1 - t2).sin();
        assert!((coriolis[0] - factor * w2 * w2).abs() < 1e-12);
        assert!((coriolis[1] + factor * w1 * w1).abs() < 1e-12);
        let gravity = a.gravity(THETA);
        assert!((gravity[0] + t1.cos() * 9.81 * 450.0).abs() < 1e-11);
        assert!((gravity[1] + 100.0 * 0.5 * 9.81 * t2.cos()).abs() < 1e-12);
        // At the initial angle the actuator is 0.5 m long: 1 - (sqrt(3)/2)^2 = 1/4.
        assert!((a.actuator_length(INITIAL_ANGLES[0]) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn the_actuator_jacobian_is_the_derivative_of_the_length() {
        for theta1 in [0.2, INITIAL_ANGLES[0], 1.3, 2.5] {
            let (jac, _) = jacobian(&[theta1], 1, |x, y| {
                y[0] = BENCHMARK.lift().actuator_length(x[0])
            });
            let analytic = BENCHMARK.actuator_jacobian(theta1);
            assert!(
                (jac[0] - analytic).abs() < 1e-14,
                "theta1 = {theta1}: {} vs {analytic}",
                jac[0]
            );
        }
        let rate = BENCHMARK.actuator_rate(THETA[0], OMEGA[0]);
        assert_eq!(rate, BENCHMARK.actuator_jacobian(THETA[0]) * OMEGA[0]);
    }

    #[test]
    fn gravity_is_minus_the_potential_gradient_and_mass_matrix_the_kinetic_hessian() {
        let energy = |x: &[fmu_export::scalar::Dual64], y: &mut [fmu_export::scalar::Dual64]| {
            y[0] = BENCHMARK.lift().energy([x[0], x[1]], [x[2], x[3]]);
        };
        let (gradient, _) = jacobian(&[THETA[0], THETA[1], 0.0, 0.0], 1, energy);
        let gravity = BENCHMARK.gravity(THETA);
        assert!(
            (gradient[0] + gravity[0]).abs() < 1e-11 && (gradient[1] + gravity[1]).abs() < 1e-11
        );
        // The kinetic energy's gradient in omega is the momentum M omega.
        let (gradient, _) = jacobian(&[THETA[0], THETA[1], OMEGA[0], OMEGA[1]], 1, energy);
        let [m11, m12, _, m22] = BENCHMARK.mass_matrix(THETA);
        let momentum = [
            m11 * OMEGA[0] + m12 * OMEGA[1],
            m12 * OMEGA[0] + m22 * OMEGA[1],
        ];
        assert!(
            (gradient[2] - momentum[0]).abs() < 1e-11 && (gradient[3] - momentum[1]).abs() < 1e-11
        );
    }

    #[test]
    fn the_coriolis_term_follows_from_the_lagrangian() {
        // Lagrange: M theta'' + (dM/dt) theta' - dT/dtheta = f_grav + J^T f, so
        // f_cor = (dM/dt) omega - dT/dtheta. With M depending on theta1 - theta2 only, both
        // parts are evaluated with dual numbers along theta.
        let [w1, w2] = OMEGA;
        let (dm, _) = jacobian(&THETA, 4, |x, y| {
            y.copy_from_slice(&BENCHMARK.lift().mass_matrix([x[0], x[1]]));
        });
        let dm_dt = |i: usize| dm[2 * i] * w1 + dm[2 * i + 1] * w2;
        let kinetic_gradient =
            |j: usize| 0.5 * (dm[j] * w1 * w1 + 2.0 * dm[2 + j] * w1 * w2 + dm[6 + j] * w2 * w2);
        let expected = [
            dm_dt(0) * w1 + dm_dt(1) * w2 - kinetic_gradient(0),
            dm_dt(2) * w1 + dm_dt(3) * w2 - kinetic_gradient(1),
        ];
        let coriolis = BENCHMARK.coriolis(THETA, OMEGA);
        for i in 0..2 {
            assert!(
                (coriolis[i] - expected[i]).abs() < 1e-11,
                "{coriolis:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn accelerations_satisfy_the_equations_of_motion() {
        let f = 9000.0;
        let acc = BENCHMARK.accelerations(THETA, OMEGA, f);
        let [m11, m12, _, m22] = BENCHMARK.mass_matrix(THETA);
        let rhs = BENCHMARK.generalized_forces(THETA, OMEGA, f);
        assert!((m11 * acc[0] + m12 * acc[1] - rhs[0]).abs() < 1e-10);
        assert!((m12 * acc[0] + m22 * acc[1] - rhs[1]).abs() < 1e-10);
        assert_eq!(
            rhs[1],
            BENCHMARK.gravity(THETA)[1] - BENCHMARK.coriolis(THETA, OMEGA)[1]
        );
    }

    #[test]
    fn declared_parameters_are_read_back_in_order() {
        let declaration = declare_parameters(Declaration::new("arm", ""));
        assert_eq!(declaration.parameters.len(), PARAMETER_COUNT);
        assert_eq!(
            Arm::from_parameters(&declaration.parameter_starts()),
            BENCHMARK
        );
        assert_eq!(BENCHMARK.lift::<f64>(), BENCHMARK);
    }
}
