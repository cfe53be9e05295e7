//! The hydraulic subsystem H of the hydraulic crane of Rodríguez et al. (2022, Sect. 4.4):
//! the cylinder's chamber pressures `p1, p2` under the valve's flows, driven by the actuator
//! length `s_c` and rate `s_c_dot` (the inputs, from `crane-arm`), with the valve's spool
//! following the manoeuvre `gamma(t)` (equations in [`benchmark_equations::crane::cylinder`]
//! and [`benchmark_equations::crane::manoeuvre`]):
//!
//! ```text
//! p' = h(s_c, s_c_dot, p, gamma(t)),    f = A (p2 - p1) - c s_c_dot
//! ```
//!
//! The output `f`, the actuator force, depends directly on `s_c_dot` through the friction term
//! (direct feedthrough). The pressure dynamics are stiff (bulk modulus about 1.5 GPa), so the
//! model is integrated by the L-stable ESDIRK method with error control; the kinks of the
//! manoeuvre are time events.
//!
//! Defaults: the benchmark's values; the pressures start at the static equilibrium that holds
//! the arm at its initial angles (3.1708 and 4.5292 MPa), `gamma0` is that equilibrium's spool
//! displacement (0.45435), and the inputs start at the arm's initial state (0.5 m, at rest).
//! Changing the parameters changes the equilibrium: set `p1`, `p2` and `gamma0` accordingly
//! (`benchmark_equations::crane::equilibrium` computes them).

use benchmark_equations::crane::cylinder::{self, Cylinder};
use benchmark_equations::crane::manoeuvre::{self, Manoeuvre};
use benchmark_equations::crane::{equilibrium, signals};
use fmu_export::{Args, Declaration, OdeModel, Scalar};

/// Index of the parameter `gamma0`, after the cylinder's.
const GAMMA0: usize = cylinder::PARAMETER_COUNT;
/// Index of the discrete parameter `manoeuvre`.
const MANOEUVRE: usize = 0;
/// Input indices.
const S: usize = 0;
const S_RATE: usize = 1;
/// Index of the output `f`.
pub const FORCE: usize = 0;
/// Index of the output `gamma`.
pub const SPOOL: usize = 1;

/// The crane-cylinder model.
#[derive(Default)]
pub struct CraneCylinder;

/// The spool displacement at the arguments' time.
fn spool<T: Scalar>(a: &Args<T>) -> T {
    Manoeuvre::from_setting(a.d[MANOEUVRE]).spool(a.t, a.p[GAMMA0])
}

impl OdeModel for CraneCylinder {
    fn declaration(&self) -> Declaration {
        let start = equilibrium::benchmark();
        let declaration = Declaration::new(
            "crane_cylinder",
            "Hydraulic cylinder and valve of the crane: chamber pressures p1, p2 driven by the actuator \
             length s_c and rate s_c_dot and by the spool manoeuvre gamma(t); force f = A_p (p2 - p1) - c s_c_dot",
        );
        let declaration = cylinder::declare_pressures(declaration, [start.p1, start.p2]);
        manoeuvre::declare(cylinder::declare_parameters(declaration), start.gamma)
            .input(signals::actuator_length(start.s))
            .input(signals::actuator_rate(0.0))
            .output(
                signals::actuator_force(0.0)
                    .description("actuator force, positive extending; depends on s_c_dot"),
            )
            .output(signals::spool())
            .cosimulation(cylinder::INTEGRATOR, 1e-3)
            .experiment(0.0, 10.0, 1e-8, 1e-3)
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let rates = Cylinder::from_parameters(a.p).pressure_rates(
            a.u[S],
            a.u[S_RATE],
            a.x[0],
            a.x[1],
            spool(a),
        );
        dx.copy_from_slice(&rates);
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[FORCE] = Cylinder::from_parameters(a.p).force(a.x[0], a.x[1], a.u[S_RATE]);
        y[SPOOL] = spool(a);
    }

    fn next_time_event(&self, t: f64, _p: &[f64], d: &[f64]) -> Option<f64> {
        Manoeuvre::from_setting(d[MANOEUVRE]).next_kink(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{Integrator, OdeSystem, StepInputs, System};

    #[test]
    fn the_default_start_is_the_published_static_equilibrium() {
        let sys = OdeSystem::<CraneCylinder>::default();
        let d = sys.declaration();
        let (x, u, p, disc) = (
            d.state_starts(),
            d.input_starts(),
            d.parameter_starts(),
            d.discrete_starts(),
        );
        let args = Args {
            t: 0.0,
            x: &x,
            u: &u,
            p: &p,
            d: &disc,
        };
        let mut y = [f64::NAN; 2];
        sys.outputs(&args, &mut y);
        // Published: 8829 N, gamma0 = 0.45435; the pressures hold still.
        assert!((y[FORCE] - 8829.0).abs() < 0.5, "{}", y[FORCE]);
        assert!((y[SPOOL] - 0.45435).abs() < 1e-5, "{}", y[SPOOL]);
        let mut dx = [f64::NAN; 2];
        sys.derivatives(&args, &mut dx);
        assert!(dx.iter().all(|r| r.abs() < 1e-4), "{dx:?}");
    }

    #[test]
    fn derivatives_and_outputs_follow_the_cylinder_and_the_manoeuvre() {
        let sys = OdeSystem::<CraneCylinder>::default();
        let d = sys.declaration();
        let p = d.parameter_starts();
        let (x, u, t) = ([3.3e6, 4.2e6], [0.52, -0.03], 0.6);
        let gamma = Manoeuvre::Sinusoid.spool(t, p[GAMMA0]);
        let expected = cylinder::BENCHMARK.pressure_rates(u[0], u[1], x[0], x[1], gamma);
        let mut dx = [f64::NAN; 2];
        sys.derivatives(
            &Args {
                t,
                x: &x,
                u: &u,
                p: &p,
                d: &[2.0],
            },
            &mut dx,
        );
        assert_eq!(dx, expected);
        // Manoeuvre 1 holds gamma0 until 2 s.
        let mut y = [f64::NAN; 2];
        sys.outputs(
            &Args {
                t,
                x: &x,
                u: &u,
                p: &p,
                d: &[1.0],
            },
            &mut y,
        );
        assert_eq!(y, [65e-4 * 0.9e6 + 1e5 * 0.03, p[GAMMA0]]);
        assert_eq!(sys.next_time_event(t, &p, &[2.0]), Some(1.0));
        assert_eq!(sys.next_time_event(t, &p, &[1.0]), Some(2.0));
    }

    #[test]
    fn the_force_feeds_the_rate_through_and_the_pressures_respond_to_the_motion() {
        let sys = OdeSystem::<CraneCylinder>::default();
        let d = sys.declaration();
        let p = d.parameter_starts();
        let w = [3.3e6, 4.2e6, 0.52, -0.03];
        let evaluate = |derivatives: bool| {
            jacobian(&w, 2, |w, out| {
                let p: Vec<_> = p.iter().map(|&v| v.into()).collect();
                let args = Args {
                    t: 0.6.into(),
                    x: &w[..2],
                    u: &w[2..],
                    p: &p,
                    d: &[2.0],
                };
                if derivatives {
                    sys.derivatives(&args, out)
                } else {
                    sys.outputs(&args, out)
                }
            })
            .0
        };
        // Columns p1, p2, s_c, s_c_dot. df/dp = (-A, A), df/ds = 0, df/ds' = -c.
        let outputs = evaluate(false);
        assert_eq!(&outputs[..4], &[-65e-4, 65e-4, 0.0, -1e5]);
        // dp1'/ds' = beta1 / l1 and dp2'/ds' = -beta2 / l2: the chambers' hydraulic stiffness.
        let rates = evaluate(true);
        let c = cylinder::BENCHMARK;
        let (l1, l2) = (0.221 + 0.5 - 0.52, 0.221 + 0.52 - 0.5);
        let expected = [c.bulk_modulus(3.3e6) / l1, -c.bulk_modulus(4.2e6) / l2];
        assert!(
            (rates[3] - expected[0]).abs() < 1e-9 * expected[0].abs(),
            "{} vs {}",
            rates[3],
            expected[0]
        );
        assert!(
            (rates[7] - expected[1]).abs() < 1e-9 * expected[1].abs(),
            "{} vs {}",
            rates[7],
            expected[1]
        );
    }

    #[test]
    fn held_at_its_start_the_cylinder_follows_the_valve_and_crosses_the_time_events() {
        // The actuator held at 0.5 m: the sinusoidal spool drives the pressures; doStep over
        // 1.2 s must stop at the kink at 1 s and the force must stay finite.
        let sys = OdeSystem::<CraneCylinder>::default();
        let d = sys.declaration();
        let (x0, u, p, mut disc) = (
            d.state_starts(),
            d.input_starts(),
            d.parameter_starts(),
            d.discrete_starts(),
        );
        let mut integrator = sys.integrator();
        integrator
            .initialize(&sys, 0.0, &x0, &StepInputs::held(0.0, &u), &p, &disc)
            .unwrap();
        let report = integrator
            .do_step(&sys, 0.0, 1.2, &StepInputs::held(0.0, &u), &p, &mut disc)
            .unwrap();
        assert_eq!(report.events, 1);
        let mut y = [f64::NAN; 2];
        integrator.outputs(&sys, 1.2, &u, &p, &disc, &mut y);
        assert!(
            y[FORCE].is_finite() && (y[FORCE] - 8829.0).abs() > 1.0,
            "{y:?}"
        );
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<CraneCylinder>);
