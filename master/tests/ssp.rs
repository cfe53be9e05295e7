//! SSP 1.0 systems: a package (`.ssp`) or a bare `.ssd` of the three-FMU double oscillator gives
//! the same result file as the equivalent TOML system file, under every schedule, multi-rate
//! and with Model Exchange masses; and bad descriptions fail cleanly with a message naming the
//! file, the line and the element.

mod common;

use std::path::{Path, PathBuf};

use common::double_oscillator::Setup;
use common::ssp::{self, Sources};
use common::{tandem, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// Runs `tandem run system --output-file dir/<stem>.csv extra...` and returns the run and the
/// result file.
fn run(system: &Path, extra: &[&str]) -> (Run, PathBuf) {
    let output = system.with_extension("csv");
    let mut args = vec![
        "run",
        system.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ];
    args.extend(extra);
    (tandem(&args), output)
}

/// The result file of the TOML system file of `setup`.
fn toml_result(setup: &Setup, dir: &Path) -> String {
    let (result, output) = run(&setup.write(dir), &[]);
    result.assert_success();
    std::fs::read_to_string(output).unwrap()
}

/// Asserts that the package of `setup` gives exactly the TOML file's result.
fn assert_package_matches_toml(setup: &Setup) {
    let dir = tempfile::tempdir().unwrap();
    let package = ssp::write_package(
        dir.path(),
        "double-oscillator",
        setup,
        &ssp::ssd(setup, &Sources::packaged()),
    );
    let (result, output) = run(&package, &[]);
    result.assert_success();
    let expected = toml_result(setup, dir.path());
    let actual = std::fs::read_to_string(output).unwrap();
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{setup:?}"
    );
    assert!(actual == expected, "{setup:?}: the results differ");
}

#[test]
fn a_package_gives_the_toml_files_result_under_every_schedule() {
    let h = 1e-3;
    for setup in [
        Setup::jacobi("zoh", h),
        Setup::jacobi("soh", h),
        Setup::gauss_seidel(["mass1", "spring", "mass2"], "foh", h),
        Setup {
            mass2_sub_steps: 10,
            ..Setup::jacobi("foh", h)
        },
        Setup {
            mass_interface: "me",
            ..Setup::gauss_seidel(["mass1", "mass2", "spring"], "zoh", h)
        },
    ] {
        assert_package_matches_toml(&Setup { stop: 0.2, ..setup });
    }
}

#[test]
fn a_bare_ssd_finds_its_files_relative_to_itself_and_takes_the_step_size_option() {
    let setup = Setup {
        stop: 0.1,
        ..Setup::jacobi("foh", 5e-4)
    };
    let dir = tempfile::tempdir().unwrap();
    let fmu_dir = dir.path().join("my fmus");
    std::fs::create_dir(&fmu_dir).unwrap();
    for model in ["mass", "spring_damper"] {
        let source = &fmus::find(model, FmiVersion::Fmi3).path;
        std::fs::copy(source, fmu_dir.join(format!("{model}.fmu"))).unwrap();
    }
    std::fs::write(dir.path().join("mass2.ssv"), ssp::mass2_parameters(&setup)).unwrap();
    let sources = Sources {
        mass: "my%20fmus/mass.fmu".into(),
        spring: "my%20fmus/spring_damper.fmu".into(),
        mass2_parameters: "mass2.ssv".into(),
    };
    // The description's own step (1 ms) is replaced by the option's.
    let text = ssp::ssd(
        &Setup {
            macro_step: 1e-3,
            ..setup.clone()
        },
        &sources,
    );
    let path = dir.path().join("double-oscillator.ssd");
    std::fs::write(&path, text).unwrap();
    let (result, output) = run(&path, &["--step-size", "0.0005"]);
    result.assert_success();
    assert!(
        result.stderr.contains("200 macro steps"),
        "{}",
        result.stderr
    );
    let expected = toml_result(&setup, dir.path());
    assert!(std::fs::read_to_string(output).unwrap() == expected);
}

#[test]
fn without_a_step_the_fmus_suggested_step_is_the_macro_step() {
    let setup = Setup {
        stop: 0.05,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let text = edit(
        &ssp::ssd(&setup, &Sources::packaged()),
        "<Experiment step=\"0.001\"/>",
        "",
    );
    let dir = tempfile::tempdir().unwrap();
    let package = ssp::write_package(dir.path(), "no-step", &setup, &text);
    let (result, _) = run(&package, &[]);
    result.assert_success();
    // The mass and spring FMUs suggest 1 ms (their DefaultExperiment stepSize).
    assert!(
        result
            .stderr
            .contains("no-step: Jacobi with ZOH to t = 0.05 in 50 macro steps"),
        "{}",
        result.stderr
    );
}

/// `text` with `from` replaced by `to` (which must occur).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is not in the description");
    text.replacen(from, to, 1)
}

/// Runs the package of the valid Jacobi description edited by `from` -> `to`, and asserts a
/// clean failure whose message names the package and contains every `needle`.
fn assert_edit_fails(from: &str, to: &str, needles: &[&str]) {
    let setup = Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let text = edit(&ssp::ssd(&setup, &Sources::packaged()), from, to);
    let dir = tempfile::tempdir().unwrap();
    let package = ssp::write_package(dir.path(), "broken", &setup, &text);
    let (result, _) = run(&package, &[]);
    result.assert_fails_with("broken.ssp: ");
    for needle in needles {
        assert!(
            result.stderr.contains(needle),
            "expected {needle:?} in: {}",
            result.stderr
        );
    }
}

#[test]
fn a_connection_to_an_unknown_component_or_connector() {
    assert_edit_fails(
        "startElement=\"mass1\" startConnector=\"position\"",
        "startElement=\"massX\" startConnector=\"position\"",
        &[
            "SystemStructure.ssd, line 50, <ssd:Connection>",
            "connection \"massX.position -> spring.x_a\"",
            "unknown component \"massX\" in \"massX.position\" (components: mass1, spring, mass2)",
        ],
    );
    assert_edit_fails(
        "startConnector=\"position\" endElement=\"spring\" endConnector=\"x_a\"",
        "startConnector=\"pos\" endElement=\"spring\" endConnector=\"x_a\"",
        &[
            "line 50, <ssd:Connection>",
            "component mass1 (",
            "broken.ssp/resources/mass.fmu) has no variable \"pos\"",
        ],
    );
}

#[test]
fn a_missing_fmu_or_parameter_file() {
    assert_edit_fails(
        "source=\"resources/spring_damper.fmu\"",
        "source=\"resources/spring.fmu\"",
        &[
            "line 40, <ssd:Component>",
            "component spring: FMU file ",
            "broken.ssp/resources/spring.fmu not found (the package has no such file)",
        ],
    );
    assert_edit_fails(
        "source=\"resources/mass2.ssv\"",
        "source=\"resources/mass3.ssv\"",
        &["cannot read resources/mass3.ssv"],
    );
}

#[test]
fn malformed_xml_names_the_line_and_column() {
    assert_edit_fails(
        "<ssd:Connections>",
        "<ssd:Connections",
        &["SystemStructure.ssd, line 49, column 5: malformed attribute in <ssd:Connections>"],
    );
    assert_edit_fails(
        "</ssd:Elements>",
        "</ssd:Element>",
        &["SystemStructure.ssd, line", "malformed XML"],
    );
}

#[test]
fn elements_outside_the_subset_are_rejected_by_name() {
    assert_edit_fails(
        "<ssd:Elements>",
        "<ssd:Elements>\n      <ssd:System name=\"inner\"/>",
        &[
            "line 19, <ssd:System>",
            "a nested system",
            "is not supported",
        ],
    );
    assert_edit_fails(
        "startElement=\"mass1\" startConnector=\"position\"",
        "startConnector=\"position\"",
        &[
            "<ssd:Connection>",
            "a connection to the system's own connector position (no startElement) is not supported",
        ],
    );
    assert_edit_fails(
        "<ssd:ConnectionGeometry pointsX=\"0.5\" pointsY=\"0.5\"/>",
        "<ssc:LinearTransformation factor=\"2\"/>",
        &[
            "<ssc:LinearTransformation>",
            "connection spring.f_b -> mass2.F: a transformation is not supported",
        ],
    );
    assert_edit_fails(
        "<ssd:ParameterBinding source=\"resources/mass2.ssv\"/>",
        "<ssd:ParameterBinding source=\"resources/mass2.ssv\"><ssd:ParameterMapping/></ssd:ParameterBinding>",
        &["<ssd:ParameterMapping>", "a parameter mapping is not supported"],
    );
    assert_edit_fails(
        "<ssd:Component name=\"spring\" source",
        "<ssd:Component name=\"spring\" type=\"application/x-ssp-package\" source",
        &["component spring: type \"application/x-ssp-package\""],
    );
}

#[test]
fn parameter_values_are_checked_against_the_fmus() {
    assert_edit_fails(
        "<ssv:Parameter name=\"k\"><ssv:Real value=\"100.0\"",
        "<ssv:Parameter name=\"kk\"><ssv:Real value=\"100.0\"",
        &[
            "line 12, <ssv:Real>",
            "component spring: value of kk: ",
            "broken.ssp/resources/spring_damper.fmu has no variable \"kk\"",
        ],
    );
    assert_edit_fails(
        "value=\"100.0\" unit=\"N/m\"",
        "value=\"100.0\" unit=\"lbf/in\"",
        &["value of k: the value is given in lbf/in but k is in N/m; units are not converted"],
    );
    assert_edit_fails(
        "<ssv:Parameter name=\"m\"><ssv:Real value=\"1.0\"",
        "<ssv:Parameter name=\"m\"><ssv:Real value=\"heavy\"",
        &["component mass1: value of m: \"heavy\" is not a valid Float64"],
    );
    assert_edit_fails(
        "<ssd:ParameterBinding prefix=\"spring.\">",
        "<ssd:ParameterBinding prefix=\"damper.\">",
        &["parameter damper.k: unknown component \"damper\""],
    );
}

#[test]
fn the_experiment_and_the_tandem_settings_are_checked() {
    assert_edit_fails(
        "<ssd:DefaultExperiment startTime=\"0.0\" stopTime=\"0.01\"/>",
        "<ssd:DefaultExperiment startTime=\"0.0\"/>",
        &["no stop time", "--stop-time"],
    );
    assert_edit_fails(
        "stopTime=\"0.01\"",
        "stopTime=\"soon\"",
        &[
            "<ssd:DefaultExperiment>",
            "stopTime=\"soon\" is not a valid number",
        ],
    );
    assert_edit_fails(
        "kind=\"jacobi\"",
        "kind=\"round-robin\"",
        &["<Schedule>", "kind: unknown variant `round-robin`"],
    );
    assert_edit_fails(
        "<Experiment step=\"0.001\"/>",
        "<Experiment stepsize=\"0.001\"/>",
        &["<Experiment>", "unknown attribute stepsize (expected step)"],
    );
    assert_edit_fails(
        "<Output variables=\"mass1.position ",
        "<Output variables=\"mass1.height ",
        &["<Output>", "output.variables", "no variable \"height\""],
    );
}

#[test]
fn a_package_without_a_description_or_not_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    let empty = common::write_zip(&dir.path().join("empty.ssp"), &[("readme.txt", b"hi")]);
    let (result, _) = run(&empty, &[]);
    result.assert_fails_with("empty.ssp: the package contains no SystemStructure.ssd at its root");
    let text = dir.path().join("text.ssp");
    std::fs::write(&text, "not a zip").unwrap();
    let (result, _) = run(&text, &[]);
    result.assert_fails_with("text.ssp: not a valid SSP package (corrupt zip)");
}
