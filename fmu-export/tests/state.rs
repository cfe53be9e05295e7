//! Restoring an integrator state reproduces the continuation bit for bit.

mod common;

use common::{run, Oscillator, MASS, STIFFNESS};
use fmu_export::integrators::{MechanicalIntegrator, Sdirk};
use fmu_export::{
    Args, Declaration, DiscreteRole, DiscreteType, Event, Integrator, MechanicalSystem, Method,
    OdeModel, OdeSystem, Scalar, StepInputs, System, Var,
};

/// A bouncing ball with a bounce counter: events, resets and step-size control together.
#[derive(Default)]
struct Ball;

impl OdeModel for Ball {
    fn declaration(&self) -> Declaration {
        Declaration::new("ball", "")
            .state(Var::new("h", 1.0))
            .state(Var::new("v", 0.0))
            .discrete(
                Var::new("bounces", 0.0),
                DiscreteType::Integer,
                DiscreteRole::Output,
            )
            .event_indicators(1)
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-5,
                    atol: 1e-7,
                },
                0.05,
            )
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = a.x[1];
        dx[1] = T::cst(-9.81) - a.x[1] * a.x[1].abs() * 0.01;
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[0];
    }
    fn reset<T: Scalar>(&self, _a: &Args<T>, _event: Event, x: &mut [T], d: &mut [f64]) {
        x[1] = -x[1] * 0.9;
        d[0] += 1.0;
    }
}

/// Runs `steps` communication steps and returns the state and `d` after each.
#[allow(clippy::too_many_arguments)]
fn trajectory<S: System, I: Integrator<S>>(
    sys: &S,
    integrator: &mut I,
    t0: f64,
    steps: usize,
    step: f64,
    u: &[f64],
    p: &[f64],
    d: &mut [f64],
) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut out = Vec::new();
    for k in 0..steps {
        let t = t0 + k as f64 * step;
        integrator
            .do_step(sys, t, step, &StepInputs::held(t, u), p, d)
            .unwrap();
        out.push((integrator.state().to_vec(), d.to_vec()));
    }
    out
}

/// Runs to `t1`, snapshots, runs on; then replays from the snapshot in a fresh integrator and
/// in the advanced one, and requires identical bits.
#[allow(clippy::too_many_arguments)]
fn check_restore<S: System, I: Integrator<S>>(
    sys: &S,
    fresh: impl Fn() -> I,
    x0: &[f64],
    step: f64,
    u: &[f64],
    p: &[f64],
    d0: &[f64],
) -> usize {
    let mut integrator = fresh();
    let mut d = d0.to_vec();
    integrator
        .initialize(sys, 0.0, x0, &StepInputs::held(0.0, u), p, &d)
        .unwrap();
    run(
        sys,
        &mut integrator,
        0.0,
        5.0 * step,
        step,
        u,
        p,
        &mut d,
        &mut |_, _, _| {},
    );
    let (snapshot, d_snapshot) = (integrator.state().to_vec(), d.clone());
    let t1 = 5.0 * step;
    let reference = trajectory(sys, &mut integrator, t1, 20, step, u, p, &mut d);
    for mut restored in [fresh(), integrator] {
        restored.set_state(&snapshot);
        let mut d = d_snapshot.clone();
        let replay = trajectory(sys, &mut restored, t1, 20, step, u, p, &mut d);
        assert!(
            replay == reference,
            "replay differs from the original continuation"
        );
    }
    snapshot.len()
}

#[test]
fn sdirk_with_events_restores_bit_identically() {
    let sys = OdeSystem::<Ball>::default();
    let declaration = sys.declaration().clone();
    let len = check_restore(
        &sys,
        || Sdirk::new(&declaration),
        &[1.0, 0.0],
        0.1,
        &[],
        &[],
        &[0.0],
    );
    assert_eq!(len, 7 * 2 + 2 + 1);
}

#[test]
fn mechanical_integrators_restore_bit_identically() {
    let sys = MechanicalSystem::<Oscillator>::default();
    let p = [MASS, STIFFNESS, 3.0];
    for (method, len) in [
        (Method::Hht { alpha: -0.2 }, 3),
        (Method::SymplecticEuler, 2),
        (
            Method::Sdirk {
                rtol: 1e-6,
                atol: 1e-9,
            },
            16,
        ),
    ] {
        let declaration = sys.declaration().clone().cosimulation(method, 3e-3);
        let fresh = || MechanicalIntegrator::new(&declaration, 1, 0);
        assert_eq!(
            check_restore(&sys, fresh, &[0.01, 0.0], 0.01, &[5.0], &p, &[]),
            len
        );
    }
}
