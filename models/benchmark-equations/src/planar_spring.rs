//! A massless linear spring-damper between two points `a` and `b` of the plane: the coupling
//! element of the coupled pendula.
//!
//! With `d = r_b - r_a`, length `|d|`, direction `e = d / |d|` and elongation rate
//! `e . (v_b - v_a)`, the tension is `T = k (|d| - l0) + c e . (v_b - v_a)`; the force on `b`
//! is `-T e` and the force on `a` is `+T e`.

use fmu_export::Scalar;

/// Stiffness, damping and unloaded length of the spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarSpring<T> {
    /// Stiffness (N/m).
    pub k: T,
    /// Damping (N.s/m).
    pub c: T,
    /// Unloaded length (m).
    pub l0: T,
}

impl<T: Scalar> PlanarSpring<T> {
    /// The force on end `b` at positions `ra`, `rb` and velocities `va`, `vb`.
    pub fn force_on_b(&self, ra: [T; 2], va: [T; 2], rb: [T; 2], vb: [T; 2]) -> [T; 2] {
        let d = [rb[0] - ra[0], rb[1] - ra[1]];
        let length = (d[0] * d[0] + d[1] * d[1]).sqrt();
        let e = [d[0] / length, d[1] / length];
        let rate = e[0] * (vb[0] - va[0]) + e[1] * (vb[1] - va[1]);
        let tension = self.k * (length - self.l0) + self.c * rate;
        [-tension * e[0], -tension * e[1]]
    }

    /// The stored energy `k (|r_b - r_a| - l0)^2 / 2`.
    pub fn energy(&self, ra: [T; 2], rb: [T; 2]) -> T {
        let (dx, dy) = (rb[0] - ra[0], rb[1] - ra[1]);
        let stretch = (dx * dx + dy * dy).sqrt() - self.l0;
        T::cst(0.5) * self.k * stretch * stretch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;

    const SPRING: PlanarSpring<f64> = PlanarSpring {
        k: 10.0,
        c: 0.5,
        l0: 4.0,
    };

    #[test]
    fn a_stretched_spring_pulls_b_toward_a_and_damping_opposes_separation() {
        // a at the origin, b at (3, 4): length 5, stretch 1, e = (0.6, 0.8).
        let ([ra, rb], zero) = ([[0.0, 0.0], [3.0, 4.0]], [0.0, 0.0]);
        assert_eq!(SPRING.force_on_b(ra, zero, rb, zero), [-6.0, -8.0]);
        // b separating at 2 m/s along e adds a tension c * 2 = 1 N.
        let f = SPRING.force_on_b(ra, zero, rb, [1.2, 1.6]);
        assert!(
            (f[0] + 6.6).abs() < 1e-14 && (f[1] + 8.8).abs() < 1e-14,
            "{f:?}"
        );
        // Sliding perpendicular to the spring does not load the damper.
        assert_eq!(SPRING.force_on_b(ra, zero, rb, [-0.8, 0.6]), [-6.0, -8.0]);
        assert_eq!(SPRING.energy(ra, rb), 5.0);
    }

    #[test]
    fn the_elastic_force_is_minus_the_energy_gradient() {
        let (ra, rb) = ([0.3, -1.2], [8.1, -2.0]);
        let (gradient, _) = jacobian(&[rb[0], rb[1]], 1, |x, y| {
            let spring = PlanarSpring {
                k: 10.0.into(),
                c: 0.5.into(),
                l0: 4.0.into(),
            };
            y[0] = spring.energy([ra[0].into(), ra[1].into()], [x[0], x[1]]);
        });
        let force = SPRING.force_on_b(ra, [0.0; 2], rb, [0.0; 2]);
        for i in 0..2 {
            assert!(
                (gradient[i] + force[i]).abs() < 1e-13,
                "{gradient:?} vs {force:?}"
            );
        }
    }
}
