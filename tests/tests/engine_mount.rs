//! The engine mount's lever constraint `x2 (a + b) - x3 b - x4 a = 0` through the C ABI: one
//! second of its sweep in Co-Simulation with communication step 1 ms, which the FMU's HHT
//! (alpha = -0.1) splits into internal steps of 0.1 ms, reading `x2`, `x3`, `x4` by value
//! reference after every doStep and `a`, `b` from the parameters.

mod common;

use common::checked::Checked;
use common::model::Model;
use common::{Fmi2, Fmi3, Interface};
use engine_mount::EngineMount;
use fmu_export::{MechanicalModel, Method};
use tandem_tests::fmus::FmiVersion;

/// Communication step.
const H: f64 = 1e-3;
/// Communication steps of the run (one second).
const STEPS: usize = 1000;
/// Bound on the constraint residual, in metres.
const TOLERANCE: f64 = 1e-10;

/// Runs the sweep; returns the largest constraint residual and the largest `|x4|`.
fn sweep<'m, I: Checked<'m>>(model: &'m Model) -> (f64, f64) {
    let inst = I::create(model, Interface::CoSimulation);
    inst.initialize_ok();
    let ab = inst.values(&[model.vr("a"), model.vr("b")]);
    let (a, b) = (ab[0], ab[1]);
    let coordinates = [model.vr("x2"), model.vr("x3"), model.vr("x4")];
    let (mut residual, mut stroke) = (0.0f64, 0.0f64);
    for k in 0..STEPS {
        inst.step(k as f64 * H, H);
        let x = inst.values(&coordinates);
        residual = residual.max((x[0] * (a + b) - x[1] * b - x[2] * a).abs());
        stroke = stroke.max(x[2].abs());
    }
    (residual, stroke)
}

fn constraint_holds(version: FmiVersion) {
    let cosimulation = EngineMount.declaration().cosimulation;
    assert_eq!(cosimulation.method, Method::Hht { alpha: -0.1 });
    assert_eq!(cosimulation.max_step, 1e-4);
    let model = Model::named("engine-mount", version);
    let (residual, stroke) = match version {
        FmiVersion::Fmi2 => sweep::<Fmi2>(&model),
        FmiVersion::Fmi3 => sweep::<Fmi3>(&model),
    };
    eprintln!(
        "engine-mount {}: max |x2 (a + b) - x3 b - x4 a| = {residual:e} m over 1 s, max |x4| = {stroke:e} m",
        version.folder()
    );
    // A track that does not move would satisfy the constraint trivially.
    assert!(
        stroke > 1e-6,
        "the inertia track barely moved: max |x4| = {stroke:e} m"
    );
    assert!(residual < TOLERANCE, "constraint residual {residual:e} m");
}

#[test]
fn fmi3_engine_mount_keeps_the_lever_constraint_for_one_second() {
    constraint_holds(FmiVersion::Fmi3);
}

#[test]
fn fmi2_engine_mount_keeps_the_lever_constraint_for_one_second() {
    constraint_holds(FmiVersion::Fmi2);
}
