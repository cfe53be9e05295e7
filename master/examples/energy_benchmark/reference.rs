//! Monolithic references of the energy-correction benchmarks: the closed-form (or
//! matrix-exponential) solution of the linear oscillators, and fine classical Runge-Kutta runs
//! of the nonlinear oscillator and of the coupled pendula written from the same equations as
//! their FMUs (`benchmark-equations`). The crane's reference is the monolithic `crane` FMU,
//! run by the benchmark itself.

use benchmark_equations::nonlinear_laws::Spring;
use benchmark_equations::pendulum::{Pendulum, Setup, GRAVITY, LEFT, LENGTH, MASS, RIGHT};
use benchmark_equations::planar_spring::PlanarSpring;
use tandem_tests::double_oscillator::DoubleOscillator;

/// A reference solution sampled at the times a benchmark asks for.
pub trait Reference {
    /// The compared states at `t` (in the order of the benchmark's compared columns).
    fn states(&self, t: f64) -> Vec<f64>;
    /// The mechanical energy at `t` (J).
    fn energy(&self, t: f64) -> f64;
    /// Whether the reference has a value at `t`.
    fn covers(&self, t: f64) -> bool;
}

/// The linear double oscillator, exact: positions `x1, x2`.
pub struct LinearOscillator(pub DoubleOscillator);

impl Reference for LinearOscillator {
    fn states(&self, t: f64) -> Vec<f64> {
        let s = self.0.solution(&DoubleOscillator::INITIAL_STATE, t);
        vec![s[0], s[1]]
    }

    fn energy(&self, t: f64) -> f64 {
        self.0
            .energy(&self.0.solution(&DoubleOscillator::INITIAL_STATE, t))
    }

    fn covers(&self, _t: f64) -> bool {
        true
    }
}

/// A trajectory stored every `interval` seconds from a fine fixed-step RK4 integration.
pub struct Sampled {
    interval: f64,
    states: Vec<Vec<f64>>,
    energies: Vec<f64>,
}

impl Sampled {
    /// Integrates `x' = f(x)` from `x0` to `stop` with RK4 steps of `interval / substeps`,
    /// keeping `observe(x)` (states, energy) every `interval`.
    fn integrate(
        x0: Vec<f64>,
        stop: f64,
        interval: f64,
        substeps: usize,
        f: impl Fn(&[f64]) -> Vec<f64>,
        observe: impl Fn(&[f64]) -> (Vec<f64>, f64),
    ) -> Self {
        let h = interval / substeps as f64;
        let axpy = |x: &[f64], a: f64, k: &[f64]| -> Vec<f64> {
            x.iter().zip(k).map(|(x, k)| x + a * k).collect()
        };
        let mut x = x0;
        let (mut states, mut energies) = (Vec::new(), Vec::new());
        let samples = (stop / interval).round() as usize;
        for sample in 0..=samples {
            let (state, energy) = observe(&x);
            states.push(state);
            energies.push(energy);
            if sample == samples {
                break;
            }
            for _ in 0..substeps {
                let k1 = f(&x);
                let k2 = f(&axpy(&x, h / 2.0, &k1));
                let k3 = f(&axpy(&x, h / 2.0, &k2));
                let k4 = f(&axpy(&x, h, &k3));
                x = (0..x.len())
                    .map(|i| x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
                    .collect();
            }
        }
        Sampled {
            interval,
            states,
            energies,
        }
    }

    /// A trajectory given by its samples every `interval` seconds from 0.
    pub fn from_samples(interval: f64, states: Vec<Vec<f64>>, energies: Vec<f64>) -> Self {
        Sampled {
            interval,
            states,
            energies,
        }
    }

    /// Whether the reference has a sample at `t`.
    pub fn covers(&self, t: f64) -> bool {
        let index = (t / self.interval).round();
        (index * self.interval - t).abs() < 1e-9 && (index as usize) < self.states.len()
    }

    fn index(&self, t: f64) -> usize {
        let index = (t / self.interval).round() as usize;
        assert!(
            (index as f64 * self.interval - t).abs() < 1e-9,
            "the reference is sampled every {} s, not at {t}",
            self.interval
        );
        index
    }
}

impl Reference for Sampled {
    fn states(&self, t: f64) -> Vec<f64> {
        self.states[self.index(t)].clone()
    }

    fn energy(&self, t: f64) -> f64 {
        self.energies[self.index(t)]
    }

    fn covers(&self, t: f64) -> bool {
        Sampled::covers(self, t)
    }
}

/// The double nonlinear oscillator of `energy-nonlinear-oscillator.toml` (square-root
/// springs 10, 100, 1000 N/m^(1/2), no damping), positions `x1, x2` every millisecond.
pub fn nonlinear_oscillator(stop: f64) -> Sampled {
    let springs = [
        Spring {
            k: 0.0,
            kappa: 10.0,
        },
        Spring {
            k: 0.0,
            kappa: 100.0,
        },
        Spring {
            k: 0.0,
            kappa: 1000.0,
        },
    ];
    let [ground1, coupling, ground2] = springs;
    Sampled::integrate(
        vec![0.0, 0.0, 100.0, -100.0],
        stop,
        1e-3,
        100,
        |x| {
            // The coupling spring's force on mass 2 is minus its force on mass 1.
            let on_1 = coupling.force(x[0] - x[1]);
            vec![
                x[2],
                x[3],
                ground1.force(x[0]) + on_1,
                ground2.force(x[1]) - on_1,
            ]
        },
        |x| {
            let energy = 0.5 * (x[2] * x[2] + x[3] * x[3])
                + ground1.energy(x[0])
                + ground2.energy(x[1])
                + coupling.energy(x[0] - x[1]);
            (vec![x[0], x[1]], energy)
        },
    )
}

/// The coupled pendula of `energy-pendula.toml` in their angles from the downward vertical:
/// tip positions `x1, y1, x2, y2` every millisecond.
pub fn pendula(stop: f64) -> Sampled {
    let pendulum = |setup: &Setup| Pendulum {
        m: MASS,
        l: LENGTH,
        pivot: [setup.pivot_x, 0.0],
        g: GRAVITY,
    };
    let (left, right) = (pendulum(&LEFT), pendulum(&RIGHT));
    let spring = PlanarSpring {
        k: 10.0,
        c: 0.0,
        l0: benchmark_equations::pendulum::rest_length(),
    };
    // Tip position and velocity of a pendulum at angle `a` and rate `w`.
    let tip = |p: &Pendulum<f64>, a: f64, w: f64| {
        let (sin, cos) = a.sin_cos();
        (
            [p.pivot[0] + p.l * sin, p.pivot[1] - p.l * cos],
            [p.l * cos * w, p.l * sin * w],
        )
    };
    Sampled::integrate(
        vec![LEFT.angle, RIGHT.angle, 0.0, 0.0],
        stop,
        1e-3,
        100,
        |x| {
            let ((r1, v1), (r2, v2)) = (tip(&left, x[0], x[2]), tip(&right, x[1], x[3]));
            let on_2 = spring.force_on_b(r1, v1, r2, v2);
            // m l^2 a = -m g l sin(a) + F . dr/da, with dr/da = l (cos a, sin a).
            let angular = |p: &Pendulum<f64>, a: f64, force: [f64; 2]| {
                let (sin, cos) = a.sin_cos();
                (-p.m * p.g * p.l * sin + p.l * (force[0] * cos + force[1] * sin))
                    / (p.m * p.l * p.l)
            };
            vec![
                x[2],
                x[3],
                angular(&left, x[0], [-on_2[0], -on_2[1]]),
                angular(&right, x[1], on_2),
            ]
        },
        |x| {
            let ((r1, v1), (r2, v2)) = (tip(&left, x[0], x[2]), tip(&right, x[1], x[3]));
            let energy = left.energy(&r1, &v1) + right.energy(&r2, &v2) + spring.energy(r1, r2);
            (vec![r1[0], r1[1], r2[0], r2[1]], energy)
        },
    )
}
