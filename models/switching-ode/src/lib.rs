//! The hybrid ODE of Serban & Recuero, "Sensitivity analysis for hybrid systems and systems
//! with memory" (2019), example 5.1 (from Galán, Feehery & Barton 1999):
//!
//! ```text
//! x' = 4 - x      while x^3 - 5 x^2 + 7 x <= p   (mode 1)
//! x' = 10 - 2 x   otherwise                      (mode 2)
//! x(0) = 0, p = 2.9, t in [0, 5],  G = int_0^5 x dt
//! ```
//!
//! The cubic is not monotone, so the solution switches 1 -> 2 -> 1 -> 2. Neither right-hand
//! side depends on `p`: the whole sensitivity `dG/dp` comes from the switching times, which
//! is what makes it a test of the jump conditions. `G` is carried as a quadrature state.

use fmu_export::{
    Args, Crossing, Declaration, DiscreteRole, DiscreteType, Event, Method, OdeModel, Scalar,
    Tunability, Var,
};

/// State indices.
const X: usize = 0;
const G: usize = 1;
/// Parameter index.
const P: usize = 0;
/// Discrete-variable index of the mode (1 or 2).
const MODE: usize = 0;

/// The switching ODE.
#[derive(Default)]
pub struct SwitchingOde;

impl OdeModel for SwitchingOde {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "switching_ode",
            "x' = 4 - x while x^3 - 5x^2 + 7x <= p, else x' = 10 - 2x; G = int x dt",
        )
        .state(Var::new("x", 0.0).description("state"))
        .state(Var::new("G", 0.0).description("quadrature int_0^t x dt"))
        .parameter(
            Var::new("p", 2.9).description("switching threshold on x^3 - 5x^2 + 7x"),
            Tunability::Tunable,
        )
        .output(Var::new("x_out", 0.0).description("x"))
        .output(Var::new("G_out", 0.0).description("G"))
        .discrete(
            Var::new("mode", 1.0).description("1: x' = 4 - x, 2: x' = 10 - 2x"),
            DiscreteType::Integer,
            DiscreteRole::Local,
        )
        .event_indicators(1)
        .cosimulation(
            Method::Sdirk {
                rtol: 1e-10,
                atol: 1e-12,
            },
            0.1,
        )
        .experiment(0.0, 5.0, 1e-10, 0.1)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let x = a.x[X];
        dx[X] = if a.d[MODE] == 1.0 {
            T::cst(4.0) - x
        } else {
            T::cst(10.0) - x * T::cst(2.0)
        };
        dx[G] = x;
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[X];
        y[1] = a.x[G];
    }

    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        let x = a.x[X];
        z[0] = x * (x * (x - T::cst(5.0)) + T::cst(7.0)) - a.p[P];
    }

    /// The cubic rising through `p` enters mode 2, falling through it returns to mode 1; the
    /// state is continuous.
    fn reset<T: Scalar>(&self, _a: &Args<T>, event: Event, _x: &mut [T], d: &mut [f64]) {
        match event {
            Event::State([Crossing::Rising]) => d[MODE] = 2.0,
            Event::State([Crossing::Falling]) => d[MODE] = 1.0,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::{OdeSystem, System};

    #[test]
    fn each_mode_has_its_right_hand_side_and_crossings_switch_modes() {
        let sys = OdeSystem::<SwitchingOde>::default();
        let (x, p) = ([1.5, 0.0], [2.9]);
        let mut dx = [0.0; 2];
        for (mode, expected) in [(1.0, 2.5), (2.0, 7.0)] {
            sys.derivatives(
                &Args {
                    t: 0.0,
                    x: &x,
                    u: &[],
                    p: &p,
                    d: &[mode],
                },
                &mut dx,
            );
            assert_eq!(dx, [expected, 1.5]);
        }
        let mut z = [0.0];
        sys.event_indicators(
            &Args {
                t: 0.0,
                x: &x,
                u: &[],
                p: &p,
                d: &[1.0],
            },
            &mut z,
        );
        assert_eq!(z[0], 1.5f64.powi(3) - 5.0 * 2.25 + 7.0 * 1.5 - 2.9);
        let mut d = [1.0];
        let args = Args {
            t: 0.0,
            x: &x,
            u: &[],
            p: &p,
            d: &[1.0],
        };
        sys.reset(
            &args,
            Event::State(&[Crossing::Rising]),
            &mut x.clone(),
            &mut d,
        );
        assert_eq!(d, [2.0]);
        sys.reset(
            &args,
            Event::State(&[Crossing::Falling]),
            &mut x.clone(),
            &mut d,
        );
        assert_eq!(d, [1.0]);
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<SwitchingOde>);
