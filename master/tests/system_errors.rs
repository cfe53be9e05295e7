//! Every bad system file gives exit code 1 and a message naming the file, the line where the
//! TOML reader gives one, the component and the variable, without a panic. Runs the built
//! `tandem` binary on variants of the three-FMU double oscillator.

mod common;

use common::double_oscillator::Setup;
use common::{tandem, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// The valid Jacobi system file the cases start from.
fn valid() -> String {
    Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    }
    .toml()
}

/// `text` with `from` replaced by `to` (which must occur).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is not in the system file");
    text.replacen(from, to, 1)
}

/// Runs `tandem run` on `text` saved as `double-oscillator.toml`, with `extra` arguments.
fn run(text: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("double-oscillator.toml");
    std::fs::write(&path, text).unwrap();
    let output = dir.path().join("out.csv");
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ];
    args.extend(extra);
    tandem(&args)
}

/// Asserts a clean failure whose message names the system file and contains every `needle`.
fn assert_fails(run: &Run, needles: &[&str]) {
    run.assert_fails_with("double-oscillator.toml");
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "expected {needle:?} in: {}",
            run.stderr
        );
    }
}

#[test]
fn the_valid_file_runs() {
    let result = run(&valid(), &[]);
    result.assert_success();
    assert!(
        result.stderr.contains("10 macro steps"),
        "summary: {}",
        result.stderr
    );
}

#[test]
fn malformed_toml_names_the_file_line_and_column() {
    let text = edit(&valid(), "[experiment]", "[experiment");
    assert_fails(&run(&text, &[]), &["line 10, column"]);
}

#[test]
fn unknown_and_missing_keys_are_named() {
    let text = edit(&valid(), "step = 0.001", "stepp = 0.001");
    assert_fails(&run(&text, &[]), &["unknown field `stepp`"]);
    let text = edit(&valid(), "[experiment]\nstop = 0.01\n", "[experiment]\n");
    assert_fails(&run(&text, &[]), &["missing field `stop`"]);
    let text = edit(&valid(), "kind = \"jacobi\"", "kind = \"round-robin\"");
    assert_fails(&run(&text, &[]), &["round-robin", "jacobi", "gauss-seidel"]);
}

#[test]
fn a_connection_to_an_unknown_component_or_variable() {
    let text = edit(
        &valid(),
        "\"mass1.position -> spring.x_a\"",
        "\"massX.position -> spring.x_a\"",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 2:",
            "unknown component \"massX\"",
            "mass1, spring, mass2",
        ],
    );
    let text = edit(
        &valid(),
        "\"mass1.position -> spring.x_a\"",
        "\"mass1.pos -> spring.x_a\"",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 2:",
            "component mass1",
            "mass.fmu",
            "no variable \"pos\"",
        ],
    );
    let text = edit(
        &valid(),
        "\"mass1.position -> spring.x_a\"",
        "\"mass1.position spring.x_a\"",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 2:",
            "expected \"component.output -> component.input\"",
        ],
    );
}

#[test]
fn a_transformation_must_be_finite_and_on_floats() {
    let text = edit(&valid(), "\"mass1.position -> spring.x_a\",\n", "")
        + "\n[[connection]]\nfrom = \"mass1.position\"\nto = \"spring.x_a\"\nfactor = inf\n";
    assert_fails(
        &run(&text, &[]),
        &[
            "connection \"mass1.position -> spring.x_a\": the transformation inf * mass1.position \
           is not finite",
        ],
    );
}

#[test]
fn names_that_are_almost_right_get_suggestions() {
    for (from, to, needle) in [
        (
            "\"mass1.position -> spring.x_a\"",
            "\"mass1.positon -> spring.x_a\"",
            "no variable \"positon\"; did you mean \"position\"?",
        ),
        (
            "\"mass1.position -> spring.x_a\"",
            "\"massX.position -> spring.x_a\"",
            "(components: mass1, spring, mass2); did you mean \"mass1\" or \"mass2\"?",
        ),
        (
            "parameters = { m = 1.0, k = 10.0 }",
            "parameters = { m = 1.0, kk = 10.0 }",
            "no variable \"kk\"; did you mean \"k\"?",
        ),
    ] {
        assert_fails(&run(&edit(&valid(), from, to), &[]), &[needle]);
    }
}

#[test]
fn connections_go_from_outputs_to_inputs() {
    let text = edit(
        &valid(),
        "\"spring.f_b -> mass2.F\"",
        "\"mass1.position -> mass2.position\"",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 7:",
            "to must be an input, but mass2.position has causality output",
        ],
    );
    let text = edit(
        &valid(),
        "\"mass1.position -> spring.x_a\"",
        "\"mass1.F -> spring.x_a\"",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 2:",
            "from must be an output, but mass1.F has causality input",
        ],
    );
}

#[test]
fn connected_types_must_match() {
    let ball = fmus::find("bouncing_ball", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let text = edit(
        &valid(),
        "\"spring.f_a -> mass1.F\"",
        "\"ball.bounces -> mass1.F\"",
    );
    let text = format!("{text}\n[[component]]\nname = \"ball\"\nfmu = '{ball}'\n");
    assert_fails(
        &run(&text, &[]),
        &[
            "line 6:",
            "type mismatch: ball.bounces is Int32 but mass1.F is Float64",
        ],
    );
}

#[test]
fn an_input_takes_one_connection() {
    let text = edit(
        &valid(),
        "\"spring.f_b -> mass2.F\",",
        "\"spring.f_b -> mass2.F\",\n    \"mass2.position -> spring.x_a\",",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 8:",
            "spring.x_a is already connected from mass1.position (line 2)",
        ],
    );
}

#[test]
fn gauss_seidel_solves_an_algebraic_loop_and_jacobi_runs_it() {
    // mass1's acceleration depends on its force input F, and the spring's forces on x_a.
    let looped = edit(
        &valid(),
        "\"mass1.position -> spring.x_a\"",
        "\"mass1.acceleration -> spring.x_a\"",
    );
    assert_fails(
        &run(&looped, &[]),
        &[
            "connection \"mass1.acceleration -> spring.x_a\": mass1.acceleration is in m/s2 but \
           spring.x_a is in m, which are not the same quantity (m.s-2 against m)",
        ],
    );
    // A mass whose acceleration claims metres closes the loop without mixing units.
    let dir = tempfile::tempdir().unwrap();
    let fmu = dir.path().join("mass-in-metres.fmu");
    let edited =
        common::fmu_with_model_description("mass", &[(r#"unit="m/s2"/>"#, r#"unit="m"/>"#)]);
    std::fs::write(&fmu, edited).unwrap();
    let mass = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let looped = edit(
        &looped,
        &format!("fmu = '{mass}'"),
        &format!("fmu = '{}'", fmu.display()),
    );
    run(&looped, &[]).assert_success();
    let text = edit(
        &looped,
        "kind = \"jacobi\"",
        "kind = \"gauss-seidel\"\norder = [\"mass1\", \"spring\", \"mass2\"]",
    );
    // Gauss-Seidel solves the loop at every communication point (master/tests/algebraic_loops.rs
    // checks the values).
    run(&text, &[]).assert_success();
}

#[test]
fn a_missing_fmu_file() {
    let mass = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let text = edit(
        &valid(),
        &format!("fmu = '{mass}'"),
        "fmu = 'no/such/mass.fmu'",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 16:",
            "component mass1",
            "FMU file",
            "no/such/mass.fmu not found",
        ],
    );
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    assert_fails(
        &run(&valid(), &["--fmu-dir", dir]),
        &["not found", "--fmu-dir"],
    );
}

#[test]
fn a_missing_system_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.toml");
    tandem(&["run", path.to_str().unwrap()]).assert_fails_with("absent.toml");
}

#[test]
fn component_steps_divide_the_macro_step() {
    let text = edit(
        &valid(),
        "step = 0.001\nparameters = { m = 1.0, k = 1000.0 }",
        "step = 0.0003\nparameters = { m = 1.0, k = 1000.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "component mass2",
            "step 0.0003 is not the macro step 0.001 divided by a whole number",
        ],
    );
}

#[test]
fn parameters_and_start_values_are_checked() {
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "parameters = { m = 1.0, stiffness = 10.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "component mass1",
            "parameters.stiffness",
            "no variable \"stiffness\"",
        ],
    );
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "parameters = { m = 1.0, x = 10.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &["parameters.x", "not a parameter", "[component.start]"],
    );
    let text = edit(
        &valid(),
        "start = { x = 0.0, v = 100.0 }",
        "start = { k = 5.0, v = 100.0 }",
    );
    assert_fails(&run(&text, &[]), &["start.k", "is a parameter"]);
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "parameters = { m = 1.0, k = \"stiff\" }",
    );
    assert_fails(
        &run(&text, &[]),
        &["parameters.k", "\"stiff\" is not a valid Float64"],
    );
}

#[test]
fn the_experiment_and_schedule_are_checked() {
    let text = edit(&valid(), "stop = 0.01", "stop = 0.0");
    assert_fails(
        &run(&text, &[]),
        &["stop time 0 must be after the start time 0"],
    );
    let text = edit(
        &valid(),
        "kind = \"jacobi\"",
        "kind = \"jacobi\"\norder = [\"mass1\", \"spring\", \"mass2\"]",
    );
    assert_fails(
        &run(&text, &[]),
        &["schedule.order applies to the gauss-seidel schedule only"],
    );
    let gauss_seidel = |order: &str| {
        edit(
            &valid(),
            "kind = \"jacobi\"",
            &format!("kind = \"gauss-seidel\"\norder = {order}"),
        )
    };
    assert_fails(
        &run(&gauss_seidel("[\"mass1\", \"spring\"]"), &[]),
        &["schedule.order: component mass2 is missing"],
    );
    assert_fails(
        &run(&gauss_seidel("[\"mass1\", \"spring\", \"mass1\"]"), &[]),
        &["schedule.order: component mass1 is listed twice"],
    );
    assert_fails(
        &run(&gauss_seidel("[\"mass1\", \"spring\", \"mass3\"]"), &[]),
        &["schedule.order: unknown component \"mass3\""],
    );
    let text = edit(
        &valid(),
        "kind = \"jacobi\"",
        "kind = \"jacobi\"\nthreads = 0",
    );
    assert_fails(
        &run(&text, &[]),
        &["threads = 0: must be \"auto\" or a whole number from 1"],
    );
    let flag = run(&valid(), &["--threads", "many"]);
    assert_eq!(flag.code, Some(2), "{}", flag.stderr);
    assert!(
        flag.stderr.contains("--threads")
            && flag.stderr.contains("threads = many: must be \"auto\""),
        "{}",
        flag.stderr
    );
}

#[test]
fn recorded_variables_must_exist() {
    let text = edit(
        &valid(),
        "variables = [\"mass1.position\"",
        "variables = [\"mass1.height\"",
    );
    assert_fails(
        &run(&text, &[]),
        &["output.variables", "no variable \"height\""],
    );
}

#[test]
fn component_names_are_unique() {
    let text = edit(&valid(), "name = \"mass2\"", "name = \"mass1\"");
    assert_fails(
        &run(&text, &[]),
        &["component name \"mass1\" is used twice"],
    );
}

#[test]
fn interfaces_steps_and_tolerances_are_checked() {
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "interface = \"fmi\"\nparameters = { m = 1.0, k = 10.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "line 17:",
            "component mass1",
            "interface \"fmi\": expected \"cs\"",
        ],
    );
    let text = edit(
        &valid(),
        "step = 0.001\nparameters = { m = 1.0, k = 1000.0 }",
        "interface = \"me\"\nstep = 0.001\nparameters = { m = 1.0, k = 1000.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "component mass2",
            "step 0.001 applies to Co-Simulation components",
        ],
    );
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "tolerance = 1e-9\nparameters = { m = 1.0, k = 10.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "component mass1",
            "tolerance applies to Model Exchange components",
        ],
    );
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "interface = \"me\"\ntolerance = -1.0\nparameters = { m = 1.0, k = 10.0 }",
    );
    assert_fails(&run(&text, &[]), &["tolerance -1 must be positive"]);
}

#[test]
fn solvers_are_checked_and_apply_to_model_exchange_components() {
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "solver = \"esdirk\"\nparameters = { m = 1.0, k = 10.0 }",
    );
    assert_fails(
        &run(&text, &[]),
        &[
            "component mass1",
            "solver esdirk applies to Model Exchange components",
        ],
    );
    let text = edit(
        &valid(),
        "parameters = { m = 1.0, k = 10.0 }",
        "interface = \"me\"\nsolver = \"rk4\"\nparameters = { m = 1.0, k = 10.0 }",
    );
    assert_fails(&run(&text, &[]), &["rk4", "auto", "dopri5", "esdirk"]);
    for solver in ["auto", "dopri5", "esdirk"] {
        let text = edit(
            &valid(),
            "parameters = { m = 1.0, k = 10.0 }",
            &format!(
                "interface = \"me\"\nsolver = \"{solver}\"\nparameters = {{ m = 1.0, k = 10.0 }}"
            ),
        );
        run(&text, &[]).assert_success();
    }
}

#[test]
fn the_step_size_option_replaces_the_macro_step() {
    let result = run(&valid(), &["--step-size", "0.002"]);
    result.assert_success();
    assert!(result.stderr.contains("5 macro steps"), "{}", result.stderr);
    // mass2 keeps its 1 ms step: two sub-steps per 2 ms, but it cannot step slower than H.
    assert_fails(
        &run(&valid(), &["--step-size", "0.0005"]),
        &["component mass2", "step 0.001 is not the macro step 0.0005"],
    );
    let result = run(&valid(), &["--step-size", "0"]);
    result.assert_fails_with("--step-size: the macro step 0 must be positive");
}
