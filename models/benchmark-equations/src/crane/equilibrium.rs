//! The crane's static initial state: the arm at rest at its initial angles, the cylinder
//! holding it with constant pressures.
//!
//! 1. The actuator force that holds the arm: with `J = ds/dtheta`, the actuator's acceleration
//!    `J theta''` vanishes for `f = -M_eff J M^-1 (f_grav - f_cor)`,
//!    `M_eff = (J M^-1 J^T)^-1` (at rest `f_cor = 0`).
//! 2. The pressures and the spool displacement that deliver this force with zero pressure
//!    rates: Newton's method on `z = (p1, p2, gamma)` with the residual
//!    `[f - A (p2 - p1), p1', p2']` at `s' = 0`, from `(3.3 MPa, 4.4 MPa, 0.5)` as in the
//!    benchmark code, with the exact Jacobian from dual numbers.

use fmu_export::jacobian::jacobian;
use fmu_export::linear;
use fmu_export::scalar::Dual64;
use fmu_export::Scalar;

use super::arm::{self, Arm};
use super::cylinder::{self, Cylinder};

/// Newton's starting point `(p1, p2, gamma)`.
const START: [f64; 3] = [3.3e6, 4.4e6, 0.5];
/// Newton stops when every update is below this fraction of its unknown.
const RELATIVE_UPDATE: f64 = 1e-13;
/// Newton gives up after this many iterations.
const MAX_ITERATIONS: usize = 50;

/// A static state of the cylinder holding the arm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Equilibrium {
    /// Actuator force (N).
    pub force: f64,
    /// Actuator length (m).
    pub s: f64,
    /// Pressure in chamber 1 (Pa).
    pub p1: f64,
    /// Pressure in chamber 2 (Pa).
    pub p2: f64,
    /// Spool displacement.
    pub gamma: f64,
}

/// Newton's method found no equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct NoEquilibrium {
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for NoEquilibrium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no static equilibrium of the crane's cylinder: {}",
            self.reason
        )
    }
}

impl std::error::Error for NoEquilibrium {}

/// The actuator force that holds the arm at rest at `theta`.
pub fn holding_force<T: Scalar>(arm: &Arm<T>, theta: [T; 2]) -> T {
    let zero = T::cst(0.0);
    let jacobian = arm.actuator_jacobian(theta[0]);
    let free = arm.solve_mass(theta, arm.generalized_forces(theta, [zero, zero], zero));
    let unit_force = arm.solve_mass(theta, [jacobian, zero]);
    -(jacobian * free[0]) / (jacobian * unit_force[0])
}

/// The static state of `cylinder` holding `arm` at rest at `theta`.
pub fn equilibrium(
    arm: &Arm<f64>,
    cylinder: &Cylinder<f64>,
    theta: [f64; 2],
) -> Result<Equilibrium, NoEquilibrium> {
    let force = holding_force(arm, theta);
    let s = arm.actuator_length(theta[0]);
    let residual = |z: &[Dual64], r: &mut [Dual64]| {
        let c = cylinder.lift::<Dual64>();
        let (p1, p2, gamma, zero) = (z[0], z[1], z[2], Dual64::cst(0.0));
        r[0] = c.force(p1, p2, zero) - Dual64::cst(force);
        let rates = c.pressure_rates(Dual64::cst(s), zero, p1, p2, gamma);
        r[1] = rates[0];
        r[2] = rates[1];
    };
    let mut z = START;
    for _ in 0..MAX_ITERATIONS {
        let (matrix, mut update) = jacobian(&z, 3, residual);
        linear::solve(matrix, &mut update, 3).map_err(|_| NoEquilibrium {
            reason: format!("singular Jacobian at (p1, p2, gamma) = {z:?}"),
        })?;
        for (zi, di) in z.iter_mut().zip(&update) {
            *zi -= di;
        }
        if !z.iter().all(|v| v.is_finite()) {
            return Err(NoEquilibrium {
                reason: "Newton's iterate became non-finite".into(),
            });
        }
        if update
            .iter()
            .zip(&z)
            .all(|(d, zi)| d.abs() <= RELATIVE_UPDATE * zi.abs())
        {
            let [p1, p2, gamma] = z;
            return Ok(Equilibrium {
                force,
                s,
                p1,
                p2,
                gamma,
            });
        }
    }
    Err(NoEquilibrium {
        reason: format!(
            "Newton did not converge in {MAX_ITERATIONS} iterations (last iterate {z:?})"
        ),
    })
}

/// The benchmark's initial state: [`arm::BENCHMARK`] at [`arm::INITIAL_ANGLES`] held by
/// [`cylinder::BENCHMARK`].
pub fn benchmark() -> Equilibrium {
    equilibrium(&arm::BENCHMARK, &cylinder::BENCHMARK, arm::INITIAL_ANGLES)
        .expect("the benchmark's own parameters have an equilibrium")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_benchmark_equilibrium_has_the_published_values() {
        // Published: 8829 N, 3.1708 MPa, 4.5292 MPa, gamma0 = 0.45435.
        let e = benchmark();
        assert!((e.force - 8829.0).abs() < 0.5, "{}", e.force);
        assert!((e.p1 - 3.1708e6).abs() < 50.0, "{}", e.p1);
        assert!((e.p2 - 4.5292e6).abs() < 50.0, "{}", e.p2);
        assert!((e.gamma - 0.45435).abs() < 1e-5, "{}", e.gamma);
        assert!((e.s - cylinder::BENCHMARK.s0).abs() < 1e-15);
    }

    #[test]
    fn the_equilibrium_balances_force_and_flows() {
        let e = benchmark();
        let c = cylinder::BENCHMARK;
        assert!((c.force(e.p1, e.p2, 0.0) - e.force).abs() < 1e-9 * e.force);
        let rates = c.pressure_rates(e.s, 0.0, e.p1, e.p2, e.gamma);
        // Each chamber's rate is a difference of terms of about beta Q / V ~ 1e8 Pa/s.
        assert!(rates.iter().all(|r| r.abs() < 1e-4), "{rates:?}");
    }

    #[test]
    fn the_holding_force_stops_the_actuator_but_not_necessarily_the_arm() {
        let arm = arm::BENCHMARK;
        // Away from the initial angles link 2 swings, yet the actuator does not accelerate.
        let theta = [0.9, -1.2];
        let f = holding_force(&arm, theta);
        let acc = arm.accelerations(theta, [0.0, 0.0], f);
        assert!(
            (arm.actuator_jacobian(theta[0]) * acc[0]).abs() < 1e-12,
            "{acc:?}"
        );
        assert!(acc[1].abs() > 1.0);
        // At the initial angles link 2 hangs straight down: the arm is fully at rest.
        let theta = arm::INITIAL_ANGLES;
        let acc = arm.accelerations(theta, [0.0, 0.0], holding_force(&arm, theta));
        assert!(acc.iter().all(|a| a.abs() < 1e-12), "{acc:?}");
    }
}
