//! Tests of the instance logic on the test model (no C ABI involved).

use std::sync::{Arc, Mutex};

use super::lifecycle::{Kind, Mode};
use super::logging::{Category, Logger};
use super::outcome::Status;
use super::serialization::{self, Layout};
use super::test_model::Ball;
use super::Instance;

/// Collects every message delivered to the host.
#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Vec<(Status, Category, String)>>>);

impl Logger for Collect {
    fn log(&self, status: Status, category: Category, message: &str) {
        self.0
            .lock()
            .unwrap()
            .push((status, category, message.to_owned()));
    }
}

impl Collect {
    fn contains(&self, text: &str) -> bool {
        self.0
            .lock()
            .unwrap()
            .iter()
            .any(|(_, _, m)| m.contains(text))
    }
}

// Value references of the test model: time 0, h 1, v 2, der(h) 3, der(v) 4, F 5, g 6, e 7,
// k 8, y0 9, y1 10, bounces 11, ticks 12, enabled 13, eventIndicator[1] 14, surface 15,
// status 16.
const H: u32 = 1;
const V: u32 = 2;
const DER_H: u32 = 3;
const DER_V: u32 = 4;
const F: u32 = 5;
const G: u32 = 6;
const E: u32 = 7;
const K: u32 = 8;
const Y0: u32 = 9;
const Y1: u32 = 10;
const BOUNCES: u32 = 11;
const TICKS: u32 = 12;
const ENABLED: u32 = 13;
const SURFACE: u32 = 15;
const STATUS: u32 = 16;

fn instance(kind: Kind) -> (Instance<Ball>, Collect) {
    let log = Collect::default();
    (Instance::new(kind, Box::new(log.clone()), false), log)
}

/// An instance in event mode (ME) or step mode (CS) at t = 0.
fn initialized(kind: Kind) -> (Instance<Ball>, Collect) {
    let (mut inst, log) = instance(kind);
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    (inst, log)
}

fn get(inst: &mut Instance<Ball>, vrs: &[u32]) -> Vec<f64> {
    let mut out = vec![0.0; vrs.len()];
    inst.get_values(vrs, &mut out).unwrap();
    out
}

/// Deterministic pseudo-random numbers in [-1, 1).
fn randoms(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

#[test]
fn model_exchange_walks_through_the_state_machine() {
    let (mut inst, _) = instance(Kind::ModelExchange);
    assert_eq!(inst.mode(), Mode::Instantiated);
    assert!(inst.set_time(1.0).is_err(), "setTime before initialization");
    assert!(inst.exit_initialization_mode().is_err());
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    assert_eq!(inst.mode(), Mode::Event);
    assert!(
        inst.completed_integrator_step().is_err(),
        "only in continuous-time mode"
    );
    inst.enter_continuous_time_mode().unwrap();
    assert!(inst.enter_continuous_time_mode().is_err());
    inst.enter_event_mode().unwrap();
    assert!(
        inst.do_step(0.0, 0.1).is_err(),
        "doStep on a Model Exchange instance"
    );
    inst.terminate().unwrap();
    assert_eq!(inst.mode(), Mode::Terminated);
    assert!(inst.terminate().is_err());
    inst.reset();
    assert_eq!(inst.mode(), Mode::Instantiated);
}

#[test]
fn wrong_state_calls_are_errors_with_a_log_line() {
    let (mut inst, log) = instance(Kind::CoSimulation);
    let outcome = inst.do_step(0.0, 0.1);
    assert_eq!(inst.report("fmi2DoStep", outcome), Status::Error);
    assert!(log.contains("fmi2DoStep: not allowed in instantiated"));
    let outcome = inst.get_derivatives(&mut [0.0; 2]);
    assert_eq!(inst.report("fmi2GetDerivatives", outcome), Status::Error);
    assert!(log.contains("fmi2GetDerivatives: is a Model Exchange function"));
    assert_eq!(
        inst.mode(),
        Mode::Instantiated,
        "a rejected call does not break the instance"
    );
}

#[test]
fn setting_follows_causality_variability_and_bounds() {
    let (mut inst, log) = instance(Kind::ModelExchange);
    inst.set_values(&[E], &[0.5]).unwrap();
    assert!(inst.set_values(&[E], &[1.5]).is_err(), "above max");
    assert!(inst.set_values(&[G], &[f64::NAN]).is_err(), "not finite");
    assert!(
        inst.set_values(&[Y0], &[1.0]).is_err(),
        "outputs are calculated"
    );
    assert!(
        inst.set_values(&[0], &[1.0]).is_err(),
        "time is independent"
    );
    assert!(
        inst.set_values(&[99], &[1.0]).is_err(),
        "unknown value reference"
    );
    assert!(
        inst.set_values(&[BOUNCES], &[1]).is_err(),
        "discrete output"
    );
    assert!(
        inst.set_values(&[E], &[1]).is_err(),
        "Integer access to a Real"
    );
    inst.set_values(&[ENABLED], &[false]).unwrap();
    inst.set_values(&[H], &[2.0]).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    let outcome = inst.set_values(&[E], &[0.6]);
    assert_eq!(inst.report("fmi2SetReal", outcome), Status::Error);
    assert!(log.contains("fmi2SetReal: e is a fixed parameter and cannot be set in event mode"));
    assert!(
        inst.set_values(&[H], &[1.0]).is_err(),
        "states are set with setContinuousStates"
    );
    inst.set_values(&[G, F], &[9.0, 1.0]).unwrap();
    assert!(inst.set_values(&[G, E], &[8.0, 0.1]).is_err());
    assert_eq!(
        get(&mut inst, &[G, E, H]),
        [9.0, 0.5, 2.0],
        "a rejected call changes nothing"
    );
    inst.enter_continuous_time_mode().unwrap();
    assert!(
        inst.set_values(&[G], &[1.0]).is_err(),
        "tunable parameters only at events"
    );
    inst.set_values(&[F], &[2.0]).unwrap();
    let mut flags = [true];
    inst.get_values(&[ENABLED], &mut flags).unwrap();
    assert_eq!(flags, [false]);
    assert!(inst.get_values(&[G], &mut [0i32]).is_err());
}

#[test]
fn derivatives_outputs_and_nominals_follow_the_model() {
    let (mut inst, _) = initialized(Kind::ModelExchange);
    inst.set_values(&[F, K], &[0.5, 0.2]).unwrap();
    inst.enter_continuous_time_mode().unwrap();
    inst.set_time(0.3).unwrap();
    inst.set_continuous_states(&[0.8, -1.5]).unwrap();
    let (h, v, f, g, k, t) = (0.8f64, -1.5f64, 0.5, 9.81, 0.2, 0.3);
    let mut dx = [0.0; 2];
    inst.get_derivatives(&mut dx).unwrap();
    assert_eq!(dx, [v, -g - k * v.powi(3) + h.sin() * f + t * 0.01]);
    assert_eq!(get(&mut inst, &[DER_H, DER_V]), dx);
    assert_eq!(
        get(&mut inst, &[Y0, Y1]),
        [h * h * v + f * k, (-h).exp() * g + t * t]
    );
    let mut nominals = [0.0; 2];
    inst.get_nominals(&mut nominals).unwrap();
    assert_eq!(nominals, [2.0, 1.0]);
    assert!(inst.get_derivatives(&mut [0.0; 3]).is_err(), "wrong length");
    assert!(inst.set_continuous_states(&[f64::INFINITY, 0.0]).is_err());
}

#[test]
fn a_sign_change_of_an_indicator_applies_the_reset_map() {
    let (mut inst, _) = initialized(Kind::ModelExchange);
    inst.enter_continuous_time_mode().unwrap();
    inst.set_continuous_states(&[0.2, -3.0]).unwrap();
    assert!(!inst.completed_integrator_step().unwrap());
    inst.set_continuous_states(&[-0.01, -4.0]).unwrap();
    assert!(inst.completed_integrator_step().unwrap(), "h crossed zero");
    inst.enter_event_mode().unwrap();
    let info = inst.update_discrete_states().unwrap();
    assert!(info.values_changed && !info.discrete_states_need_update);
    assert_eq!(get(&mut inst, &[H, V]), [0.0, 0.7 * 4.0]);
    let mut bounces = [0i32];
    inst.get_values(&[BOUNCES], &mut bounces).unwrap();
    assert_eq!(bounces, [1]);
    let again = inst.update_discrete_states().unwrap();
    assert!(
        !again.values_changed,
        "no second reset for the same crossing"
    );
}

/// FMI lets a host skip fmiCompletedIntegratorStep when the description says it is not
/// needed (FMPy does): the event update alone must then see every landing, including the one
/// after a reset that left the indicator at exactly zero.
#[test]
fn every_bounce_is_seen_without_completed_integrator_steps() {
    let (mut inst, _) = initialized(Kind::ModelExchange);
    inst.update_discrete_states().unwrap();
    let mut bounces = [0i32];
    for (k, (t, v_landing)) in [(0.4, -4.0), (1.0, -2.5)].into_iter().enumerate() {
        inst.enter_continuous_time_mode().unwrap();
        inst.set_time(t - 0.1).unwrap();
        inst.set_continuous_states(&[0.3, 1.0]).unwrap();
        inst.set_time(t).unwrap();
        inst.set_continuous_states(&[-1e-12, v_landing]).unwrap();
        inst.enter_event_mode().unwrap();
        assert!(
            inst.update_discrete_states().unwrap().values_changed,
            "landing {k}"
        );
        assert_eq!(get(&mut inst, &[H, V]), [0.0, -0.7 * v_landing]);
        assert!(
            !inst.update_discrete_states().unwrap().values_changed,
            "the same landing again"
        );
        inst.get_values(&[BOUNCES], &mut bounces).unwrap();
        assert_eq!(bounces, [k as i32 + 1]);
    }
}

/// An indicator that starts at zero with zero rate (a ball at rest on the floor) has no side
/// until it moves; a host that reads the indicators but skips fmiCompletedIntegratorStep must
/// still get the first landing.
#[test]
fn an_indicator_starting_at_rest_on_zero_is_armed_by_the_values_the_host_reads() {
    let (mut inst, _) = instance(Kind::ModelExchange);
    inst.set_values(&[H], &[0.0]).unwrap();
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    inst.update_discrete_states().unwrap();
    inst.enter_continuous_time_mode().unwrap();
    let mut z = [0.0];
    inst.set_time(0.1).unwrap();
    inst.set_continuous_states(&[0.05, 1.0]).unwrap();
    inst.get_event_indicators(&mut z).unwrap();
    assert_eq!(z, [0.05]);
    inst.set_time(0.3).unwrap();
    inst.set_continuous_states(&[-1e-3, -2.0]).unwrap();
    inst.get_event_indicators(&mut z).unwrap();
    inst.enter_event_mode().unwrap();
    assert!(
        inst.update_discrete_states().unwrap().values_changed,
        "the first landing"
    );
    let mut bounces = [0i32];
    inst.get_values(&[BOUNCES], &mut bounces).unwrap();
    assert_eq!(bounces, [1]);
}

#[test]
fn time_events_are_announced_and_applied() {
    let (mut inst, _) = initialized(Kind::ModelExchange);
    let info = inst.update_discrete_states().unwrap();
    assert_eq!(info.next_event_time, Some(0.5));
    inst.enter_continuous_time_mode().unwrap();
    inst.set_time(0.5).unwrap();
    inst.enter_event_mode().unwrap();
    let info = inst.update_discrete_states().unwrap();
    assert_eq!(info.next_event_time, Some(1.0));
    assert_eq!(get(&mut inst, &[TICKS]), [1.0]);
}

/// Value references of the unknowns and knowns of the partial-derivative tests.
const UNKNOWNS: [u32; 4] = [DER_H, DER_V, Y0, Y1];
const KNOWNS: [u32; 5] = [H, V, F, G, K];

/// An ME instance in event mode at a generic point.
fn at_generic_point() -> Instance<Ball> {
    let (mut inst, _) = initialized(Kind::ModelExchange);
    inst.set_values(&[F, G, K], &[0.7, 9.5, 0.3]).unwrap();
    inst.enter_continuous_time_mode().unwrap();
    inst.set_time(0.25).unwrap();
    inst.set_continuous_states(&[0.9, -1.2]).unwrap();
    inst.enter_event_mode().unwrap();
    inst
}

/// Sets one known (a state, input or parameter) in event mode.
fn set_known(inst: &mut Instance<Ball>, vr: u32, value: f64) {
    if vr == H || vr == V {
        let mut x = [0.0; 2];
        inst.get_continuous_states(&mut x).unwrap();
        x[(vr - H) as usize] = value;
        inst.set_continuous_states(&x).unwrap();
    } else {
        inst.set_values(&[vr], &[value]).unwrap();
    }
}

#[test]
fn directional_derivatives_match_central_differences() {
    let mut inst = at_generic_point();
    for (j, &known) in KNOWNS.iter().enumerate() {
        let mut seed = [0.0; KNOWNS.len()];
        seed[j] = 1.0;
        let mut column = [0.0; UNKNOWNS.len()];
        inst.directional_derivative(&UNKNOWNS, &KNOWNS, &seed, &mut column)
            .unwrap();
        let base = get(&mut inst, &[known])[0];
        let delta = 1e-6 * base.abs().max(1.0);
        set_known(&mut inst, known, base + delta);
        let plus = get(&mut inst, &UNKNOWNS);
        set_known(&mut inst, known, base - delta);
        let minus = get(&mut inst, &UNKNOWNS);
        set_known(&mut inst, known, base);
        for i in 0..UNKNOWNS.len() {
            let fd = (plus[i] - minus[i]) / (2.0 * delta);
            let scale = column[i].abs().max(1.0);
            assert!(
                (column[i] - fd).abs() <= 1e-6 * scale,
                "d{}/d{known}: AD {} FD {fd}",
                UNKNOWNS[i],
                column[i]
            );
        }
    }
}

#[test]
fn adjoint_derivatives_are_the_transpose_of_directional_ones() {
    let mut inst = at_generic_point();
    for seed in 1..6 {
        let w = randoms(seed, KNOWNS.len());
        let v = randoms(seed + 100, UNKNOWNS.len());
        let mut jw = [0.0; UNKNOWNS.len()];
        inst.directional_derivative(&UNKNOWNS, &KNOWNS, &w, &mut jw)
            .unwrap();
        let mut jtv = [0.0; KNOWNS.len()];
        inst.adjoint_derivative(&UNKNOWNS, &KNOWNS, &v, &mut jtv)
            .unwrap();
        let lhs: f64 = v.iter().zip(&jw).map(|(a, b)| a * b).sum();
        let rhs: f64 = jtv.iter().zip(&w).map(|(a, b)| a * b).sum();
        assert!(
            (lhs - rhs).abs() <= 1e-12 * lhs.abs().max(rhs.abs()),
            "{lhs} vs {rhs}"
        );
    }
    assert!(
        inst.adjoint_derivative(&UNKNOWNS, &KNOWNS, &[1.0; 3], &mut [0.0; 5])
            .is_err(),
        "seed length"
    );
    assert!(
        inst.directional_derivative(&[H], &KNOWNS, &[1.0; 5], &mut [0.0; 1])
            .is_err(),
        "a state is no unknown"
    );
    assert!(
        inst.directional_derivative(&UNKNOWNS, &[Y0], &[1.0], &mut [0.0; 4])
            .is_err(),
        "an output is no known"
    );
}

#[test]
fn fmu_state_restores_everything_and_survives_serialization() {
    let mut inst = at_generic_point();
    let handle = inst.get_fmu_state(std::ptr::null_mut()).unwrap();
    let saved = inst.capture().unwrap();
    inst.enter_continuous_time_mode().unwrap();
    inst.set_time(0.4).unwrap();
    inst.set_continuous_states(&[0.1, 0.1]).unwrap();
    inst.set_fmu_state(handle).unwrap();
    assert_eq!(inst.capture().unwrap(), saved);
    assert_eq!(inst.mode(), Mode::Event);

    let mut bytes = vec![0u8; inst.serialized_fmu_state_size(handle).unwrap()];
    inst.serialize_fmu_state(handle, &mut bytes).unwrap();
    assert!(inst
        .serialize_fmu_state(handle, &mut vec![0u8; bytes.len() + 1])
        .is_err());
    let (mut fresh, _) = instance(Kind::ModelExchange);
    let copy = fresh.deserialize_fmu_state(&bytes).unwrap();
    fresh.set_fmu_state(copy).unwrap();
    assert_eq!(fresh.capture().unwrap(), saved);
    assert_eq!(get(&mut fresh, &UNKNOWNS), get(&mut inst, &UNKNOWNS));

    assert!(
        fresh.set_fmu_state(handle).is_err(),
        "a handle of another instance"
    );
    inst.free_fmu_state(handle).unwrap();
    assert!(inst.set_fmu_state(handle).is_err(), "freed");
    assert!(inst.free_fmu_state(std::ptr::null_mut()).is_ok());
    let (mut cs, _) = instance(Kind::CoSimulation);
    assert!(
        cs.deserialize_fmu_state(&bytes).is_err(),
        "a Model Exchange state"
    );
}

#[test]
fn states_taken_into_freed_or_reused_handles_restore_their_own_values() {
    let mut inst = at_generic_point();
    let first = inst.get_fmu_state(std::ptr::null_mut()).unwrap();
    let at_first = inst.capture().unwrap();
    inst.free_fmu_state(first).unwrap();
    inst.enter_continuous_time_mode().unwrap();
    inst.set_time(0.4).unwrap();
    inst.set_continuous_states(&[0.1, 0.1]).unwrap();
    // Taken into the freed snapshot's allocations.
    let second = inst.get_fmu_state(std::ptr::null_mut()).unwrap();
    let at_second = inst.capture().unwrap();
    assert_ne!(at_second, at_first);
    inst.set_continuous_states(&[0.3, -0.2]).unwrap();
    inst.set_fmu_state(second).unwrap();
    assert_eq!(inst.capture().unwrap(), at_second);
    // Overwritten in place: the handle stays, the values are the new ones.
    inst.set_continuous_states(&[0.5, 0.25]).unwrap();
    let at_third = inst.capture().unwrap();
    assert_eq!(inst.get_fmu_state(second).unwrap(), second);
    inst.set_continuous_states(&[0.0, 0.0]).unwrap();
    inst.set_fmu_state(second).unwrap();
    assert_eq!(inst.capture().unwrap(), at_third);
    inst.free_fmu_state(second).unwrap();
}

#[test]
fn garbage_serialized_states_are_rejected() {
    let inst = at_generic_point();
    let snapshot = inst.capture().unwrap();
    let layout = inst.layout();
    let bytes = serialization::encode(&snapshot, &layout);
    assert_eq!(serialization::decode(&bytes, &layout).unwrap(), snapshot);
    assert!(serialization::decode(&[], &layout).is_err());
    assert!(serialization::decode(b"definitely not an FMU state", &layout).is_err());
    for cut in [10, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            serialization::decode(&bytes[..cut], &layout).is_err(),
            "truncated at {cut}"
        );
    }
    for i in (0..bytes.len()).step_by(7) {
        let mut corrupt = bytes.clone();
        corrupt[i] ^= 0x40;
        assert!(
            serialization::decode(&corrupt, &layout).is_err(),
            "flipped byte {i}"
        );
    }
    let other = Layout::of("{another-model}", Kind::ModelExchange, &inst.state);
    let message = serialization::decode(&bytes, &other).unwrap_err().message;
    assert!(message.contains("different model"), "{message}");
}

#[test]
fn cosimulation_steps_restore_and_repeat_bit_identically() {
    let (mut inst, _) = initialized(Kind::CoSimulation);
    assert_eq!(inst.mode(), Mode::Step);
    inst.do_step(0.0, 0.01).unwrap();
    let handle = inst.get_fmu_state(std::ptr::null_mut()).unwrap();
    inst.do_step(0.01, 0.02).unwrap();
    let first = (inst.time(), get(&mut inst, &[H, V, Y0, Y1]));
    inst.set_fmu_state(handle).unwrap();
    assert_eq!(inst.time(), 0.01);
    inst.do_step(0.01, 0.02).unwrap();
    assert_eq!((inst.time(), get(&mut inst, &[H, V, Y0, Y1])), first);

    let mut bytes = vec![0u8; inst.serialized_fmu_state_size(handle).unwrap()];
    inst.serialize_fmu_state(handle, &mut bytes).unwrap();
    let (mut fresh, _) = instance(Kind::CoSimulation);
    let copy = fresh.deserialize_fmu_state(&bytes).unwrap();
    fresh.set_fmu_state(copy).unwrap();
    fresh.do_step(0.01, 0.02).unwrap();
    assert_eq!((fresh.time(), get(&mut fresh, &[H, V, Y0, Y1])), first);
    assert!(
        fresh.do_step(0.5, 0.01).is_err(),
        "communication point differs from the instance's time"
    );
}

#[test]
fn input_derivatives_extrapolate_inputs_over_the_step() {
    let (mut inst, _) = initialized(Kind::CoSimulation);
    inst.set_values(&[F], &[1.0]).unwrap();
    inst.set_input_derivatives(&[F, F], &[1, 2], &[2.0, 4.0])
        .unwrap();
    assert!(
        inst.set_input_derivatives(&[F], &[3], &[1.0]).is_err(),
        "order above the maximum"
    );
    assert!(
        inst.set_input_derivatives(&[G], &[1], &[1.0]).is_err(),
        "not an input"
    );
    inst.do_step(0.0, 0.5).unwrap();
    // u(t) = 1 + 2 t + 2 t^2: at 0.5, u = 2.5 and du/dt = 4.
    assert!((get(&mut inst, &[F])[0] - 2.5).abs() < 1e-15);
    assert!((inst.state.input_derivatives[0][0] - 4.0).abs() < 1e-15);
    assert_eq!(inst.state.input_derivatives[1][0], 4.0);
}

#[test]
fn output_derivatives_are_exact_time_derivatives() {
    let (mut inst, _) = initialized(Kind::CoSimulation);
    inst.set_values(&[F], &[0.4]).unwrap();
    inst.set_input_derivatives(&[F], &[1], &[0.3]).unwrap();
    inst.do_step(0.0, 0.1).unwrap();
    let [h, v, g, k] = [H, V, G, K].map(|vr| get(&mut inst, &[vr])[0]);
    let (t, df) = (inst.time(), 0.3);
    let dv = get(&mut inst, &[DER_V])[0];
    let expected = [
        2.0 * h * v * v + h * h * dv + df * k,
        -(-h).exp() * v * g + 2.0 * t,
    ];
    let mut rates = [0.0; 2];
    inst.output_derivatives(&[Y0, Y1], &[1, 1], &mut rates)
        .unwrap();
    for (a, b) in rates.iter().zip(expected) {
        assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{a} vs {b}");
    }
    assert!(
        inst.output_derivatives(&[Y0], &[2], &mut [0.0]).is_err(),
        "order 2 is not provided"
    );
    assert!(
        inst.output_derivatives(&[H], &[1], &mut [0.0]).is_err(),
        "not an output"
    );
}

#[test]
fn a_non_finite_step_is_discarded_and_rolled_back() {
    let (mut inst, log) = initialized(Kind::CoSimulation);
    inst.do_step(0.0, 0.1).unwrap();
    let before = inst.capture().unwrap();
    inst.set_values(&[K], &[1e300]).unwrap();
    let outcome = inst.do_step(0.1, 0.1);
    assert_eq!(inst.report("fmi2DoStep", outcome), Status::Discard);
    assert!(log.contains("fmi2DoStep: the step from t = 0.1"));
    assert_eq!(inst.last_successful_time(), 0.1);
    let after = inst.capture().unwrap();
    assert_eq!(
        (after.dynamic.t, &after.dynamic.x, &after.integrator),
        (before.dynamic.t, &before.dynamic.x, &before.integrator)
    );
    assert_eq!(
        inst.mode(),
        Mode::Step,
        "a discarded step leaves the instance usable"
    );
}

#[test]
fn a_failed_instance_refuses_snapshots_until_reset() {
    let (mut inst, log) = initialized(Kind::ModelExchange);
    inst.fail("fmi2GetDerivatives: panic in the model: boom");
    assert!(log.contains("boom"));
    assert!(inst.has_failed());
    assert!(inst.get_fmu_state(std::ptr::null_mut()).is_err());
    inst.reset();
    assert!(!inst.has_failed());
}

#[test]
fn cosimulation_with_event_mode_starts_in_event_mode() {
    let (mut inst, _) = instance(Kind::CoSimulation);
    inst.set_event_mode_used(true);
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    assert_eq!(inst.mode(), Mode::Event);
    assert!(inst.do_step(0.0, 0.1).is_err(), "doStep only in step mode");
    let info = inst.update_discrete_states().unwrap();
    assert!(!info.discrete_states_need_update && !info.values_changed);
    inst.enter_step_mode().unwrap();
    inst.do_step(0.0, 0.1).unwrap();
    inst.enter_event_mode().unwrap();
    inst.enter_step_mode().unwrap();
    let (mut plain, _) = initialized(Kind::CoSimulation);
    assert!(
        plain.enter_event_mode().is_err(),
        "no event mode without eventModeUsed"
    );
}

fn texts(inst: &mut Instance<Ball>, vrs: &[u32]) -> Vec<String> {
    let texts = inst.get_strings(vrs).unwrap();
    texts
        .iter()
        .map(|t| t.to_str().unwrap().to_owned())
        .collect()
}

#[test]
fn string_parameters_are_set_before_initialization_and_outputs_computed_from_them() {
    let (mut inst, _) = instance(Kind::ModelExchange);
    assert_eq!(
        texts(&mut inst, &[SURFACE, STATUS]),
        ["floor", "0 bounces on the floor"]
    );
    inst.set_strings(&[SURFACE], &["ice"]).unwrap();
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    assert_eq!(
        texts(&mut inst, &[STATUS, SURFACE, STATUS]),
        ["0 bounces on the ice", "ice", "0 bounces on the ice"]
    );

    let error = inst.set_strings(&[SURFACE], &["sand"]).unwrap_err().message;
    assert!(
        error.contains("surface is a String parameter and cannot be set in"),
        "{error}"
    );
    let error = inst.set_strings(&[STATUS], &["x"]).unwrap_err().message;
    assert!(
        error.contains("status is calculated by the model"),
        "{error}"
    );
    let error = inst.get_strings(&[SURFACE, 99]).unwrap_err().message;
    assert!(error.contains("unknown value reference 99"), "{error}");
    assert!(inst
        .get_strings(&[H])
        .unwrap_err()
        .message
        .contains("not String"));
    assert!(inst
        .get_values(&[SURFACE], &mut [0.0])
        .unwrap_err()
        .message
        .contains("not Real"));
    assert!(
        inst.set_strings(&[SURFACE], &[]).is_err(),
        "one value per reference"
    );
    assert_eq!(
        texts(&mut inst, &[SURFACE]),
        ["ice"],
        "failed calls change nothing"
    );

    inst.reset();
    assert_eq!(
        texts(&mut inst, &[SURFACE]),
        ["floor"],
        "reset restores the start value"
    );
}

#[test]
fn string_parameters_are_part_of_the_fmu_state_and_its_serialization() {
    let (mut inst, _) = instance(Kind::CoSimulation);
    inst.set_strings(&[SURFACE], &["wet grass \u{e9}"]).unwrap();
    let handle = inst.get_fmu_state(std::ptr::null_mut()).unwrap();
    inst.set_strings(&[SURFACE], &["concrete"]).unwrap();
    inst.set_fmu_state(handle).unwrap();
    assert_eq!(texts(&mut inst, &[SURFACE]), ["wet grass \u{e9}"]);

    let mut bytes = vec![0u8; inst.serialized_fmu_state_size(handle).unwrap()];
    inst.serialize_fmu_state(handle, &mut bytes).unwrap();
    let (mut fresh, _) = instance(Kind::CoSimulation);
    let copy = fresh.deserialize_fmu_state(&bytes).unwrap();
    fresh.set_fmu_state(copy).unwrap();
    assert_eq!(
        texts(&mut fresh, &[SURFACE, STATUS]),
        ["wet grass \u{e9}", "0 bounces on the wet grass \u{e9}"]
    );

    // A text C cannot carry (a NUL byte), even under a valid checksum, is rejected.
    let snapshot = inst.capture().unwrap();
    let layout = inst.layout();
    let mut broken = snapshot.clone();
    broken.dynamic.s[0] = "\0".to_owned();
    let message = serialization::decode(&serialization::encode(&broken, &layout), &layout)
        .unwrap_err()
        .message;
    assert!(message.contains("String parameter"), "{message}");
}

#[test]
fn a_communication_step_of_too_many_internal_steps_is_an_error_not_a_hang() {
    // Found by the FMI call-sequence fuzzing: h = 1e308 made the fixed-step grid count
    // infinitely many steps of length 0, so doStep never returned.
    let (mut inst, log) = initialized(Kind::CoSimulation);
    let error = inst.do_step(0.0, 1e308).unwrap_err();
    assert_eq!(error.status, Status::Error);
    assert!(
        error
            .message
            .contains("would take more than 1e7 internal steps"),
        "{}",
        error.message
    );
    assert!(
        inst.do_step(0.0, 1e-3).is_ok(),
        "the instance is unchanged and usable"
    );
    drop(log);
}
