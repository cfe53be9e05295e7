//! A point mass on a massless rod pinned at a pivot, in the Cartesian coordinates of the mass
//! (the tip): `q = (x, y)`, `M = diag(m, m)`, gravity `-m g` along `y`, one holonomic
//! constraint `C = ((x - x_A)^2 + (y - y_A)^2 - l^2) / 2 = 0` for the pivot `A`. Each of the two
//! coupled pendula of Rodríguez et al. (2022, Sect. 4.3) is such a subsystem.
//!
//! The benchmark's dimensions are not published; the defaults here are our own
//! reconstruction (masses 1 kg, rods 2 m, pivots 10.5 m apart), chosen because they reproduce
//! the published unloaded spring length of about 8.756 m between the initial tips, with the
//! published initial angles `pi/4` and `pi/18` from the downward vertical, the pendula
//! deflected toward each other.

use fmu_export::{Declaration, Scalar, Tunability, Var};

/// Mass of each pendulum (kg), our default.
pub const MASS: f64 = 1.0;
/// Rod length of each pendulum (m), our default.
pub const LENGTH: f64 = 2.0;
/// Horizontal distance between the two pivots (m), our default.
pub const PIVOT_SPACING: f64 = 10.5;
/// Gravitational acceleration (m/s2), along `-y`.
pub const GRAVITY: f64 = 9.81;
/// The HHT-alpha damping parameter both pendulum subsystems are integrated with.
///
/// The benchmark integrates each pendulum by symplectic Euler with an augmented Lagrangian,
/// which keeps the rod length. Symplectic Euler on the index-1 form (rod imposed at
/// acceleration level only) lets it drift instead: pendulum 1 with its spring to a fixed
/// second mass, 10 s at 1 ms, drifted by 5.9 mm and lost 0.075 J steadily, a secular energy
/// error that would blur the coupling's energy balance. HHT on the index-3 form keeps the rod
/// to rounding (4e-16 m) with an energy error below 4e-6 J in the same run; a slight
/// numerical damping (`alpha = -0.05`) damps the multiplier's response to the held inputs'
/// jumps at communication points.
pub const HHT_ALPHA: f64 = -0.05;
/// Number of pendulum parameters [`declare`] adds: `m, l, pivot_x, pivot_y, g`.
pub const PARAMETER_COUNT: usize = 5;

/// Where a pendulum hangs and how it starts (at rest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// Horizontal position of the pivot (m); the pivot lies on `y = 0`.
    pub pivot_x: f64,
    /// Initial angle of the rod from the downward vertical (rad), positive toward `+x`.
    pub angle: f64,
}

/// Pendulum 1: pivot at the origin, deflected by `pi/4` toward pendulum 2.
pub const LEFT: Setup = Setup {
    pivot_x: 0.0,
    angle: std::f64::consts::FRAC_PI_4,
};
/// Pendulum 2: pivot [`PIVOT_SPACING`] to the right, deflected by `pi/18` toward pendulum 1.
pub const RIGHT: Setup = Setup {
    pivot_x: PIVOT_SPACING,
    angle: -std::f64::consts::PI / 18.0,
};

impl Setup {
    /// The initial tip position `pivot + l (sin angle, -cos angle)` for the default rod length.
    pub fn tip(&self) -> [f64; 2] {
        let (sin, cos) = self.angle.sin_cos();
        [self.pivot_x + LENGTH * sin, -LENGTH * cos]
    }
}

/// The distance between the two initial tips, the unloaded length of the coupling spring.
pub fn rest_length() -> f64 {
    let ([xa, ya], [xb, yb]) = (LEFT.tip(), RIGHT.tip());
    (xb - xa).hypot(yb - ya)
}

/// Adds the states `x, y, vx, vy` (starting at rest at `setup`'s tip) and the parameters
/// `m, l, pivot_x, pivot_y, g`, in the order [`Pendulum::from_parameters`] reads them.
pub fn declare(declaration: Declaration, setup: &Setup) -> Declaration {
    let [x, y] = setup.tip();
    let fixed = |name: &str, value: f64, unit: &str, text: &str| {
        Var::new(name, value).unit(unit).description(text)
    };
    declaration
        .state(
            Var::new("x", x)
                .unit("m")
                .description("horizontal position of the mass"),
        )
        .state(
            Var::new("y", y)
                .unit("m")
                .description("vertical position of the mass (up)"),
        )
        .state(
            Var::new("vx", 0.0)
                .unit("m/s")
                .description("horizontal velocity of the mass"),
        )
        .state(
            Var::new("vy", 0.0)
                .unit("m/s")
                .description("vertical velocity of the mass"),
        )
        .parameter(fixed("m", MASS, "kg", "mass at the tip"), Tunability::Fixed)
        .parameter(fixed("l", LENGTH, "m", "rod length"), Tunability::Fixed)
        .parameter(
            fixed(
                "pivot_x",
                setup.pivot_x,
                "m",
                "horizontal position of the pivot",
            ),
            Tunability::Fixed,
        )
        .parameter(
            fixed("pivot_y", 0.0, "m", "vertical position of the pivot"),
            Tunability::Fixed,
        )
        .parameter(
            fixed("g", GRAVITY, "m/s2", "gravitational acceleration, along -y"),
            Tunability::Fixed,
        )
}

/// Adds the outputs `tip_x, tip_y, tip_vx, tip_vy`: the position and the velocity of the mass,
/// the states `x, y, vx, vy` that [`declare`] adds.
pub fn declare_tip_outputs(declaration: Declaration) -> Declaration {
    declaration
        .output(
            Var::new("tip_x", 0.0)
                .unit("m")
                .description("horizontal position of the mass"),
        )
        .output(
            Var::new("tip_y", 0.0)
                .unit("m")
                .description("vertical position of the mass"),
        )
        .output(
            Var::new("tip_vx", 0.0)
                .unit("m/s")
                .description("horizontal velocity of the mass"),
        )
        .output(
            Var::new("tip_vy", 0.0)
                .unit("m/s")
                .description("vertical velocity of the mass"),
        )
}

/// The parameters of one pendulum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum<T> {
    /// Mass at the tip (kg).
    pub m: T,
    /// Rod length (m).
    pub l: T,
    /// Pivot position (m).
    pub pivot: [T; 2],
    /// Gravitational acceleration (m/s2).
    pub g: T,
}

impl<T: Scalar> Pendulum<T> {
    /// Reads the parameters in the order [`declare`] adds them.
    pub fn from_parameters(p: &[T]) -> Self {
        Pendulum {
            m: p[0],
            l: p[1],
            pivot: [p[2], p[3]],
            g: p[4],
        }
    }

    /// Writes `diag(m, m)` into a zeroed 2 x 2 row-major buffer.
    pub fn mass_matrix(&self, mass: &mut [T]) {
        mass[0] = self.m;
        mass[3] = self.m;
    }

    /// The weight `(0, -m g)`.
    pub fn gravity(&self) -> [T; 2] {
        [T::cst(0.0), -self.m * self.g]
    }

    /// The rod constraint `((x - x_A)^2 + (y - y_A)^2 - l^2) / 2`.
    pub fn constraint(&self, q: &[T]) -> T {
        let (dx, dy) = (q[0] - self.pivot[0], q[1] - self.pivot[1]);
        T::cst(0.5) * (dx * dx + dy * dy - self.l * self.l)
    }

    /// Kinetic plus potential energy, the potential measured from the pivot's height.
    pub fn energy(&self, q: &[T], v: &[T]) -> T {
        let kinetic = T::cst(0.5) * self.m * (v[0] * v[0] + v[1] * v[1]);
        kinetic + self.m * self.g * (q[1] - self.pivot[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reconstructed_geometry_gives_the_published_spring_length() {
        // Rodríguez et al. (2022) give l0 ~ 8.756 m; our geometry gives 8.7561 m.
        let l0 = rest_length();
        assert!((l0 - 8.7561).abs() < 5e-5, "{l0}");
        // Both tips lie on their rods, the two pendula deflected toward each other.
        for setup in [LEFT, RIGHT] {
            let [x, y] = setup.tip();
            assert!(((x - setup.pivot_x).hypot(y) - LENGTH).abs() < 1e-15);
            assert!(y < 0.0);
        }
        assert!(LEFT.tip()[0] > 0.0 && RIGHT.tip()[0] < PIVOT_SPACING);
    }

    #[test]
    fn declared_parameters_are_read_back_in_order() {
        let declaration = declare(Declaration::new("pendulum", ""), &RIGHT);
        assert_eq!(declaration.parameters.len(), PARAMETER_COUNT);
        let pendulum = Pendulum::from_parameters(&declaration.parameter_starts());
        assert_eq!(
            pendulum,
            Pendulum {
                m: MASS,
                l: LENGTH,
                pivot: [PIVOT_SPACING, 0.0],
                g: GRAVITY
            }
        );
        assert!(pendulum.constraint(&declaration.state_starts()[..2]).abs() < 1e-15);
    }

    #[test]
    fn energy_is_kinetic_plus_height_above_the_pivot() {
        let pendulum = Pendulum {
            m: 2.0,
            l: 1.5,
            pivot: [1.0, 0.5],
            g: 10.0,
        };
        // v = (3, 4): kinetic 25 J; height -1 m: potential -20 J.
        assert_eq!(pendulum.energy(&[1.0, -0.5], &[3.0, -4.0]), 5.0);
        assert_eq!(pendulum.gravity(), [0.0, -20.0]);
        assert_eq!(pendulum.constraint(&[1.0, -1.0]), 0.0);
    }
}
