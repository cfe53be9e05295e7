//! The adjoint extension through the master's import: every packaged FMI 3.0 FMU carries a
//! manifest that the import reads and checks (FMI 2.0 FMUs carry none), `tandem info` shows
//! it, and the safe wrappers of `Fmu3Instance` on the built oscillator FMU give the derivatives
//! of its own doStep (central differences through the same wrappers and FMU state rollback),
//! transposed consistently, and errors for bad calls.

mod common;

use fmi_host::Error;
use tandem::instance::prelude::*;
use tandem::instance::{Fmu3Instance, LogLevel, LogSettings};
use tandem::model_description::InterfaceType;
use tandem::Fmu;
use tandem_tests::fmus::{self, FmiVersion};

/// Communication step size and steps taken before the point the step is linearized at.
const STEP: f64 = 0.01;
const STEPS_BEFORE: usize = 3;

/// The oscillator's force input, set before initialization so that no term vanishes.
const FORCE: f64 = 2.0;

fn quiet() -> LogSettings {
    LogSettings {
        level: LogLevel::Off,
        ..LogSettings::default()
    }
}

fn oscillator() -> Fmu {
    Fmu::open(&fmus::find("oscillator", FmiVersion::Fmi3).path).expect("open the oscillator FMU")
}

fn reference(fmu: &Fmu, name: &str) -> u32 {
    fmu.model_description()
        .variable(name)
        .expect(name)
        .value_reference
}

/// A Co-Simulation instance with `values` set for the variables `names` (and the force)
/// before initialization, initialized at t = 0.
fn started(fmu: &Fmu, names: &[&str], values: &[f64]) -> Fmu3Instance {
    let mut inst = fmu
        .instantiate_fmi3(InterfaceType::CoSimulation, "oscillator", quiet())
        .expect("instantiate");
    inst.set_real(&[reference(fmu, "F")], &[FORCE]).unwrap();
    let vrs: Vec<u32> = names.iter().map(|n| reference(fmu, n)).collect();
    inst.set_real(&vrs, values).unwrap();
    inst.enter_initialization_mode(None, 0.0, None).unwrap();
    inst.exit_initialization_mode().unwrap();
    inst
}

/// The discrete state and the manifest's outputs.
fn results(inst: &mut Fmu3Instance) -> Vec<f64> {
    let outputs = inst.adjoint_manifest().unwrap().output_references();
    let mut y = vec![0.0; outputs.len()];
    inst.get_real(&outputs, &mut y).unwrap();
    let mut values = inst.discrete_state().unwrap();
    values.extend(y);
    values
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The largest entry difference relative to the largest entry of `reference`.
fn relative_difference(actual: &[f64], reference: &[f64]) -> f64 {
    let scale = reference.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let largest = actual
        .iter()
        .zip(reference)
        .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    largest / scale
}

#[test]
fn every_fmi3_fmu_carries_a_checked_manifest_and_no_fmi2_fmu_does() {
    for packaged in fmus::all() {
        let fmu = Fmu::open(&packaged.path).unwrap_or_else(|e| panic!("{e}"));
        match packaged.version {
            FmiVersion::Fmi2 => assert!(fmu.adjoint_manifest().is_none(), "{}", packaged.model),
            FmiVersion::Fmi3 => {
                let manifest = fmu
                    .adjoint_manifest()
                    .unwrap_or_else(|| panic!("{}: no adjoint manifest", packaged.model));
                assert_eq!(manifest.version, 1);
                let mut inst = fmu
                    .instantiate_fmi3(InterfaceType::CoSimulation, &packaged.model, quiet())
                    .unwrap();
                inst.enter_initialization_mode(None, 0.0, None).unwrap();
                inst.exit_initialization_mode().unwrap();
                assert_eq!(
                    inst.state_size().unwrap(),
                    manifest.n_state,
                    "{}",
                    packaged.model
                );
            }
        }
    }
}

#[test]
fn tandem_info_shows_the_adjoint_extension() {
    let fmi3 = fmus::find("oscillator", FmiVersion::Fmi3);
    let run = common::tandem(&["info", fmi3.path.to_str().unwrap()]);
    run.assert_success();
    let line = "Adjoint extension    org.tandem.adjoint v1, nState = 3, inputs [F], \
                parameters [m, c, d], outputs [position, velocity, acceleration]";
    assert!(run.stdout.contains(line), "{}", run.stdout);
    let fmi2 = fmus::find("oscillator", FmiVersion::Fmi2);
    let run = common::tandem(&["info", fmi2.path.to_str().unwrap()]);
    run.assert_success();
    assert!(!run.stdout.contains("Adjoint extension"), "{}", run.stdout);
}

/// `d(w_k+1, y_k+1) / d(F, c, d)` by `step_jvp` against central differences of `do_step` from
/// the restored FMU state, and `step_vjp` as its transpose over the whole Jacobian.
#[test]
fn the_step_wrappers_give_the_derivatives_of_do_step() {
    let fmu = oscillator();
    let mut inst = started(&fmu, &[], &[]);
    for k in 0..STEPS_BEFORE {
        inst.do_step(k as f64 * STEP, STEP).unwrap();
    }
    let t = STEPS_BEFORE as f64 * STEP;
    let at_t = inst.get_fmu_state().unwrap();
    let n_state = inst.state_size().unwrap();
    assert_eq!(n_state, 3, "HHT on one coordinate: q, v, a");
    // Inputs F; parameters m (fixed), c, d (tunable): F and c, d may change in step mode.
    for (name, du, dp) in [
        ("F", vec![1.0], vec![0.0; 3]),
        ("c", vec![0.0], vec![0.0, 1.0, 0.0]),
        ("d", vec![0.0], vec![0.0, 0.0, 1.0]),
    ] {
        let exact = inst.step_jvp(STEP, &vec![0.0; n_state], &du, &dp).unwrap();
        let exact = [exact.state, exact.outputs].concat();
        let vr = reference(&fmu, name);
        let mut base = [0.0];
        inst.get_real(&[vr], &mut base).unwrap();
        let delta = 1e-4 * base[0].abs();
        let mut stepped = |value: f64| {
            inst.set_fmu_state(&at_t).unwrap();
            inst.set_real(&[vr], &[value]).unwrap();
            inst.do_step(t, STEP).unwrap();
            results(&mut inst)
        };
        let (up, down) = (stepped(base[0] + delta), stepped(base[0] - delta));
        let fd: Vec<f64> = up
            .iter()
            .zip(&down)
            .map(|(a, b)| (a - b) / (2.0 * delta))
            .collect();
        let error = relative_difference(&exact, &fd);
        eprintln!("d(w, y)/d{name}: {exact:?}, differences {fd:?} ({error:.1e})");
        assert!(error < 1e-6, "{name}: {error:e}");
        inst.set_fmu_state(&at_t).unwrap();
    }
    let d = [1e-3, -0.02, 0.5, 0.7, 0.3, -1.1, 0.9];
    let bar = [2.0, -1.0, 0.01, 30.0, 0.2, -0.005];
    let jd = inst.step_jvp(STEP, &d[..3], &d[3..4], &d[4..]).unwrap();
    let lhs = dot(&bar[..3], &jd.state) + dot(&bar[3..], &jd.outputs);
    let back = inst.step_vjp(STEP, &bar[..3], &bar[3..]).unwrap();
    let terms = [
        dot(&back.state, &d[..3]),
        dot(&back.inputs, &d[3..4]),
        dot(&back.parameters, &d[4..]),
    ];
    let rhs: f64 = terms.iter().sum();
    let magnitude = terms.iter().map(|v| v.abs()).sum::<f64>() + lhs.abs();
    assert!((lhs - rhs).abs() <= 1e-13 * magnitude, "{lhs:e} vs {rhs:e}");
}

/// The step JVP keeps its step's linearization for the next JVPs from the same point (a host
/// carrying several tangents through a step), and only for those: from another state or with
/// another input it linearizes afresh, and back at the first point it gives the first results
/// bit for bit.
#[test]
fn a_step_jvp_reuses_its_linearization_only_from_the_same_point() {
    let fmu = oscillator();
    let mut inst = started(&fmu, &[], &[]);
    let force = reference(&fmu, "F");
    let n_state = inst.state_size().unwrap();
    let tangents = [(vec![1.0], vec![0.0; 3]), (vec![0.0], vec![0.0, 1.0, 0.0])];
    let jvps = |inst: &mut Fmu3Instance| -> Vec<Vec<f64>> {
        let d_state = vec![0.0; n_state];
        (tangents.iter())
            .map(|(du, dp)| {
                let out = inst.step_jvp(STEP, &d_state, du, dp).unwrap();
                [out.state, out.outputs].concat()
            })
            .collect()
    };
    let start = inst.get_fmu_state().unwrap();
    let first = jvps(&mut inst);
    assert_eq!(jvps(&mut inst), first, "the same point, the same results");
    // Another state: a step later.
    inst.do_step(0.0, STEP).unwrap();
    let later = jvps(&mut inst);
    assert_ne!(later, first);
    // Another input at the first state.
    inst.set_fmu_state(&start).unwrap();
    inst.set_real(&[force], &[5.0 * FORCE]).unwrap();
    let pushed = jvps(&mut inst);
    assert_ne!(pushed, first);
    inst.set_real(&[force], &[FORCE]).unwrap();
    assert_eq!(jvps(&mut inst), first, "back at the first point");
}

/// The initialization wrapper against differences of fresh runs (the fixed parameter `m`, set
/// before initialization), and the output wrapper's state adjoint through it.
#[test]
fn the_initialization_and_output_wrappers_give_the_derivatives_of_the_start() {
    let fmu = oscillator();
    let mut inst = started(&fmu, &[], &[]);
    let b = [1.0, -0.3, 0.002];
    let m = 2.0;
    let delta = 1e-4 * m;
    let start_outputs = |m: f64| {
        let mut run = started(&fmu, &["m"], &[m]);
        let values = results(&mut run);
        dot(&b, &values[3..])
    };
    let fd = (start_outputs(m + delta) - start_outputs(m - delta)) / (2.0 * delta);
    let initial = inst.initialization_vjp(&[0.0; 3], &b).unwrap();
    assert_eq!(initial.inputs.len(), 1);
    let error = (initial.parameters[0] - fd).abs() / fd.abs();
    eprintln!(
        "d<b, y0>/dm: {:e}, difference {fd:e} ({error:.1e})",
        initial.parameters[0]
    );
    assert!(error < 1e-6, "{error:e}");

    // The oscillator's outputs read the integrator's state only (no direct feedthrough), so
    // the output VJP at the start is checked through the initialization map it composes with.
    let output = inst.output_vjp(&b).unwrap();
    assert_eq!(
        (output.inputs[0], output.parameters.clone()),
        (0.0, vec![0.0; 3])
    );
    let through = inst.initialization_vjp(&output.state, &[0.0; 3]).unwrap();
    let error = relative_difference(&through.parameters, &initial.parameters);
    assert!(error < 1e-14, "{through:?} vs {initial:?}");
}

#[test]
fn bad_calls_are_errors_naming_the_function() {
    let fmu = oscillator();
    let mut inst = started(&fmu, &[], &[]);
    let wrong_inputs = inst.step_jvp(STEP, &[0.0; 3], &[0.0; 2], &[0.0; 3]);
    assert!(
        matches!(&wrong_inputs, Err(Error::Call { function: "tandemStepJvp", message: Some(m), .. }) if m.contains("nInputs = 2")),
        "{wrong_inputs:?}"
    );
    let wrong_state = inst.step_vjp(STEP, &[0.0; 4], &[0.0; 3]);
    assert!(
        matches!(
            &wrong_state,
            Err(Error::Call {
                function: "tandemStepVjp",
                ..
            })
        ),
        "{wrong_state:?}"
    );
    inst.do_step(0.0, STEP).unwrap();
    let late = inst.initialization_vjp(&[0.0; 3], &[0.0; 3]);
    assert!(
        matches!(
            &late,
            Err(Error::Call {
                function: "tandemInitializationVjp",
                ..
            })
        ),
        "{late:?}"
    );
    // The instance is still usable.
    assert_eq!(
        inst.step_jvp(STEP, &[1.0, 0.0, 0.0], &[0.0], &[0.0; 3])
            .unwrap()
            .state
            .len(),
        3
    );
}
