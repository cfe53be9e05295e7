//! Array parameters, on the state-space model (`x' = A x + B u`, `y = C x + D u` with the
//! matrices as arrays), through the model descriptions its describe program writes and the
//! FMI 2.0 and FMI 3.0 C ABI of its shared library:
//!
//! * FMI 3.0 declares each matrix as one `<Float64>` with `<Dimension>` children and a start
//!   list under the value reference of its first element; FMI 2.0 declares its elements as the
//!   scalars `A[i,j]`;
//! * fmi3GetFloat64 and fmi3SetFloat64 move an array whole (also among scalars in one call),
//!   refuse the value reference of another element and a wrong `nValues`, and check the bounds
//!   per element;
//! * fmi3GetDirectionalDerivative with the matrices as knowns equals central differences, and
//!   fmi3GetAdjointDerivative is its transpose; tandemGetJacobianAdjointDerivative takes arrays
//!   too;
//! * the adjoint manifest lists each element under its array with `element`, and the step VJP
//!   of the matrices' elements equals differences of fmi3DoStep.

mod common;

use common::checked::Checked;
use common::model::Model;
use common::{Fmi2, Fmi3, Interface, Product3};
use fmu_export::fmi2::types::{Fmi2Status, FMI2_MODEL_EXCHANGE};
use fmu_export::fmi3::types::Fmi3Status;
use tandem::model_description::Dimension;
use tandem_tests::fmus::FmiVersion;
use tandem_tests::models::ModelCrate;

const PACKAGE: &str = "state-space";

/// The start values of the matrices, row-major.
const A: [f64; 4] = [0.0, 1.0, -4.0, -0.4];
const B: [f64; 2] = [0.0, 1.0];
const C: [f64; 2] = [1.0, 0.0];
const D: [f64; 1] = [0.0];

/// A point where no entry of the Jacobian vanishes: states, input, then A, B, C, D.
const X: [f64; 2] = [0.7, -0.3];
const U: f64 = 0.4;
const POINT_A: [f64; 4] = [0.1, 1.2, -3.5, -0.5];
const POINT_B: [f64; 2] = [0.3, 0.9];
const POINT_C: [f64; 2] = [1.1, -0.2];
const POINT_D: [f64; 1] = [0.25];

fn model(version: FmiVersion) -> Model {
    Model::named(PACKAGE, version)
}

fn crate_of_the_model() -> ModelCrate {
    ModelCrate::all()
        .into_iter()
        .find(|m| m.package == PACKAGE)
        .expect("the state-space model crate")
}

/// Value references of the FMI 3.0 description, by name.
struct Refs {
    x1: u32,
    x2: u32,
    der_x1: u32,
    der_x2: u32,
    u: u32,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
    y: u32,
}

impl Refs {
    fn of(model: &Model) -> Refs {
        Refs {
            x1: model.vr("x1"),
            x2: model.vr("x2"),
            der_x1: model.vr("der(x1)"),
            der_x2: model.vr("der(x2)"),
            u: model.vr("u"),
            a: model.vr("A"),
            b: model.vr("B"),
            c: model.vr("C"),
            d: model.vr("D"),
            y: model.vr("y"),
        }
    }

    /// The unknowns of the partial derivatives.
    fn unknowns(&self) -> [u32; 3] {
        [self.der_x1, self.der_x2, self.y]
    }
}

#[test]
fn fmi3_declares_each_matrix_as_one_array_variable() {
    let xml = crate_of_the_model().description(FmiVersion::Fmi3);
    let expected = [
        "<Float64 name=\"A\" valueReference=\"6\" description=\"system matrix\" causality=\"parameter\" \
         variability=\"tunable\" initial=\"exact\" min=\"-100\" max=\"100\" start=\"0 1 -4 -0.4\">\n      \
         <Dimension start=\"2\"/>\n      <Dimension start=\"2\"/>\n    </Float64>",
        "<Float64 name=\"B\" valueReference=\"10\" description=\"input matrix\" causality=\"parameter\" \
         variability=\"tunable\" initial=\"exact\" start=\"0 1\">\n      \
         <Dimension start=\"2\"/>\n      <Dimension start=\"1\"/>\n    </Float64>",
        "<Float64 name=\"C\" valueReference=\"12\" description=\"output matrix\" causality=\"parameter\" \
         variability=\"fixed\" initial=\"exact\" start=\"1 0\">\n      \
         <Dimension start=\"1\"/>\n      <Dimension start=\"2\"/>\n    </Float64>",
        "<Float64 name=\"D\" valueReference=\"14\" description=\"feedthrough matrix\" causality=\"parameter\" \
         variability=\"fixed\" initial=\"exact\" start=\"0\">\n      \
         <Dimension start=\"1\"/>\n      <Dimension start=\"1\"/>\n    </Float64>",
    ];
    for element in expected {
        assert!(xml.contains(element), "{element}\nnot in\n{xml}");
    }
    // The master's reader (an independent parser) sees the same arrays.
    let model = model(FmiVersion::Fmi3);
    for (name, shape, starts) in [
        ("A", [2, 2], &A[..]),
        ("B", [2, 1], &B[..]),
        ("C", [1, 2], &C[..]),
        ("D", [1, 1], &D[..]),
    ] {
        let v = model.description.variable(name).unwrap();
        assert_eq!(v.dimensions, shape.map(Dimension::Fixed).to_vec(), "{name}");
        let start = v.start.as_ref().unwrap();
        let values: Vec<f64> = (0..start.len()).map(|i| start.f64_at(i).unwrap()).collect();
        assert_eq!(values, starts, "{name}");
    }
    // Only the first element's value reference is declared; ModelStructure names the arrays.
    let declared: Vec<u32> = model
        .description
        .variables
        .iter()
        .map(|v| v.value_reference)
        .collect();
    assert_eq!(declared, [0, 1, 2, 3, 4, 5, 6, 10, 12, 14, 15]);
    assert!(!xml.contains("A[1,1]"));
    assert!(xml
        .contains("<ContinuousStateDerivative valueReference=\"3\" dependencies=\"1 2 5 6 10\"/>"));
    assert!(xml.contains("<InitialUnknown valueReference=\"15\" dependencies=\"1 2 5 12 14\"/>"));
}

#[test]
fn fmi2_declares_each_element_as_a_scalar() {
    let xml = crate_of_the_model().description(FmiVersion::Fmi2);
    assert!(
        xml.contains(
            "<ScalarVariable name=\"A[2,1]\" valueReference=\"8\" description=\"system matrix\" \
             causality=\"parameter\" variability=\"tunable\" initial=\"exact\">\n      \
             <Real min=\"-100\" max=\"100\" start=\"-4\"/>"
        ),
        "{xml}"
    );
    let model = model(FmiVersion::Fmi2);
    let elements = [
        "A[1,1]", "A[1,2]", "A[2,1]", "A[2,2]", "B[1,1]", "B[2,1]", "C[1,1]", "C[1,2]", "D[1,1]",
    ];
    let starts: Vec<f64> = [&A[..], &B, &C, &D].concat();
    for (k, (name, start)) in elements.iter().zip(starts).enumerate() {
        let v = model.description.variable(name).unwrap();
        assert!(v.is_scalar(), "{name}");
        assert_eq!(v.value_reference, 6 + k as u32, "{name}");
        assert_eq!(v.start.as_ref().unwrap().as_f64(), Some(start), "{name}");
    }
    for array in ["A", "B", "C", "D"] {
        assert!(model.description.variable(array).is_none(), "{array}");
    }
    assert!(!xml.contains("Dimension"));
}

/// Asserts that a call returned Error and logged a line containing `log`.
fn expect_error(inst: &Fmi3, status: Fmi3Status, log: &str) {
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
}

#[test]
fn fmi3_moves_arrays_whole_and_among_scalars() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let inst: Fmi3 = Checked::create(&model, Interface::ModelExchange);
    assert_eq!(
        inst.get_float64_values(&[r.a], 4),
        (Fmi3Status::Ok, A.to_vec())
    );
    assert_eq!(
        inst.get_float64_values(&[r.x1, r.a, r.u, r.d], 7),
        (Fmi3Status::Ok, [&[1.0][..], &A, &[0.0], &D].concat())
    );
    let (a, b) = ([0.25, 1.5, -9.0, -0.6], [0.5, 2.0]);
    let given = [&[0.5][..], &a, &b].concat();
    assert_eq!(inst.set_float64(&[r.u, r.a, r.b], &given), Fmi3Status::Ok);
    assert_eq!(
        inst.get_float64_values(&[r.b, r.a, r.u], 7),
        (Fmi3Status::Ok, [&b[..], &a, &[0.5]].concat())
    );
    // The model computes with what was set: x' = A x + B u at x = (1, 0), u = 0.5.
    inst.initialize_ok();
    assert_eq!(
        inst.get_float64(&[r.der_x1, r.der_x2]),
        (Fmi3Status::Ok, vec![0.25 + 0.5 * 0.5, -9.0 + 2.0 * 0.5])
    );
}

#[test]
fn fmi3_refuses_other_elements_wrong_counts_and_values_out_of_range() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let inst: Fmi3 = Checked::create(&model, Interface::CoSimulation);
    let (status, _) = inst.get_float64_values(&[r.a], 3);
    expect_error(
        &inst,
        status,
        "fmi3GetFloat64: 3 values for 1 value references, whose variables have 4 values",
    );
    expect_error(
        &inst,
        inst.set_float64(&[r.x1, r.a], &[1.0; 4]),
        "fmi3SetFloat64: 4 values for 2 value references, whose variables have 5 values",
    );
    for element in [r.a + 1, r.a + 3, r.b + 1, r.c + 1] {
        let (status, _) = inst.get_float64(&[element]);
        expect_error(&inst, status, &format!("unknown value reference {element}"));
        expect_error(
            &inst,
            inst.set_float64(&[r.x1, element], &[1.0, 1.0]),
            &format!("fmi3SetFloat64: unknown value reference {element}"),
        );
    }
    // Each element against the array's range; an Error sets nothing.
    expect_error(
        &inst,
        inst.set_float64(&[r.a], &[0.0, 150.0, -4.0, -0.4]),
        "A[1,2] = 150 is above its maximum 100",
    );
    expect_error(
        &inst,
        inst.set_float64(&[r.u, r.a], &[0.3, 0.0, 1.0, -4.0, -101.0]),
        "A[2,2] = -101 is below its minimum -100",
    );
    assert_eq!(
        inst.get_float64_values(&[r.a, r.u], 5),
        (Fmi3Status::Ok, [&A[..], &[0.0]].concat())
    );
    // Variability is the array's: A is tunable in step mode, C fixed.
    inst.initialize_ok();
    assert_eq!(inst.set_float64(&[r.a], &POINT_A), Fmi3Status::Ok);
    expect_error(
        &inst,
        inst.set_float64(&[r.c], &POINT_C),
        "is a fixed parameter and cannot be set in",
    );
    let (status, _) = inst.do_step(0.0, 1e-2);
    assert_eq!(status, Fmi3Status::Ok, "{:#?}", inst.messages.all());
}

#[test]
fn fmi2_sets_each_element_as_a_scalar_with_its_bounds() {
    let model = model(FmiVersion::Fmi2);
    let inst = Fmi2::instantiate(&model.fmu, FMI2_MODEL_EXCHANGE, model.token()).unwrap();
    let (a21, a22, b21) = (model.vr("A[2,1]"), model.vr("A[2,2]"), model.vr("B[2,1]"));
    assert_eq!(inst.set_real(&[a21, b21], &[-9.0, 2.0]), Fmi2Status::Ok);
    assert_eq!(inst.set_real(&[a22], &[1000.0]), Fmi2Status::Error);
    assert!(inst
        .messages
        .contains("A[2,2] = 1000 is above its maximum 100"));
    assert_eq!(
        inst.get_real(&[a21, a22, b21]),
        (Fmi2Status::Ok, vec![-9.0, -0.4, 2.0])
    );
    assert_eq!(inst.initialize(), Fmi2Status::Ok);
    let der_x2 = model.vr("der(x2)");
    assert_eq!(inst.get_real(&[der_x2]), (Fmi2Status::Ok, vec![-9.0]));
}

/// A Model Exchange instance at the test point with the matrices `a`, `b`, `c`, `d`, in
/// continuous-time mode.
fn at<'m>(model: &'m Model, matrices: [&[f64]; 4]) -> Fmi3<'m> {
    let r = Refs::of(model);
    let inst: Fmi3 = Checked::create(model, Interface::ModelExchange);
    let values = [&[U][..], matrices[0], matrices[1], matrices[2], matrices[3]].concat();
    inst.set_values(&[r.u, r.a, r.b, r.c, r.d], &values);
    inst.initialize_ok();
    inst.enter_continuous_time();
    inst.set_time_and_states(0.0, &X);
    inst
}

fn point_matrices() -> [Vec<f64>; 4] {
    [
        POINT_A.to_vec(),
        POINT_B.to_vec(),
        POINT_C.to_vec(),
        POINT_D.to_vec(),
    ]
}

fn as_slices(m: &[Vec<f64>; 4]) -> [&[f64]; 4] {
    [&m[0], &m[1], &m[2], &m[3]]
}

/// `d (der(x1), der(x2), y) / d (A, B, C, D)`, row-major 3 x 9, written out.
fn analytic_jacobian() -> Vec<f64> {
    let ([x1, x2], u) = (X, U);
    #[rustfmt::skip]
    let jacobian = vec![
        x1, x2, 0.0, 0.0, u, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, x1, x2, 0.0, u, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, x1, x2, u,
    ];
    jacobian
}

#[test]
fn directional_derivatives_by_the_matrices_equal_central_differences() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let unknowns = r.unknowns();
    let knowns = [r.a, r.b, r.c, r.d];
    let base = point_matrices();
    let inst = at(&model, as_slices(&base));
    let cols = 9;
    let mut exact = vec![0.0; 3 * cols];
    for j in 0..cols {
        let mut seed = vec![0.0; cols];
        seed[j] = 1.0;
        let column = inst.directional_ok(&unknowns, &knowns, &seed);
        for i in 0..3 {
            exact[i * cols + j] = column[i];
        }
    }
    // Element j of the flattened matrices, moved by `delta`, in a fresh instance.
    let unknowns_with = |j: usize, delta: f64| {
        let mut moved = base.clone();
        let (mut matrix, mut k) = (0, j);
        while k >= moved[matrix].len() {
            k -= moved[matrix].len();
            matrix += 1;
        }
        moved[matrix][k] += delta;
        at(&model, as_slices(&moved)).values(&unknowns)
    };
    let flat: Vec<f64> = base.concat();
    for j in 0..cols {
        let delta = 1e-4 * flat[j].abs().max(1.0);
        let (plus, minus) = (unknowns_with(j, delta), unknowns_with(j, -delta));
        for i in 0..3 {
            let fd = (plus[i] - minus[i]) / (2.0 * delta);
            let e = exact[i * cols + j];
            assert!(
                (e - fd).abs() <= 1e-9 * e.abs().max(1.0),
                "d unknown {i} / d element {j}: exact {e}, difference {fd}"
            );
        }
    }
    assert_eq!(exact, analytic_jacobian());

    // The adjoint: J^T v, with a sensitivity per element.
    let v = [0.7, -1.1, 2.3];
    let (status, jtv) = inst.product_values(true, &unknowns, &knowns, &v, cols);
    assert_eq!(status, Fmi3Status::Ok, "{:#?}", inst.messages.all());
    for (j, value) in jtv.iter().enumerate() {
        let expected: f64 = (0..3).map(|i| v[i] * exact[i * cols + j]).sum();
        assert!((value - expected).abs() <= 1e-15 * expected.abs().max(1.0));
    }

    // Arrays among scalars: (x1, A, u) are 6 seeds.
    let mixed = [r.x1, r.a, r.u];
    let seed = [0.5, 1.0, -2.0, 0.25, 3.0, -1.5];
    let jw = inst.directional_ok(&unknowns, &mixed, &seed);
    let a = POINT_A;
    let expected_der_x1 = a[0] * seed[0] + X[0] * seed[1] + X[1] * seed[2] + POINT_B[0] * seed[5];
    let expected_der_x2 = a[2] * seed[0] + X[0] * seed[3] + X[1] * seed[4] + POINT_B[1] * seed[5];
    let expected_y = POINT_C[0] * seed[0] + POINT_D[0] * seed[5];
    for (value, expected) in jw
        .iter()
        .zip([expected_der_x1, expected_der_x2, expected_y])
    {
        assert!((value - expected).abs() <= 1e-14, "{jw:?}");
    }
}

#[test]
fn partial_derivatives_refuse_wrong_counts_and_other_elements() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let inst = at(&model, as_slices(&point_matrices()));
    let unknowns = r.unknowns();
    let (status, _) = inst.product_values(false, &unknowns, &[r.a, r.b], &[1.0; 4], 3);
    expect_error(&inst, status, "seed has 4 entries but there are 6 knowns");
    let (status, _) = inst.product_values(true, &unknowns, &[r.a], &[1.0; 3], 1);
    expect_error(
        &inst,
        status,
        "sensitivity has 1 entries but there are 4 knowns",
    );
    let (status, _) = inst.product_values(false, &unknowns, &[r.x2, r.a + 2], &[1.0; 2], 3);
    expect_error(
        &inst,
        status,
        &format!(
            "fmi3GetDirectionalDerivative: unknown value reference {}",
            r.a + 2
        ),
    );
    let (status, _) = inst.product_values(true, &[r.a], &[r.x1], &[1.0; 4], 1);
    expect_error(
        &inst,
        status,
        "is neither a state derivative nor a continuous output",
    );
}

/// `Σ_ij S_ij ∂²der(x_i)/∂w_j∂w_k` by tandemGetJacobianAdjointDerivative, with the knowns
/// `w = (x1, x2, u, A)`: the only second derivatives are `∂²der(x_i)/∂x_m∂A_im = 1`.
#[test]
fn the_jacobian_adjoint_derivative_takes_array_knowns() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let inst = at(&model, as_slices(&point_matrices()));
    let (unknowns, knowns) = ([r.der_x1, r.der_x2], [r.x1, r.x2, r.u, r.a]);
    let n = 7;
    let seed: Vec<f64> = (0..2 * n).map(|k| 0.1 * k as f64 - 0.45).collect();
    let mut sensitivity = vec![f64::NAN; n];
    let f = model
        .fmu
        .func::<Product3>("tandemGetJacobianAdjointDerivative");
    // SAFETY: every array has the length passed with it.
    let status = unsafe {
        f(
            inst.i,
            unknowns.as_ptr(),
            unknowns.len(),
            knowns.as_ptr(),
            knowns.len(),
            seed.as_ptr(),
            seed.len(),
            sensitivity.as_mut_ptr(),
            n,
        )
    };
    assert_eq!(status, Fmi3Status::Ok, "{:#?}", inst.messages.all());
    let s = |i: usize, j: usize| seed[i * n + j];
    // Column of A_im: 3 + 2 i + m.
    let expected = [
        s(0, 3) + s(1, 5),
        s(0, 4) + s(1, 6),
        0.0,
        s(0, 0),
        s(0, 1),
        s(1, 0),
        s(1, 1),
    ];
    for (value, e) in sensitivity.iter().zip(expected) {
        assert!(
            (value - e).abs() <= 1e-14,
            "{sensitivity:?} vs {expected:?}"
        );
    }
}

#[test]
fn the_manifest_lists_every_element_under_its_array() {
    let text = crate_of_the_model().adjoint_manifest();
    let mut expected = String::from("<Parameters>\n");
    for (name, vr, len) in [("A", 6, 4), ("B", 10, 2), ("C", 12, 2), ("D", 14, 1)] {
        for k in 0..len {
            expected.push_str(&format!(
                "    <Variable valueReference=\"{vr}\" name=\"{name}\" element=\"{k}\"/>\n"
            ));
        }
    }
    expected.push_str("  </Parameters>");
    assert!(text.contains(&expected), "{expected}\nnot in\n{text}");
    assert!(text.contains("<Variable valueReference=\"5\" name=\"u\"/>"));
    // The master's reader accepts it against the description: nine parameter seeds, one
    // value reference per array.
    let manifest = model(FmiVersion::Fmi3).adjoint_manifest();
    let seeds: Vec<(u32, Option<usize>)> = manifest
        .parameters
        .iter()
        .map(|p| (p.value_reference, p.element))
        .collect();
    let expected: Vec<(u32, Option<usize>)> = [(6, 4), (10, 2), (12, 2), (14, 1)]
        .into_iter()
        .flat_map(|(vr, len)| (0..len).map(move |k| (vr, Some(k))))
        .collect();
    assert_eq!(seeds, expected);
    assert_eq!(manifest.parameter_references(), [6, 10, 12, 14]);
}

/// The step VJP's adjoints of A's and B's elements against central differences of
/// fmi3DoStep from the restored FMU state, with one element moved.
#[test]
fn the_step_vjp_of_the_matrix_elements_equals_differences_of_do_step() {
    let model = model(FmiVersion::Fmi3);
    let r = Refs::of(&model);
    let manifest = model.adjoint_manifest();
    let (n_state, n_params) = (manifest.n_state, manifest.parameters.len());
    let h = 1e-2;
    let inst: Fmi3 = Checked::create(&model, Interface::CoSimulation);
    inst.set_values(&[r.u], &[U]);
    inst.initialize_ok();
    for k in 0..3 {
        inst.step(k as f64 * h, h);
    }
    let t = 3.0 * h;
    let at_t = inst.get_state();
    let (w_bar, y_bar) = (vec![0.7, -1.3], vec![0.9]);
    assert_eq!(w_bar.len(), n_state);
    let (status, adjoints) = inst.step_vjp(h, &w_bar, &y_bar, 1, n_params);
    assert_eq!(status, Fmi3Status::Ok, "{:#?}", inst.messages.all());
    let functional = |array: u32, values: &[f64]| {
        assert_eq!(inst.set_state(at_t), Fmi3Status::Ok);
        inst.set_values(&[array], values);
        inst.step(t, h);
        let (status, w) = inst.discrete_state(n_state);
        assert_eq!(status, Fmi3Status::Ok);
        let y = inst.values(&[r.y]);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
        dot(&w_bar, &w) + dot(&y_bar, &y)
    };
    // The manifest's parameters: A's four elements, then B's two.
    for (array, base, first) in [(r.a, &A[..], 0), (r.b, &B[..], 4)] {
        for k in 0..base.len() {
            let delta = 1e-5 * base[k].abs().max(1.0);
            let moved = |d: f64| {
                let mut values = base.to_vec();
                values[k] += d;
                functional(array, &values)
            };
            let fd = (moved(delta) - moved(-delta)) / (2.0 * delta);
            let exact = adjoints.params[first + k];
            eprintln!("element {k} of {array}: exact {exact:e}, difference {fd:e}");
            assert!(
                (exact - fd).abs() <= 1e-6 * exact.abs().max(1e-3),
                "element {k} of value reference {array}: exact {exact:e}, difference {fd:e}"
            );
        }
    }
}
