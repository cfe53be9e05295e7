//! The adjoint extension's `tandemGetJacobianAdjointDerivative` (docs/adjoint-extension.md)
//! through the C ABI of every co-design plant: its manifest declares the capability, the
//! exact contraction `Σ_ij S_ij ∂²r_i/∂w_j∂w_k` agrees with central differences of the
//! Jacobians that fmi3GetDirectionalDerivative gives, and bad arguments are Errors with a log
//! line, never a crash.

mod common;

use common::checked::Checked;
use common::model::{start, vrs, Model};
use common::{randoms, Fmi3, Interface, Product3};
use fmu_export::fmi3::types::Fmi3Status;
use tandem::import::JACOBIAN_ADJOINT_DERIVATIVE;
use tandem_tests::fmus::FmiVersion;

/// The plants of `tandem codesign` (master/examples/codesign).
const PLANTS: [&str; 5] = [
    "cart-pole",
    "quadrotor",
    "duffing",
    "mass-spring-damper",
    "mass-chain",
];

/// Relative step of the central differences of the Jacobians.
const FD_STEP: f64 = 1e-5;

/// Required agreement of the exact contraction and the differences, relative to the largest
/// entry of the contraction.
const FD_TOLERANCE: f64 = 1e-6;

const FUNCTION: &str = "tandemGetJacobianAdjointDerivative";

/// A point off the start values (which sit at equilibria, where many second derivatives
/// vanish): every known `s` moved to `s (1 + 0.1 r)`, or `0.1 r` where `s = 0`.
fn point(model: &Model) -> Vec<f64> {
    model
        .knowns()
        .iter()
        .zip(randoms(11, model.knowns().len()))
        .map(|(v, r)| {
            let s = start(v);
            if s != 0.0 {
                s * (1.0 + 0.1 * r)
            } else {
                0.1 * r
            }
        })
        .collect()
}

/// A Model Exchange instance at `z` (states, then inputs and parameters, set before
/// initialization) in continuous-time mode.
fn at<'m>(model: &'m Model, z: &[f64]) -> Fmi3<'m> {
    let inst = Fmi3::create(model, Interface::ModelExchange);
    let n = model.states().len();
    let rest = [model.inputs(), model.parameters()].concat();
    inst.set_values(&vrs(&rest), &z[n..]);
    inst.initialize_ok();
    inst.enter_continuous_time();
    inst.set_time_and_states(0.0, &z[..n]);
    inst
}

/// tandemGetJacobianAdjointDerivative with explicit array lengths and pointers.
#[allow(clippy::too_many_arguments)]
fn call(
    inst: &Fmi3,
    unknowns: &[u32],
    knowns: &[u32],
    seed: *const f64,
    n_seed: usize,
    sensitivity: *mut f64,
    n_sensitivity: usize,
) -> Fmi3Status {
    let f = inst.fmu.func::<Product3>(FUNCTION);
    // SAFETY: each pointer is NULL or an array of at least its stated length.
    unsafe {
        f(
            inst.i,
            unknowns.as_ptr(),
            unknowns.len(),
            knowns.as_ptr(),
            knowns.len(),
            seed,
            n_seed,
            sensitivity,
            n_sensitivity,
        )
    }
}

/// The contraction `Σ_ij seed_ij J_ij` of the Jacobian at `z`, one directional derivative per
/// column.
fn contracted_jacobian(model: &Model, z: &[f64], seed: &[f64]) -> f64 {
    let (unknowns, knowns) = (vrs(&model.derivatives()), vrs(&model.knowns()));
    let inst = at(model, z);
    let n = knowns.len();
    (0..n)
        .map(|j| {
            let mut unit = vec![0.0; n];
            unit[j] = 1.0;
            let column = inst.directional_ok(&unknowns, &knowns, &unit);
            column
                .iter()
                .enumerate()
                .map(|(i, c)| seed[i * n + j] * c)
                .sum::<f64>()
        })
        .sum()
}

#[test]
fn every_codesign_plant_has_the_exact_jacobian_adjoint_of_central_differences() {
    for plant in PLANTS {
        let model = Model::named(plant, FmiVersion::Fmi3);
        assert!(
            model.adjoint_manifest().has(JACOBIAN_ADJOINT_DERIVATIVE),
            "{plant}: the manifest declares {JACOBIAN_ADJOINT_DERIVATIVE}"
        );
        let (unknowns, knowns) = (vrs(&model.derivatives()), vrs(&model.knowns()));
        let (m, n) = (unknowns.len(), knowns.len());
        let seed = randoms(5, m * n);
        let z = point(&model);
        let inst = at(&model, &z);
        let mut exact = vec![f64::NAN; n];
        let status = call(
            &inst,
            &unknowns,
            &knowns,
            seed.as_ptr(),
            seed.len(),
            exact.as_mut_ptr(),
            n,
        );
        assert_eq!(status, Fmi3Status::Ok, "{plant}: {:?}", inst.messages.all());
        let scale = exact.iter().fold(0.0, |a: f64, b| a.max(b.abs()));
        assert!(scale > 0.0, "{plant}: the contraction is zero");
        for (k, value) in exact.iter().enumerate() {
            let h = FD_STEP * z[k].abs().max(1.0);
            let (mut plus, mut minus) = (z.clone(), z.clone());
            plus[k] += h;
            minus[k] -= h;
            let difference = (contracted_jacobian(&model, &plus, &seed)
                - contracted_jacobian(&model, &minus, &seed))
                / (plus[k] - minus[k]);
            assert!(
                (value - difference).abs() <= FD_TOLERANCE * scale,
                "{plant} known {k}: exact {value} vs differences {difference} (scale {scale})"
            );
        }
    }
}

/// Wrong lengths, NULL arrays, an unknown that is not a derivative or output, an output array
/// overlapping the seed and a NULL instance are Errors with a log line naming the problem; the
/// instance still answers a good call afterwards.
#[test]
fn bad_arguments_are_errors_not_crashes() {
    let model = Model::named("cart-pole", FmiVersion::Fmi3);
    let (unknowns, knowns) = (vrs(&model.derivatives()), vrs(&model.knowns()));
    let (m, n) = (unknowns.len(), knowns.len());
    let inst = at(&model, &point(&model));
    let seed = vec![0.5; m * n];
    let mut out = vec![0.0; n + 1];
    let expect_error = |status: Fmi3Status, log: &str| {
        assert_eq!(
            status,
            Fmi3Status::Error,
            "expected an Error logging {log:?}"
        );
        assert!(
            inst.messages.contains(log),
            "{log:?} not in {:#?}",
            inst.messages.all()
        );
    };
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        seed.as_ptr(),
        m * n - 1,
        out.as_mut_ptr(),
        n,
    );
    expect_error(
        status,
        &format!(
            "seed has {} entries but there are {} unknowns times knowns",
            m * n - 1,
            m * n
        ),
    );
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        seed.as_ptr(),
        m * n,
        out.as_mut_ptr(),
        n + 1,
    );
    expect_error(
        status,
        &format!("sensitivity has {} entries but there are {n} knowns", n + 1),
    );
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        std::ptr::null(),
        m * n,
        out.as_mut_ptr(),
        n,
    );
    expect_error(status, "argument seed is NULL");
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        seed.as_ptr(),
        m * n,
        std::ptr::null_mut(),
        n,
    );
    expect_error(status, "argument sensitivity is NULL");
    // A state is no unknown.
    let status = call(
        &inst,
        &knowns[..m],
        &knowns,
        seed.as_ptr(),
        m * n,
        out.as_mut_ptr(),
        n,
    );
    expect_error(
        status,
        "is neither a state derivative nor a continuous output",
    );
    // The sensitivity written over the seed.
    let mut shared = seed.clone();
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        shared.as_ptr(),
        m * n,
        shared.as_mut_ptr(),
        n,
    );
    expect_error(status, "argument sensitivity overlaps argument seed");
    let f = inst.fmu.func::<Product3>(FUNCTION);
    // SAFETY: a NULL instance with valid arrays: the function must reject the handle.
    let status = unsafe {
        f(
            std::ptr::null_mut(),
            unknowns.as_ptr(),
            m,
            knowns.as_ptr(),
            n,
            seed.as_ptr(),
            m * n,
            out.as_mut_ptr(),
            n,
        )
    };
    assert_eq!(status, Fmi3Status::Error, "a NULL instance");
    let status = call(
        &inst,
        &unknowns,
        &knowns,
        seed.as_ptr(),
        m * n,
        out.as_mut_ptr(),
        n,
    );
    assert_eq!(status, Fmi3Status::Ok, "{:?}", inst.messages.all());
    assert!(out[..n].iter().all(|v| v.is_finite()) && out[..n].iter().any(|&v| v != 0.0));
}
