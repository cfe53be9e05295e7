//! A small hybrid model with its own explicit integrator, so that the instance logic
//! (including Co-Simulation) is tested independently of the production integrators.

use crate::declaration::{Declaration, DiscreteRole, DiscreteType, Tunability, Var};
use crate::ode::{Args, Crossing, Event};
use crate::scalar::Scalar;
use crate::system::{Integrator, StepError, StepInputs, StepReport, System};

/// Ball with a nonlinear drag and an input force; bounces at h = 0 and counts half-second ticks.
pub struct Ball {
    declaration: Declaration,
}

impl Default for Ball {
    fn default() -> Self {
        let declaration = Declaration::new("ball", "test model")
            .state(Var::new("h", 1.0).nominal(2.0))
            .state(Var::new("v", 0.0))
            .input(Var::new("F", 0.0))
            .parameter(Var::new("g", 9.81), Tunability::Tunable)
            .parameter(Var::new("e", 0.7).range(0.0, 1.0), Tunability::Fixed)
            .parameter(Var::new("k", 0.1), Tunability::Tunable)
            .output(Var::new("y0", 0.0))
            .output(Var::new("y1", 0.0))
            .discrete(
                Var::new("bounces", 0.0),
                DiscreteType::Integer,
                DiscreteRole::Output,
            )
            .discrete(
                Var::new("ticks", 0.0),
                DiscreteType::Real,
                DiscreteRole::Local,
            )
            .discrete(
                Var::new("enabled", 1.0),
                DiscreteType::Boolean,
                DiscreteRole::Parameter,
            )
            .event_indicators(1)
            .string_parameter("surface", "floor", "what the ball bounces on")
            .string_output("status", "the bounce count and the surface");
        Ball { declaration }
    }
}

impl System for Ball {
    type Integrator = Rk4;

    fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let (h, v) = (a.x[0], a.x[1]);
        dx[0] = v;
        dx[1] = -a.p[0] - a.p[2] * v.powi(3) + h.sin() * a.u[0] + a.t * T::cst(0.01);
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[0] * a.x[0] * a.x[1] + a.u[0] * a.p[2];
        y[1] = (-a.x[0]).exp() * a.p[0] + a.t * a.t;
    }

    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[0];
    }

    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x_new: &mut [T], d_new: &mut [f64]) {
        match event {
            Event::State(c) if c[0] == Crossing::Falling => {
                x_new[0] = T::cst(0.0);
                x_new[1] = -a.p[1] * a.x[1];
                d_new[0] += 1.0;
            }
            Event::State(_) => {}
            Event::Time => d_new[1] += 1.0,
        }
    }

    fn next_time_event(&self, t: f64, _p: &[f64], _d: &[f64]) -> Option<f64> {
        Some(((t / 0.5).floor() + 1.0) * 0.5)
    }

    fn integrator(&self) -> Rk4 {
        Rk4 { x: Vec::new() }
    }

    fn string_outputs(&self, a: &Args<f64>, s: &[String], out: &mut [String]) {
        out[0] = format!("{} bounces on the {}", a.d[0], s[0]);
    }
}

/// Classic fixed-step RK4 (internal step at most 1e-3), no event handling.
#[derive(Clone, Debug)]
pub struct Rk4 {
    x: Vec<f64>,
}

impl Integrator<Ball> for Rk4 {
    fn initialize(
        &mut self,
        _: &Ball,
        _: f64,
        x: &[f64],
        _: &StepInputs<f64>,
        _: &[f64],
        _: &[f64],
    ) -> Result<(), StepError> {
        self.x = x.to_vec();
        Ok(())
    }

    fn do_step(
        &mut self,
        sys: &Ball,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<StepReport, StepError> {
        let n = (h / 1e-3).ceil().max(1.0) as usize;
        let dt = h / n as f64;
        let f = |t: f64, x: &[f64]| {
            let mut uu = vec![0.0; u.len()];
            u.eval(t, &mut uu);
            let mut dx = vec![0.0; x.len()];
            sys.derivatives(&Args { t, x, u: &uu, p, d }, &mut dx);
            dx
        };
        let axpy = |x: &[f64], a: f64, k: &[f64]| -> Vec<f64> {
            x.iter().zip(k).map(|(x, k)| x + a * k).collect()
        };
        for s in 0..n {
            let ts = t + s as f64 * dt;
            let k1 = f(ts, &self.x);
            let k2 = f(ts + dt / 2.0, &axpy(&self.x, dt / 2.0, &k1));
            let k3 = f(ts + dt / 2.0, &axpy(&self.x, dt / 2.0, &k2));
            let k4 = f(ts + dt, &axpy(&self.x, dt, &k3));
            for i in 0..self.x.len() {
                self.x[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        Ok(StepReport {
            internal_steps: n,
            events: 0,
        })
    }

    fn state(&self) -> &[f64] {
        &self.x
    }

    fn set_state(&mut self, w: &[f64]) {
        self.x = w.to_vec();
    }

    fn continuous_state(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.x);
    }

    fn outputs(&self, sys: &Ball, t: f64, u: &[f64], p: &[f64], d: &[f64], y: &mut [f64]) {
        sys.outputs(
            &Args {
                t,
                x: &self.x,
                u,
                p,
                d,
            },
            y,
        );
    }
}
