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

/// The result file of `package`, which must run, and the TOML file's result for `setup` with
/// the columns of `renamed` components (`(toml name, ssp name)`) renamed.
fn package_and_toml_results(
    package: &Path,
    setup: &Setup,
    renamed: &[(&str, &str)],
) -> (Run, String, String) {
    let (result, output) = run(package, &[]);
    result.assert_success();
    let actual = std::fs::read_to_string(output).unwrap();
    let mut expected = toml_result(setup, package.parent().unwrap());
    let header_end = expected.find('\n').unwrap();
    let mut header = expected[..header_end].to_string();
    for (from, to) in renamed {
        header = header.replace(&format!("{from}."), &format!("{to}."));
    }
    expected.replace_range(..header_end, &header);
    (result, actual, expected)
}

/// The double oscillator with the spring and mass2 in a nested system `coupled`, reached
/// through its connectors, and the coupling stiffness bound to a parameter connector of the
/// top-level system, as OMSimulator writes systems.
fn nested_ssd(setup: &Setup) -> String {
    let text = ssp::ssd(setup, &Sources::packaged());
    let text = edit(
        &text,
        r#"<ssd:ParameterBinding prefix="spring.">"#,
        r#"<ssd:ParameterBinding>"#,
    );
    let text = edit(
        &text,
        r#"<ssv:Parameter name="k"><ssv:Real value="100.0" unit="N/m"/>"#,
        r#"<ssv:Parameter name="k_coupling"><ssv:Real value="100.0" unit="N/m"/>"#,
    );
    let text = edit(
        &text,
        "    <ssd:ParameterBindings>",
        r#"    <ssd:Connectors><ssd:Connector name="k_coupling" kind="parameter"><ssc:Real unit="N/m"/></ssd:Connector></ssd:Connectors>
    <ssd:ParameterBindings>"#,
    );
    let text = edit(
        &text,
        r#"      <ssd:Component name="spring""#,
        r#"      <ssd:System name="coupled">
       <ssd:Connectors>
        <ssd:Connector name="x_a" kind="input"/><ssd:Connector name="v_a" kind="input"/>
        <ssd:Connector name="f_a" kind="output"/><ssd:Connector name="k" kind="parameter"/>
       </ssd:Connectors>
       <ssd:Elements>
      <ssd:Component name="spring""#,
    );
    let inner = r#"       </ssd:Elements>
       <ssd:Connections>
        <ssd:Connection startElement="" startConnector="x_a" endElement="spring" endConnector="x_a"/>
        <ssd:Connection startConnector="v_a" endElement="spring" endConnector="v_a"/>
        <ssd:Connection startElement="spring" startConnector="f_a" endConnector="f_a"/>
        <ssd:Connection startConnector="k" endElement="spring" endConnector="k"/>
        <ssd:Connection startElement="mass2" startConnector="position" endElement="spring" endConnector="x_b"/>
        <ssd:Connection startElement="mass2" startConnector="velocity" endElement="spring" endConnector="v_b"/>
        <ssd:Connection startElement="spring" startConnector="f_b" endElement="mass2" endConnector="F"/>
       </ssd:Connections>
      </ssd:System>
    </ssd:Elements>"#;
    let text = edit(&text, "    </ssd:Elements>", inner);
    // The top-level connections, after the nested system's.
    let start = text.rfind("\n    <ssd:Connections>").unwrap() + 1;
    let end = text.rfind("\n    </ssd:Connections>").unwrap() + 1;
    let outer = r#"    <ssd:Connections>
      <ssd:Connection startElement="mass1" startConnector="position" endElement="coupled" endConnector="x_a"/>
      <ssd:Connection startElement="mass1" startConnector="velocity" endElement="coupled" endConnector="v_a"/>
      <ssd:Connection startElement="coupled" startConnector="f_a" endElement="mass1" endConnector="F"/>
      <ssd:Connection startConnector="k_coupling" endElement="coupled" endConnector="k"/>
"#;
    let text = format!("{}{outer}{}", &text[..start], &text[end..]);
    edit(
        &text,
        "mass2.position mass1.velocity mass2.velocity spring.f_a",
        "coupled.mass2.position mass1.velocity coupled.mass2.velocity coupled.spring.f_a",
    )
}

#[test]
fn a_nested_system_with_system_connectors_gives_the_flat_systems_result() {
    for setup in [
        Setup::jacobi("foh", 1e-3),
        Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3),
    ] {
        let setup = Setup { stop: 0.1, ..setup };
        let mut text = nested_ssd(&setup);
        if setup.order.is_some() {
            text = edit(
                &text,
                r#"order="mass1 spring mass2""#,
                r#"order="mass1 coupled.spring coupled.mass2""#,
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let package = ssp::write_package(dir.path(), "nested", &setup, &text);
        let renamed = [("mass2", "coupled.mass2"), ("spring", "coupled.spring")];
        let (result, actual, expected) = package_and_toml_results(&package, &setup, &renamed);
        assert!(
            actual.starts_with(r#""time","mass1.position","coupled.mass2.position","#),
            "{actual}"
        );
        assert!(
            actual == expected,
            "{setup:?}: the results differ\n{}",
            result.stderr
        );
        assert!(!result.stderr.contains("note:"), "{}", result.stderr);
    }
}

/// The double oscillator with mass1's stiffness renamed by an inline parameter mapping and
/// mass2's values in an `.ssv` (in grams, with values for variables no FMU has) mapped by an
/// `.ssm`: the description, the `.ssv` and the `.ssm`.
fn mapped_files(setup: &Setup) -> (String, String, String) {
    // mass2's values in grams and under other names, with values for variables no FMU has.
    let [_, x2, _, v2] = tandem_tests::double_oscillator::DoubleOscillator::INITIAL_STATE;
    let ssv = ssp::mass2_parameters(setup)
        .replacen(
            r#"name="m"><ssv:Real value="1.0" unit="kg""#,
            r#"name="mass_g"><ssv:Real value="1000" unit="g""#,
            1,
        )
        .replacen(
            "</ssv:Parameters>",
            r#"<ssv:Parameter name="colour"><ssv:Integer value="3"/></ssv:Parameter>
<ssv:Parameter name="owner"><ssv:String value="lab 3"/></ssv:Parameter>
</ssv:Parameters>"#,
            1,
        );
    assert!(
        ssv.contains("mass_g")
            && ssv.contains(&format!("{x2:?}"))
            && ssv.contains(&format!("{v2:?}"))
    );
    let ssm = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssm:ParameterMapping xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0">
  <ssm:MappingEntry source="mass_g" target="m" suppressUnitConversion="true">
    <ssc:LinearTransformation factor="0.001"/>
  </ssm:MappingEntry>
</ssm:ParameterMapping>
"#;
    let text = ssp::ssd(setup, &Sources::packaged());
    let text = edit(
        &text,
        r#"<ssd:ParameterBinding source="resources/mass2.ssv"/>"#,
        r#"<ssd:ParameterBinding source="resources/mass2-grams.ssv"><ssd:ParameterMapping source="resources/mass2.ssm"/></ssd:ParameterBinding>"#,
    );
    // mass1's stiffness under another name, renamed by an inline mapping.
    let text = edit(
        &text,
        r#"<ssv:Parameter name="k"><ssv:Real value="10.0""#,
        r#"<ssv:Parameter name="stiffness"><ssv:Real value="10.0""#,
    );
    let text = edit(
        &text,
        "            </ssd:ParameterValues>",
        r#"            </ssd:ParameterValues>
            <ssd:ParameterMapping>
              <ssm:ParameterMapping xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping" version="1.0">
                <ssm:MappingEntry source="stiffness" target="k"/>
              </ssm:ParameterMapping>
            </ssd:ParameterMapping>"#,
    );
    (text, ssv, ssm.to_string())
}

#[test]
fn parameter_mappings_and_extra_parameters_give_the_toml_files_result() {
    let setup = Setup {
        stop: 0.1,
        ..Setup::jacobi("soh", 1e-3)
    };
    let (text, ssv, ssm) = mapped_files(&setup);
    let dir = tempfile::tempdir().unwrap();
    let package = ssp::write_package_with(
        dir.path(),
        "mapped",
        &setup,
        &text,
        &[
            ("resources/mass2-grams.ssv", ssv.as_bytes()),
            ("resources/mass2.ssm", ssm.as_bytes()),
        ],
    );
    let (result, actual, expected) = package_and_toml_results(&package, &setup, &[]);
    assert!(actual == expected, "the results differ\n{}", result.stderr);
    let note = "note: ".to_string()
        + &package.display().to_string()
        + ", resources/mass2-grams.ssv: 2 value(s) set nothing in the system and are ignored, as \
           SSP prescribes: mass2.colour, mass2.owner";
    assert!(result.stderr.contains(&note), "{}", result.stderr);
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
fn a_broken_fmu_inside_a_package_is_named_by_the_package_and_its_entry() {
    let setup = Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    };
    // A description naming a binary the archive does not hold reads fine: that failure comes
    // only when the binary is loaded, after the FMU was opened.
    let renamed = common::fmu_with_model_description(
        "spring_damper",
        &[(
            "CoSimulation modelIdentifier=\"spring_damper\"",
            "CoSimulation modelIdentifier=\"renamed\"",
        )],
    );
    let cases: [(&str, &[u8], &str); 2] = [
        (
            "broken",
            b"not a zip",
            "broken.ssp/resources/broken.fmu: not a valid FMU archive",
        ),
        (
            "renamed",
            &renamed,
            "broken.ssp/resources/renamed.fmu: no binary for this platform: expected \
             binaries/x86_64-linux/renamed.so",
        ),
    ];
    for (name, fmu, needle) in cases {
        let entry = format!("resources/{name}.fmu");
        let text = edit(
            &ssp::ssd(&setup, &Sources::packaged()),
            "source=\"resources/spring_damper.fmu\"",
            &format!("source=\"{entry}\""),
        );
        let dir = tempfile::tempdir().unwrap();
        let package =
            ssp::write_package_with(dir.path(), "broken", &setup, &text, &[(&entry, fmu)]);
        let (result, _) = run(&package, &[]);
        result.assert_fails_with(needle);
        assert!(!result.stderr.contains("tandem-ssp-"), "{}", result.stderr);
    }
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
        "<ssd:Elements>\n      <ssd:Model name=\"inner\"/>",
        &["line 19, <ssd:Model>", "this element is not supported"],
    );
    assert_edit_fails(
        "startElement=\"mass1\" startConnector=\"position\"",
        "startConnector=\"position\"",
        &[
            "line 50, <ssd:Connection>",
            "the top-level system has no connector \"position\" (no ssd:Connector of that name)",
        ],
    );
    assert_edit_fails(
        "<ssd:ConnectionGeometry pointsX=\"0.5\" pointsY=\"0.5\"/>",
        "<ssc:BooleanMappingTransformation><ssc:MapEntry source=\"true\" target=\"false\"/></ssc:BooleanMappingTransformation>",
        &[
            "line 55, <ssd:Connection>",
            "the boolean mapping transformation applies to boolean variables, and spring.f_b is \
             Float64",
        ],
    );
    assert_edit_fails(
        "<ssd:ParameterBinding source=\"resources/mass2.ssv\"/>",
        "<ssd:ParameterBinding source=\"resources/mass2.ssv\"><ssd:ParameterMapping/></ssd:ParameterBinding>",
        &[
            "<ssd:ParameterMapping>",
            "give the mapping either by source or inline in one ssm:ParameterMapping",
        ],
    );
    assert_edit_fails(
        "<ssd:Component name=\"spring\" source",
        "<ssd:Component name=\"spring\" type=\"application/x-ssp-package\" source",
        &["component spring: type \"application/x-ssp-package\""],
    );
}

#[test]
fn parameter_values_are_checked_against_the_fmus() {
    // A unit the parameter set declares is checked against the variable's.
    assert_edit_fails(
        "unit=\"N/m\"/></ssv:Parameter>\n      </ssv:Parameters>",
        "unit=\"lbf/in\"/></ssv:Parameter>\n      </ssv:Parameters>\n      \
         <ssv:Units><ssc:Unit name=\"lbf/in\"/></ssv:Units>",
        &["value of k: the value is given in lbf/in but k is in N/m; units are not converted"],
    );
    assert_edit_fails(
        "<ssv:Parameter name=\"m\"><ssv:Real value=\"1.0\"",
        "<ssv:Parameter name=\"m\"><ssv:Real value=\"heavy\"",
        &["component mass1: value of m: \"heavy\" is not a valid Float64"],
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

/// Validates each file against the SSP 1.0 schema for its root element, with FMPy's copy of
/// the XSDs and its validation (lxml); panics with the schema's complaints.
fn assert_valid_ssp(files: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let script = r#"
import sys
from lxml import etree
from fmpy.ssp.ssd import validate_tree
schemas = {
    'SystemStructureDescription': 'SystemStructureDescription.xsd',
    'ParameterSet': 'SystemStructureParameterValues.xsd',
    'ParameterMapping': 'SystemStructureParameterMapping.xsd',
}
failed = False
for path in sys.argv[1:]:
    root = etree.parse(path).getroot()
    try:
        validate_tree(root, schemas[etree.QName(root).localname])
    except Exception as e:
        print(path, e)
        failed = True
sys.exit(1 if failed else 0)
"#;
    let output = std::process::Command::new(tandem_tests::python::python())
        .arg("-c")
        .arg(script)
        .args(&paths)
        .output()
        .expect("run the test environment's Python");
    assert!(
        output.status.success(),
        "not valid SSP 1.0:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_descriptions_shipped_and_written_by_the_tests_are_valid_ssp() {
    let setup = Setup {
        mass2_sub_steps: 10,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "foh", 1e-3)
    };
    let me = Setup {
        mass_interface: "me",
        ..Setup::jacobi("zoh", 1e-3)
    };
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/system-file.md"))
            .unwrap();
    let examples: Vec<&str> = docs
        .split("```xml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .filter(|block| block.contains("<ssd:SystemStructureDescription"))
        .collect();
    assert!(
        !examples.is_empty(),
        "the documentation shows a complete description"
    );
    let (mapped, ssv, ssm) = mapped_files(&setup);
    let mut files = vec![
        (
            "double-oscillator.ssd",
            ssp::ssd(&setup, &Sources::packaged()),
        ),
        ("model-exchange.ssd", ssp::ssd(&me, &Sources::packaged())),
        ("mass2.ssv", ssp::mass2_parameters(&setup)),
        ("nested.ssd", nested_ssd(&setup)),
        ("mapped.ssd", mapped),
        ("mass2-grams.ssv", ssv),
        ("mass2.ssm", ssm),
        (
            "feedthrough-mapped.ssd",
            feedthrough_ssd(
                r#"<ssc:IntegerMappingTransformation><ssc:MapEntry source="0" target="7"/></ssc:IntegerMappingTransformation>"#,
                r#"<ssc:LinearTransformation factor="2" offset="1"/>"#,
            ),
        ),
    ];
    let names: Vec<String> = (0..examples.len())
        .map(|i| format!("system-file-md-{i}.ssd"))
        .collect();
    files.extend(
        names
            .iter()
            .map(String::as_str)
            .zip(examples.iter().map(|e| e.to_string())),
    );
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    assert_valid_ssp(&files);
}

/// The mass FMU with its `position` declared through the type `Length` in `unit`, defined as
/// `base` (the attributes of its `BaseUnit`), as Dymola and OpenModelica declare units.
fn mass_with_length_unit(unit: &str, base: &str) -> Vec<u8> {
    let units = format!(
        "    <Unit name=\"{unit}\"><BaseUnit {base}/></Unit>\n  </UnitDefinitions>\n  \
         <TypeDefinitions><Float64Type name=\"Length\" unit=\"{unit}\"/></TypeDefinitions>"
    );
    common::fmu_with_model_description(
        "mass",
        &[
            ("  </UnitDefinitions>", &units),
            (
                r#"causality="output" variability="continuous" initial="calculated" unit="m"/>"#,
                r#"causality="output" variability="continuous" initial="calculated" declaredType="Length"/>"#,
            ),
        ],
    )
}

#[test]
fn units_declared_through_types_are_checked_on_connections() {
    let setup = Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let dir = tempfile::tempdir().unwrap();
    let (name, unit, base) = ("force", "kN", r#"kg="1" m="1" s="-2" factor="1000""#);
    let needle = "mass1.position is in kN but spring.x_a is in m, which are not the same \
                  quantity (kg.m.s-2 against m)";
    let fmu = mass_with_length_unit(unit, base);
    let ssd = ssp::ssd(&setup, &Sources::packaged());
    let package = package_with_mass1(dir.path(), name, &setup, &ssd, Some(&fmu));
    let (result, _) = run(&package, &[]);
    result.assert_fails_with(&format!(
        "{name}.ssp: SystemStructure.ssd, line 50, <ssd:Connection>"
    ));
    assert!(result.stderr.contains(needle), "{}", result.stderr);
    // The same unit under the same name through a declared type connects.
    let fmu = mass_with_length_unit("metre", r#"m="1""#);
    let ssd = ssp::ssd(&setup, &Sources::packaged());
    let package = package_with_mass1(dir.path(), "metre", &setup, &ssd, Some(&fmu));
    let (result, _) = run(&package, &[]);
    result.assert_success();
}

/// Writes `ssd` as the package `dir/name.ssp`, with mass1 from the FMU `typed` (a mass whose
/// position has another unit) when given.
fn package_with_mass1(
    dir: &Path,
    name: &str,
    setup: &Setup,
    ssd: &str,
    typed: Option<&[u8]>,
) -> PathBuf {
    let ssd = match typed {
        // mass1 is the first component taken from the mass FMU.
        Some(_) => edit(
            ssd,
            r#"source="resources/mass.fmu""#,
            r#"source="resources/typed.fmu""#,
        ),
        None => ssd.to_string(),
    };
    let typed = [("resources/typed.fmu", typed.unwrap_or_default())];
    ssp::write_package_with(dir, name, setup, &ssd, &typed)
}

/// The columns `names` of the CSV `text`, one vector per row.
fn columns(text: &str, names: &[&str]) -> Vec<Vec<f64>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let indices: Vec<usize> = names
        .iter()
        .map(|name| {
            header
                .iter()
                .position(|h| h.trim_matches('"') == *name)
                .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
        })
        .collect();
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            indices.iter().map(|&i| cells[i].parse().unwrap()).collect()
        })
        .collect()
}

/// A connection case: its name, the rest of its `<ssd:Connection>` element, whether mass1 is
/// the FMU whose position is typed in millimetres, and what spring.x_a receives for mass1's
/// position.
type Case = (&'static str, String, bool, fn(f64) -> f64);

#[test]
fn transformations_and_unit_conversions_map_the_values_connections_carry() {
    // Gauss-Seidel with mass1 first: the spring's x_a at each point is mass1's position there.
    let setup = Setup {
        stop: 0.01,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3)
    };
    let dir = tempfile::tempdir().unwrap();
    let outputs =
        "variables=\"mass1.position mass2.position mass1.velocity mass2.velocity spring.f_a\"";
    let x_a = r#"startConnector="position" endElement="spring" endConnector="x_a"/>"#;
    let transformed = |attributes: &str, factor: &str| {
        format!(
            r#"startConnector="position" endElement="spring" endConnector="x_a"{attributes}><ssc:LinearTransformation factor="{factor}" offset="0.5"/></ssd:Connection>"#
        )
    };
    // mass1's position in mm, as a type with its base unit declares it.
    let millimetres = mass_with_length_unit("mm", r#"m="1" factor="0.001""#);
    let cases: [Case; 3] = [
        ("linear", transformed("", "1000"), false, |x| {
            1000.0 * x + 0.5
        }),
        ("units", x_a.to_string(), true, |x| 0.001 * x),
        (
            "suppressed",
            transformed(r#" suppressUnitConversion="true""#, "0.002"),
            true,
            |x| 0.002 * x + 0.5,
        ),
    ];
    for (name, connection, typed, expected) in cases {
        let text = edit(&ssp::ssd(&setup, &Sources::packaged()), x_a, &connection);
        let text = edit(&text, outputs, "variables=\"mass1.position spring.x_a\"");
        let typed = typed.then_some(millimetres.as_slice());
        let package = package_with_mass1(dir.path(), name, &setup, &text, typed);
        let (result, output) = run(&package, &[]);
        result.assert_success();
        let rows = columns(
            &std::fs::read_to_string(output).unwrap(),
            &["mass1.position", "spring.x_a"],
        );
        assert_eq!(rows.len(), 11, "{name}");
        assert!(rows.iter().any(|row| row[0] != 0.0), "{name}: mass1 moves");
        for row in rows {
            assert_eq!(row[1], expected(row[0]), "{name}: {row:?}");
        }
    }
    // A transformation between different units: which applies first is not defined.
    let text = edit(
        &ssp::ssd(&setup, &Sources::packaged()),
        x_a,
        &transformed("", "1000"),
    );
    let package = package_with_mass1(dir.path(), "both", &setup, &text, Some(&millimetres));
    let (result, _) = run(&package, &[]);
    result.assert_fails_with("both.ssp: SystemStructure.ssd, line 50, <ssd:Connection>");
    assert!(
        result
            .stderr
            .contains("(converting them needs 0.001 * mass1.position)")
            && result.stderr.contains("suppressUnitConversion"),
        "{}",
        result.stderr
    );
}

/// A bare description of two Reference-FMU Feedthrough components, `a`'s integer and boolean
/// outputs feeding `b`'s inputs through the connections `integer` and `boolean`.
fn feedthrough_ssd(integer: &str, boolean: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" version="1.0" name="Mapped">
  <ssd:System name="Mapped">
    <ssd:Elements>
      <ssd:Component name="a" source="Feedthrough.fmu"/>
      <ssd:Component name="b" source="Feedthrough.fmu"/>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="Int32_output" endElement="b" endConnector="Int32_input">{integer}</ssd:Connection>
      <ssd:Connection startElement="a" startConnector="Boolean_output" endElement="b" endConnector="Boolean_input">{boolean}</ssd:Connection>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="tandem"><Experiment step="0.1"/></ssc:Annotation>
      <ssc:Annotation type="tandem"><Output variables="a.Int32_output b.Int32_output a.Boolean_output b.Boolean_output"/></ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0.0" stopTime="0.3"/>
</ssd:SystemStructureDescription>
"#
    )
}

#[test]
fn mapping_transformations_map_the_booleans_and_integers_connections_carry() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fmus/fmi3/Feedthrough.fmu"),
        dir.path().join("Feedthrough.fmu"),
    )
    .unwrap();
    let integer = r#"<ssc:IntegerMappingTransformation><ssc:MapEntry source="0" target="7"/><ssc:MapEntry source="1" target="0"/></ssc:IntegerMappingTransformation>"#;
    let boolean = r#"<ssc:BooleanMappingTransformation><ssc:MapEntry source="false" target="true"/></ssc:BooleanMappingTransformation>"#;
    let path = dir.path().join("mapped.ssd");
    std::fs::write(&path, feedthrough_ssd(integer, boolean)).unwrap();
    let (result, output) = run(&path, &[]);
    result.assert_success();
    let rows = columns(
        &std::fs::read_to_string(output).unwrap(),
        &[
            "a.Int32_output",
            "b.Int32_output",
            "a.Boolean_output",
            "b.Boolean_output",
        ],
    );
    assert_eq!(rows.len(), 4);
    for row in rows {
        // a holds its start values, 0 and false; b receives them mapped.
        assert_eq!(row, [0.0, 7.0, 0.0, 1.0]);
    }
    // A mapping of the other type is refused, naming the end that does not fit.
    std::fs::write(&path, feedthrough_ssd(boolean, "")).unwrap();
    let (result, _) = run(&path, &[]);
    result.assert_fails_with("mapped.ssd: line 10, <ssd:Connection>");
    assert!(
        result.stderr.contains(
            "the boolean mapping transformation applies to boolean variables, and \
             a.Int32_output is Int32"
        ),
        "{}",
        result.stderr
    );
}

/// OMSimulator's test systems write units their files never declare (`unit="[m]"` where the
/// file declares `m`); OMSimulator passes the values unconverted, and so does Tandem, with a
/// warning naming the file, the line and the declared units.
#[test]
fn a_unit_the_file_does_not_declare_passes_with_a_warning() {
    let setup = Setup {
        stop: 0.01,
        ..Setup::jacobi("zoh", 1e-3)
    };
    let dir = tempfile::tempdir().unwrap();
    let reference = ssp::write_package(
        dir.path(),
        "declared",
        &setup,
        &ssp::ssd(&setup, &Sources::packaged()),
    );
    let (result, declared) = run(&reference, &[]);
    result.assert_success();
    for (units, declares) in [
        ("", "which declares no units"),
        (
            "\n      <ssv:Units><ssc:Unit name=\"N/m\"/></ssv:Units>",
            "which declares N/m",
        ),
    ] {
        let text = edit(
            &ssp::ssd(&setup, &Sources::packaged()),
            "unit=\"N/m\"/></ssv:Parameter>\n      </ssv:Parameters>",
            &format!("unit=\"[N/m]\"/></ssv:Parameter>\n      </ssv:Parameters>{units}"),
        );
        let package = ssp::write_package(dir.path(), "undeclared", &setup, &text);
        let (result, output) = run(&package, &[]);
        result.assert_success();
        assert!(
            result.stderr.contains("warning: ")
                && result.stderr.contains("SystemStructure.ssd, line")
                && result.stderr.contains(&format!("the unit \"[N/m]\" is not declared in its file ({declares}); the value passes unconverted to k, which is in N/m")),
            "{}",
            result.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&output).unwrap(),
            std::fs::read_to_string(&declared).unwrap(),
            "the value passed as written"
        );
    }
}
