//! Gradients with respect to elements of FMI 3.0 array parameters, of costs on elements of
//! array outputs: on the Reference-FMUs' StateSpace (no derivatives of its own, so by central
//! differences of whole runs, against the exact value), by the adjoint on Tandem's own
//! state-space model (against central differences), and refusals naming the problem.

mod common;

use std::path::{Path, PathBuf};

use common::gradient::adjoint_and_differences;
use common::reference_fmu;
use common::state_space::{PASS, RAMP};
use tandem_tests::fmus::{self, FmiVersion};

use tandem::gradient::{CostSource, CostSpec, Method, Problem};
use tandem::system::{LoadOptions, System};

/// An integrator of its inputs: A = 0, B = I, C = I, D = 0, x0 = 0, u = [1, 2, 3], so that
/// y[i] = B[i,i] u[i] t exactly (also under the FMU's explicit Euler steps) and
/// dy[i](T)/dB[i,i] = u[i] T.
fn ramp_system(dir: &Path) -> PathBuf {
    system(dir, "", RAMP)
}

/// The macro step of the systems.
const H: f64 = 0.1;

/// A Jacobi system of `components` with `connections` (TOML), to t = 2, in `dir` with the FMU.
fn system(dir: &Path, connections: &str, components: &str) -> PathBuf {
    std::fs::copy(reference_fmu("StateSpace"), dir.join("StateSpace.fmu")).unwrap();
    let text = format!(
        "connections = [{connections}]\n\n[experiment]\nstop = 2.0\nstep = {H}\n\n\
         [schedule]\nkind = \"jacobi\"\n\n{components}"
    );
    let path = dir.join("system.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The gradient of `cost` (as `--cost` writes it) by `parameters` on the system at `path`.
fn problem(path: &Path, parameters: &[&str], cost: &str) -> Result<Problem, String> {
    let system = System::load(path, LoadOptions::default()).expect("the system loads");
    let names: Vec<String> = parameters.iter().map(|p| p.to_string()).collect();
    let cost = CostSpec::new(Some(cost), None, Vec::new(), &CostSource::Option)
        .map_err(|e| e.to_string())?;
    Problem::new(system, &names, &cost, "--parameters").map_err(|e| e.to_string())
}

#[test]
fn elements_of_array_parameters_are_differentiated_by_differences() {
    let dir = tempfile::tempdir().unwrap();
    let path = ramp_system(dir.path());
    let mut problem = problem(&path, &["a.B[2,2]", "a.B[1,1]", "a.A[2,1]"], "final:a.y[2]")
        .expect("the problem resolves");
    let values = problem.start_values();
    assert_eq!(values, [1.0, 1.0, 0.0]);
    let evaluation = problem.gradient(&values).expect("the gradient");
    for method in &evaluation.methods {
        assert!(
            matches!(method, Method::FiniteDifferences { reason } if reason.contains("adjoint")),
            "{method:?}"
        );
    }
    // y2(T) = B22 u2 T + A21 B11 u1 T (T - h) / 2: the first state, a ramp, integrated into
    // the second by the FMU's explicit Euler steps of h = 1 ms (its config.h).
    let (t, h) = (2.0, 1e-3);
    let expected = [2.0 * t, 0.0, t * (t - h) / 2.0];
    for ((g, e), name) in evaluation
        .gradient
        .iter()
        .zip(expected)
        .zip(["B22", "B11", "A21"])
    {
        assert!(
            (g - e).abs() < 1e-6 * e.abs().max(1.0),
            "{name}: {g}, expected {e}"
        );
    }
}

#[test]
fn gradients_go_through_connections_of_array_elements() {
    let dir = tempfile::tempdir().unwrap();
    let connections = "\"a.y[2] -> b.u[1]\"";
    let path = system(dir.path(), connections, &[RAMP, PASS].concat());
    let mut problem = problem(&path, &["a.B[2,2]"], "final:b.y[1]").expect("the problem resolves");
    let evaluation = problem.gradient(&[1.0]).expect("the gradient");
    // Under Jacobi b shows a's output one macro step late: b.y1(T) = B22 u2 (T - H).
    let expected = 2.0 * (2.0 - H);
    let g = evaluation.gradient[0];
    assert!((g - expected).abs() < 1e-6, "{g}, expected {expected}");
}

#[test]
fn a_whole_array_or_an_element_out_of_range_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = ramp_system(dir.path());
    let error = |parameters: &[&str], cost: &str| {
        problem(&path, parameters, cost)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("{parameters:?} {cost} resolved"))
    };
    let message = error(&["a.B"], "final:a.y[1]");
    assert!(
        message.contains("B is an array; name the element to differentiate by, as in a.B[1]"),
        "{message}"
    );
    let message = error(&["a.B[4,1]"], "final:a.y[1]");
    assert!(message.contains("do not fit the shape [3, 3]"), "{message}");
    let message = error(&["a.B[1,1]"], "final:a.y");
    assert!(
        message.contains("y is an array; the cost takes one element at a time"),
        "{message}"
    );
}

#[test]
fn the_command_line_lists_elements_whose_indices_hold_commas() {
    let dir = tempfile::tempdir().unwrap();
    let path = system(dir.path(), "\"a.y[2] -> b.u[1]\"", &[RAMP, PASS].concat());
    let run = common::tandem(&[
        "gradient",
        path.to_str().unwrap(),
        "--parameters",
        "a.B[2,2],a.A[2,1]",
        "--cost",
        "final:b.y[1]",
    ]);
    run.assert_success();
    // dJ/dB22 = u2 (T - H); dJ/dA21 = (T - H) (T - H - h) / 2 with the FMU's Euler step h.
    let (t, h) = (2.0 - H, 1e-3);
    for (name, expected) in [("a.B[2,2]", 2.0 * t), ("a.A[2,1]", t * (t - h) / 2.0)] {
        let line = run
            .stdout
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {}", run.stdout));
        let derivative: f64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(
            (derivative - expected).abs() < 1e-6,
            "{name}: {derivative}, expected {expected}"
        );
    }
}

/// Tandem's own state-space model (A, B, C, D array parameters in FMI 3.0, their elements
/// scalars in FMI 2.0) as the component `ss` of `interface`, driven by a step input of 1.
fn tandem_state_space(dir: &Path, version: FmiVersion, interface: &str) -> PathBuf {
    let fmu = &fmus::find("state_space", version).path;
    // The master's integrator of a Model Exchange component runs to a tight tolerance, so
    // that its step-size control, which the sensitivities freeze, moves nothing visible.
    let tolerance = if interface == "me" {
        "tolerance = 1e-10\n"
    } else {
        ""
    };
    let text = format!(
        "[experiment]\nstop = 2.0\nstep = 0.05\n\n\
         [[component]]\nname = \"ss\"\nfmu = {fmu:?}\ninterface = \"{interface}\"\n\
         {tolerance}start = {{ u = 1.0 }}\n"
    );
    let path = dir.join(format!("state-space-{interface}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_adjoint_by_array_elements_agrees_with_central_differences() {
    // Co-Simulation: the adjoint extension's manifest lists A's and B's elements; Model
    // Exchange: the master's integrator seeds the FMU's directional derivatives element by
    // element through the whole arrays. FMI 2.0 has the same elements as scalars, and no
    // adjoint extension (an FMI 3.0 layered standard): Model Exchange only.
    let parameters = ["ss.A[2,1]", "ss.A[2,2]", "ss.B[2,1]"];
    let cases = [
        (FmiVersion::Fmi3, "cs"),
        (FmiVersion::Fmi3, "me"),
        (FmiVersion::Fmi2, "me"),
    ];
    for (version, interface) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = tandem_state_space(dir.path(), version, interface);
        let mut problem =
            problem(&path, &parameters, "integral:ss.y").expect("the problem resolves");
        let label = format!("state space {version:?} {interface}");
        let errors = adjoint_and_differences(&mut problem, &label);
        for (name, error) in parameters.iter().zip(errors) {
            assert!(error < 1e-6, "{label} {name}: error {error:.1e}");
        }
    }
}
