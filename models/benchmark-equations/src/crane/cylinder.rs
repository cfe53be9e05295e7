//! The crane's double-acting hydraulic cylinder and its 4-way valve:
//!
//! ```text
//! f   = A (p2 - p1) - c s'
//! p1' = beta(p1) / (A l1) [  A s' + A_i c_d sqrt(2 (p_P - p1) / rho) - A_o c_d sqrt(2 (p1 - p_T) / rho) ]
//! p2' = beta(p2) / (A l2) [ -A s' + A_o c_d sqrt(2 (p_P - p2) / rho) - A_i c_d sqrt(2 (p2 - p_T) / rho) ]
//! l1  = L_c / 2 + s0 - s,   l2 = L_c / 2 + s - s0
//! A_i = A_v gamma,   A_o = A_v (1 - gamma)
//! beta(p) = (1 + a p + b p^2) / (a + 2 b p)
//! ```
//!
//! `s` is the actuator length, `gamma` the spool displacement (the valve command), `beta` the
//! pressure-dependent bulk modulus of Cardona and Géradin (1990). A valve path whose pressure
//! drop is not positive carries no flow (the benchmark's switches `delta`); the flow is
//! continuous across the switch, so no event is needed. The bulk-modulus coefficients are
//! tabulated in the benchmark as "Pa" and "-"; dimensionally they are 1/Pa and 1/Pa^2, which
//! gives about 1.55 GPa at 3.2 MPa.

use fmu_export::{Declaration, Method, Scalar, Tunability, Var};

/// Number of cylinder parameters [`declare_parameters`] adds.
pub const PARAMETER_COUNT: usize = 11;

/// The embedded co-simulation integrator of the models that hold the stiff pressures (bulk
/// modulus about 1.5 GPa): the L-stable ESDIRK with error control at the relative tolerance
/// 1e-8 and the absolute tolerance 1e-10, for the states that start at zero (the crane's
/// angular velocities); the pressures are governed by the relative one (1e-8 of 3 MPa is
/// 0.03 Pa).
pub const INTEGRATOR: Method = Method::Sdirk {
    rtol: 1e-8,
    atol: 1e-10,
};

/// The cylinder's and the valve's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder<T> {
    /// Piston area `A` (m2).
    pub area: T,
    /// Cylinder length `L_c` (m): each chamber is `L_c / 2` long at `s = s0`.
    pub length: T,
    /// Viscous friction coefficient `c` (N.s/m).
    pub friction: T,
    /// Valve discharge coefficient `c_d`.
    pub discharge: T,
    /// Fluid density `rho` (kg/m3).
    pub density: T,
    /// Pump pressure `p_P` (Pa).
    pub pump_pressure: T,
    /// Tank pressure `p_T` (Pa).
    pub tank_pressure: T,
    /// Bulk-modulus coefficient `a` (1/Pa).
    pub bulk_a: T,
    /// Bulk-modulus coefficient `b` (1/Pa2).
    pub bulk_b: T,
    /// Valve area at full opening `A_v` (m2).
    pub valve_area: T,
    /// Actuator length `s0` at which both chambers are equally long (m).
    pub s0: T,
}

/// The benchmark's cylinder.
pub const BENCHMARK: Cylinder<f64> = Cylinder {
    area: 65e-4,
    length: 0.442,
    friction: 1e5,
    discharge: 0.67,
    density: 850.0,
    pump_pressure: 7.6e6,
    tank_pressure: 0.1e6,
    bulk_a: 6.53e-10,
    bulk_b: -1.19e-18,
    valve_area: 5e-4,
    s0: 0.5,
};

/// Adds the states `p1, p2` (chamber pressures) with the start values `pressures`.
pub fn declare_pressures(declaration: Declaration, pressures: [f64; 2]) -> Declaration {
    let [p1, p2] = pressures;
    declaration
        .state(
            Var::new("p1", p1)
                .unit("Pa")
                .nominal(1e6)
                .description("pressure in chamber 1, which shrinks as the actuator extends"),
        )
        .state(
            Var::new("p2", p2)
                .unit("Pa")
                .nominal(1e6)
                .description("pressure in chamber 2, which grows as the actuator extends"),
        )
}

/// Adds the parameters of [`BENCHMARK`] in the order [`Cylinder::from_parameters`] reads them.
pub fn declare_parameters(declaration: Declaration) -> Declaration {
    let c = BENCHMARK;
    let fixed = |name: &str, value: f64, unit: &str, text: &str| {
        // Values span 1e-18 to 1e7: the nominal tells hosts each one's scale.
        let var = Var::new(name, value).description(text).nominal(value.abs());
        (
            if unit.is_empty() { var } else { var.unit(unit) },
            Tunability::Fixed,
        )
    };
    [
        fixed("A_p", c.area, "m2", "piston area"),
        fixed(
            "L_c",
            c.length,
            "m",
            "cylinder length; each chamber is L_c/2 long at s = s0",
        ),
        fixed(
            "c",
            c.friction,
            "N.s/m",
            "viscous friction coefficient of the actuator",
        ),
        fixed("c_d", c.discharge, "", "valve discharge coefficient"),
        fixed("rho", c.density, "kg/m3", "fluid density"),
        fixed("p_P", c.pump_pressure, "Pa", "pump pressure"),
        fixed("p_T", c.tank_pressure, "Pa", "tank pressure"),
        fixed(
            "beta_a",
            c.bulk_a,
            "1/Pa",
            "bulk-modulus coefficient a: beta = (1 + a p + b p^2)/(a + 2 b p)",
        ),
        fixed("beta_b", c.bulk_b, "1/Pa2", "bulk-modulus coefficient b"),
        fixed("A_v", c.valve_area, "m2", "valve area at full opening"),
        fixed(
            "s0",
            c.s0,
            "m",
            "actuator length at which both chambers are equally long",
        ),
    ]
    .into_iter()
    .fold(declaration, |d, (var, tunability)| {
        d.parameter(var, tunability)
    })
}

impl Cylinder<f64> {
    /// The same cylinder in another scalar type.
    pub fn lift<S: Scalar>(&self) -> Cylinder<S> {
        let c = S::cst;
        Cylinder {
            area: c(self.area),
            length: c(self.length),
            friction: c(self.friction),
            discharge: c(self.discharge),
            density: c(self.density),
            pump_pressure: c(self.pump_pressure),
            tank_pressure: c(self.tank_pressure),
            bulk_a: c(self.bulk_a),
            bulk_b: c(self.bulk_b),
            valve_area: c(self.valve_area),
            s0: c(self.s0),
        }
    }
}

impl<T: Scalar> Cylinder<T> {
    /// Reads the parameters in the order [`declare_parameters`] adds them.
    pub fn from_parameters(p: &[T]) -> Self {
        Cylinder {
            area: p[0],
            length: p[1],
            friction: p[2],
            discharge: p[3],
            density: p[4],
            pump_pressure: p[5],
            tank_pressure: p[6],
            bulk_a: p[7],
            bulk_b: p[8],
            valve_area: p[9],
            s0: p[10],
        }
    }

    /// The force on the actuator, positive extending: `A (p2 - p1) - c s'`.
    pub fn force(&self, p1: T, p2: T, s_rate: T) -> T {
        self.area * (p2 - p1) - self.friction * s_rate
    }

    /// The bulk modulus `beta(p)` (Pa).
    pub fn bulk_modulus(&self, p: T) -> T {
        let (a, b) = (self.bulk_a, self.bulk_b);
        (T::cst(1.0) + a * p + b * p * p) / (a + T::cst(2.0) * b * p)
    }

    /// The flow through a valve path of open area `area` under the pressure drop `drop`:
    /// `area c_d sqrt(2 drop / rho)`, or none when the drop is not positive.
    pub fn orifice_flow(&self, area: T, drop: T) -> T {
        if drop.real() > 0.0 {
            area * self.discharge * (T::cst(2.0) * drop / self.density).sqrt()
        } else {
            T::cst(0.0)
        }
    }

    /// The pressure rates `(p1', p2')` at actuator length `s`, rate `s_rate`, spool `gamma`.
    pub fn pressure_rates(&self, s: T, s_rate: T, p1: T, p2: T, gamma: T) -> [T; 2] {
        let half = T::cst(0.5) * self.length;
        let (l1, l2) = (half + self.s0 - s, half + s - self.s0);
        let inlet = self.valve_area * gamma;
        let outlet = self.valve_area * (T::cst(1.0) - gamma);
        let (pump, tank) = (self.pump_pressure, self.tank_pressure);
        let flow1 = self.orifice_flow(inlet, pump - p1) - self.orifice_flow(outlet, p1 - tank);
        let flow2 = self.orifice_flow(outlet, pump - p2) - self.orifice_flow(inlet, p2 - tank);
        let displaced = self.area * s_rate;
        [
            self.bulk_modulus(p1) / (self.area * l1) * (displaced + flow1),
            self.bulk_modulus(p2) / (self.area * l2) * (flow2 - displaced),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `area c_d sqrt(2 drop / rho)` for the benchmark valve.
    fn flow(area: f64, drop: f64) -> f64 {
        area * 0.67 * (2.0 * drop / 850.0).sqrt()
    }

    #[test]
    fn pressure_rates_match_the_formulas_written_out() {
        let c = BENCHMARK;
        let (s, rate, p1, p2, gamma) = (0.53, -0.02, 3.4e6, 4.1e6, 0.42);
        let beta =
            |p: f64| (1.0 + 6.53e-10 * p - 1.19e-18 * p * p) / (6.53e-10 - 2.0 * 1.19e-18 * p);
        let (l1, l2) = (0.221 + 0.5 - s, 0.221 + s - 0.5);
        let (inlet, outlet) = (5e-4 * gamma, 5e-4 * (1.0 - gamma));
        let expected = [
            beta(p1) / (65e-4 * l1)
                * (65e-4 * rate + flow(inlet, 7.6e6 - p1) - flow(outlet, p1 - 0.1e6)),
            beta(p2) / (65e-4 * l2)
                * (-65e-4 * rate + flow(outlet, 7.6e6 - p2) - flow(inlet, p2 - 0.1e6)),
        ];
        let rates = c.pressure_rates(s, rate, p1, p2, gamma);
        for i in 0..2 {
            assert!(
                (rates[i] - expected[i]).abs() < 1e-9 * expected[i].abs(),
                "{rates:?} vs {expected:?}"
            );
        }
        assert_eq!(c.force(p1, p2, rate), 65e-4 * 0.7e6 + 1e5 * 0.02);
    }

    #[test]
    fn the_bulk_modulus_is_about_one_and_a_half_gigapascal() {
        let beta = BENCHMARK.bulk_modulus(3.2e6);
        assert!((1.5e9..1.6e9).contains(&beta), "{beta}");
    }

    #[test]
    fn a_path_without_a_positive_pressure_drop_carries_no_flow() {
        let c = BENCHMARK;
        assert_eq!(c.orifice_flow(1e-4, 0.0), 0.0);
        assert_eq!(c.orifice_flow(1e-4, -2e5), 0.0);
        assert_eq!(c.orifice_flow(1e-4, 8.5e3), 1e-4 * 0.67 * 20f64.sqrt());
        // Chamber 1 above pump pressure: it can only drain to the tank.
        let rates = c.pressure_rates(0.5, 0.0, 8e6, 4e6, 0.5);
        let drain = -flow(2.5e-4, 8e6 - 0.1e6);
        let expected = c.bulk_modulus(8e6) / (65e-4 * 0.221) * drain;
        assert!(
            (rates[0] - expected).abs() < 1e-9 * expected.abs(),
            "{} vs {expected}",
            rates[0]
        );
    }

    #[test]
    fn declared_parameters_are_read_back_in_order() {
        let declaration = declare_parameters(Declaration::new("cylinder", ""));
        assert_eq!(declaration.parameters.len(), PARAMETER_COUNT);
        assert_eq!(
            Cylinder::from_parameters(&declaration.parameter_starts()),
            BENCHMARK
        );
        assert_eq!(BENCHMARK.lift::<f64>(), BENCHMARK);
    }
}
