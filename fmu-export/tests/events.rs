//! State and time events inside communication steps.

mod common;

use common::simulate;
use fmu_export::integrators::Sdirk;
use fmu_export::{
    Args, Crossing, Declaration, DiscreteRole, DiscreteType, Event, Method, OdeModel, OdeSystem,
    Scalar, System, Var,
};

const G: f64 = 9.81;
const RESTITUTION: f64 = 0.8;

/// A ball dropped from 1 m: `h' = v`, `v' = -g`, indicator `h`, reset `v+ = -e v-`.
/// `d = [bounces, time of the last bounce]`.
#[derive(Default)]
struct BouncingBall;

impl OdeModel for BouncingBall {
    fn declaration(&self) -> Declaration {
        Declaration::new("bouncing_ball", "")
            .state(Var::new("h", 1.0))
            .state(Var::new("v", 0.0))
            .discrete(
                Var::new("bounces", 0.0),
                DiscreteType::Integer,
                DiscreteRole::Output,
            )
            .discrete(
                Var::new("last_bounce", 0.0),
                DiscreteType::Real,
                DiscreteRole::Output,
            )
            .event_indicators(1)
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = a.x[1];
        dx[1] = T::cst(-G);
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[0];
    }
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x: &mut [T], d: &mut [f64]) {
        // Deliberately direction-blind: a re-detected crossing right after the bounce would
        // flip the velocity back down and the ball would fall through the floor.
        assert_eq!(event, Event::State(&[Crossing::Falling]));
        x[1] = -x[1] * RESTITUTION;
        d[0] += 1.0;
        d[1] = a.t.real();
    }
}

/// Analytic bounce times of the ball dropped from rest at 1 m.
fn bounce_times(count: usize) -> Vec<f64> {
    let first = (2.0 / G).sqrt();
    let mut times = vec![first];
    let mut speed = G * first;
    for _ in 1..count {
        speed *= RESTITUTION;
        times.push(times.last().unwrap() + 2.0 * speed / G);
    }
    times
}

fn ball(max_step: f64) -> (OdeSystem<BouncingBall>, Sdirk) {
    let sys = OdeSystem::<BouncingBall>::default();
    let method = Method::Sdirk {
        rtol: 1e-6,
        atol: 1e-8,
    };
    let declaration = sys.declaration().clone().cosimulation(method, max_step);
    let integrator = Sdirk::new(&declaration);
    (sys, integrator)
}

#[test]
fn bounce_times_match_the_analytic_ones() {
    for (communication, max_step) in [(0.01, 0.01), (0.1, 0.05)] {
        let (sys, mut integrator) = ball(max_step);
        let mut d = sys.declaration().discrete_starts();
        let mut located = Vec::new();
        let mut lowest = f64::INFINITY;
        let report = simulate(
            &sys,
            &mut integrator,
            &[1.0, 0.0],
            3.0,
            communication,
            &[],
            &[],
            &mut d,
            |_, x, d| {
                if d[0] as usize > located.len() {
                    located.push(d[1]);
                }
                lowest = lowest.min(x[0]);
            },
        );
        let expected = bounce_times(located.len());
        println!(
            "H {communication}: {} bounces, lowest {lowest:e}, {} steps",
            located.len(),
            report.internal_steps
        );
        assert_eq!(located.len(), 6, "{located:?}");
        assert_eq!(report.events, 6);
        for (got, want) in located.iter().zip(&expected) {
            assert!(
                (got - want).abs() < 1e-9,
                "bounce at {got}, expected {want}"
            );
        }
        assert!(lowest > -1e-9, "the ball went through the floor: {lowest}");
    }
}

/// `x' = -x` with kicks `x += 1` at the time events `t = 0.25` and `t = 0.3`.
#[derive(Default)]
struct Kicked;

const KICKS: [f64; 2] = [0.25, 0.3];

impl OdeModel for Kicked {
    fn declaration(&self) -> Declaration {
        Declaration::new("kicked", "").state(Var::new("x", 1.0))
    }
    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        dx[0] = -a.x[0];
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn reset<T: Scalar>(&self, _a: &Args<T>, event: Event, x: &mut [T], _d: &mut [f64]) {
        assert_eq!(event, Event::Time);
        x[0] += T::cst(1.0);
    }
    fn next_time_event(&self, t: f64, _p: &[f64], _d: &[f64]) -> Option<f64> {
        KICKS.into_iter().find(|&k| k > t)
    }
}

fn kicked_exact(t: f64) -> f64 {
    KICKS
        .iter()
        .filter(|&&k| k <= t)
        .fold(1.0, |x, &k| x + k.exp())
        * (-t).exp()
}

#[test]
fn time_events_are_hit_exactly_inside_and_at_communication_points() {
    let sys = OdeSystem::<Kicked>::default();
    let method = Method::Sdirk {
        rtol: 1e-10,
        atol: 1e-12,
    };
    let declaration = sys.declaration().clone().cosimulation(method, 0.02);
    let mut integrator = Sdirk::new(&declaration);
    let mut error = 0.0f64;
    // The kick at 0.25 falls inside a step, the one at 0.3 on a communication point.
    let report = simulate(
        &sys,
        &mut integrator,
        &[1.0],
        0.6,
        0.1,
        &[],
        &[],
        &mut [],
        |t, x, _| {
            error = error.max((x[0] - kicked_exact(t)).abs());
        },
    );
    println!("error {error:e}");
    assert_eq!(report.events, 2);
    assert!(error < 1e-8, "{error:e}");
}

/// `x' = 1` with indicators `x - 0.35` (rises) and `0.6 - x` (falls); `d` records each
/// event's time and crossing pattern.
#[derive(Default)]
struct Ramp;

impl OdeModel for Ramp {
    fn declaration(&self) -> Declaration {
        let mut declaration = Declaration::new("ramp", "").state(Var::new("x", 0.0));
        for name in ["first", "first_kind", "second", "second_kind"] {
            declaration = declaration.discrete(
                Var::new(name, 0.0),
                DiscreteType::Real,
                DiscreteRole::Output,
            );
        }
        declaration.event_indicators(2)
    }
    fn derivatives<T: Scalar>(&self, _a: &Args<T>, dx: &mut [T]) {
        dx[0] = T::cst(1.0);
    }
    fn outputs<T: Scalar>(&self, _a: &Args<T>, _y: &mut [T]) {}
    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[0] - 0.35;
        z[1] = -a.x[0] + 0.6;
    }
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, _x: &mut [T], d: &mut [f64]) {
        let Event::State(crossings) = event else {
            panic!("unexpected {event:?}")
        };
        let kind = match crossings {
            [Crossing::Rising, Crossing::None] => 1.0,
            [Crossing::None, Crossing::Falling] => 2.0,
            other => panic!("unexpected crossings {other:?}"),
        };
        let slot = if d[0] == 0.0 { 0 } else { 2 };
        d[slot] = a.t.real();
        d[slot + 1] = kind;
    }
}

#[test]
fn several_indicators_report_their_crossing_directions() {
    let sys = OdeSystem::<Ramp>::default();
    let declaration = sys.declaration().clone().cosimulation(
        Method::Sdirk {
            rtol: 1e-6,
            atol: 1e-8,
        },
        0.1,
    );
    let mut integrator = Sdirk::new(&declaration);
    let mut d = vec![0.0; 4];
    let report = simulate(
        &sys,
        &mut integrator,
        &[0.0],
        1.0,
        0.25,
        &[],
        &[],
        &mut d,
        |_, _, _| {},
    );
    assert_eq!(report.events, 2);
    assert!((d[0] - 0.35).abs() < 1e-11 && d[1] == 1.0, "{d:?}");
    assert!((d[2] - 0.6).abs() < 1e-11 && d[3] == 2.0, "{d:?}");
}
