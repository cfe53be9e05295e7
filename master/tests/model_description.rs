//! Parsing of hand-written FMI 2.0 and FMI 3.0 model descriptions, defaults of the standard,
//! and the validator's findings on broken variants.

use tandem::model_description::validate::{validate, Severity};
use tandem::model_description::{
    Causality, DependencyKind, Dimension, FmiVersion, Initial, InterfaceType, ModelDescription,
    Unknown, Values, Variability, VariableType,
};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .expect("fixture exists")
}

/// The FMI 2.0 fixture.
const BALL: &str = "fmi2_bouncing_ball.xml";
/// The FMI 3.0 fixture.
const TOUR: &str = "fmi3_feature_tour.xml";

fn fmi2() -> ModelDescription {
    ModelDescription::parse(&fixture(BALL)).expect("the FMI 2.0 fixture parses")
}

fn fmi3() -> ModelDescription {
    ModelDescription::parse(&fixture(TOUR)).expect("the FMI 3.0 fixture parses")
}

/// The value references (FMI 3.0) or indices (FMI 2.0) of ModelStructure entries.
fn references(unknowns: &[Unknown]) -> Vec<u32> {
    unknowns.iter().map(|u| u.reference).collect()
}

#[test]
fn fmi2_header_interfaces_and_experiment() {
    let md = fmi2();
    assert_eq!(md.fmi_version, FmiVersion::V2);
    assert_eq!(md.model_name, "BouncingBall");
    assert_eq!(
        md.instantiation_token,
        "{1AE5E10D-9521-4DE3-80B9-D0EAAA7D5AF1}"
    );
    assert_eq!(md.author.as_deref(), Some("Tandem tests"));
    assert_eq!(md.number_of_event_indicators(), 1);
    let me = md.model_exchange.as_ref().unwrap();
    assert_eq!(me.model_identifier, "BouncingBall");
    assert!(me.capabilities.can_get_and_set_fmu_state && me.capabilities.can_serialize_fmu_state);
    assert!(me.capabilities.provides_directional_derivatives);
    assert!(!me.needs_completed_integrator_step);
    let cs = md.co_simulation.as_ref().unwrap();
    assert_eq!(cs.model_identifier, "BouncingBallCS");
    assert!(cs.can_handle_variable_communication_step_size);
    assert_eq!(cs.max_output_derivative_order, 1);
    assert_eq!(
        md.interfaces(),
        vec![InterfaceType::ModelExchange, InterfaceType::CoSimulation]
    );
    let experiment = md.default_experiment.as_ref().unwrap();
    assert_eq!(
        (
            experiment.start_time,
            experiment.stop_time,
            experiment.tolerance,
            experiment.step_size
        ),
        (Some(0.0), Some(3.0), Some(1e-6), Some(0.01))
    );
    assert_eq!(
        md.log_categories
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["logEvents", "logStatusError"]
    );
}

#[test]
fn fmi2_variables_with_defaults_units_and_types() {
    let md = fmi2();
    assert_eq!(md.variables.len(), 11);
    let h = md.variable("h").unwrap();
    assert_eq!(
        (h.ty, h.causality, h.variability, h.initial()),
        (
            VariableType::Float64,
            Causality::Output,
            Variability::Continuous,
            Some(Initial::Exact)
        )
    );
    assert_eq!(h.start, Some(Values::Float(vec![1.0])));
    assert_eq!(h.min, Some(0.0));
    assert_eq!(
        md.unit_of(h),
        Some("m"),
        "the unit comes from the declared type"
    );
    let der_h = md.variable("der(h)").unwrap();
    assert_eq!(der_h.causality, Causality::Local);
    assert_eq!(
        der_h.initial(),
        Some(Initial::Calculated),
        "local continuous defaults to calculated"
    );
    assert_eq!(der_h.derivative, Some(2));
    assert_eq!(
        md.resolve(der_h.derivative.unwrap())
            .map(|i| md.variables[i].name.as_str()),
        Some("h")
    );
    let v = md.variable("v").unwrap();
    assert!(v.reinit);
    assert_eq!(v.display_unit.as_deref(), Some("km/h"));
    let e = md.variable("e").unwrap();
    assert_eq!(
        (e.variability, e.initial(), e.max),
        (Variability::Tunable, Some(Initial::Exact), Some(1.0))
    );
    let bounces = md.variable("bounces").unwrap();
    assert_eq!(
        (bounces.ty, bounces.variability, bounces.value_reference),
        (VariableType::Int32, Variability::Discrete, 0)
    );
    assert_eq!(
        md.variable("resting").unwrap().start,
        Some(Values::Bool(vec![false]))
    );
    assert_eq!(
        md.variable("label").unwrap().start,
        Some(Values::String(vec!["ball & ground".into()]))
    );
    let mode = md.variable("mode").unwrap();
    assert_eq!(
        (mode.ty, mode.start.clone()),
        (VariableType::Enumeration, Some(Values::Int(vec![1])))
    );
    let gear = md.type_definition("Mode").unwrap();
    assert_eq!(
        gear.items
            .iter()
            .map(|i| (i.name.as_str(), i.value))
            .collect::<Vec<_>>(),
        [("flying", 1), ("resting", 2)]
    );
    let speed = md.units.iter().find(|u| u.name == "m/s").unwrap();
    assert_eq!(
        speed.base_unit.as_ref().unwrap().exponents,
        [0, 1, -1, 0, 0, 0, 0, 0]
    );
    assert_eq!(speed.display_units[0].factor, 3.6);
}

#[test]
fn fmi2_model_structure_with_dependencies() {
    let md = fmi2();
    let structure = &md.model_structure;
    assert_eq!(references(&structure.outputs), [2, 4, 8]);
    assert_eq!(structure.outputs[0].dependencies, Some(vec![]));
    assert_eq!(
        structure.outputs[1].dependencies, None,
        "absent dependencies mean: depends on all knowns"
    );
    assert_eq!(structure.derivatives[0].dependencies, Some(vec![4]));
    assert_eq!(
        structure.derivatives[0].dependencies_kind,
        Some(vec![DependencyKind::Constant])
    );
    assert_eq!(structure.initial_unknowns.len(), 3);
    let states: Vec<&str> = md
        .states()
        .into_iter()
        .map(|s| md.variables[s.unwrap()].name.as_str())
        .collect();
    assert_eq!(states, ["h", "v"]);
}

#[test]
fn fmi3_every_variable_type() {
    let md = fmi3();
    assert_eq!(md.fmi_version, FmiVersion::V3);
    assert_eq!(
        md.instantiation_token,
        "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
    );
    let types: Vec<VariableType> = md.variables.iter().map(|v| v.ty).collect();
    use VariableType::*;
    for ty in [
        Float32,
        Float64,
        Int8,
        UInt8,
        Int16,
        UInt16,
        Int32,
        UInt32,
        Int64,
        UInt64,
        Boolean,
        String,
        Binary,
        Enumeration,
        Clock,
    ] {
        assert!(types.contains(&ty), "{ty} is recognised");
    }
    assert_eq!(
        md.variable("i8").unwrap().start,
        Some(Values::Int(vec![-128]))
    );
    assert_eq!(
        md.variable("u64").unwrap().start,
        Some(Values::UInt(vec![u64::MAX]))
    );
    assert_eq!(
        md.variable("i64").unwrap().start,
        Some(Values::Int(vec![i64::MIN]))
    );
    assert_eq!(
        md.variable("f32").unwrap().start,
        Some(Values::Float(vec![1.5]))
    );
    assert_eq!(
        md.variable("tag").unwrap().start,
        Some(Values::String(vec!["first".into()]))
    );
    assert_eq!(
        md.variable("blob").unwrap().start,
        Some(Values::Binary(vec![vec![0x0a, 0xff, 0x10]]))
    );
    assert_eq!(
        md.variable("on").unwrap().start,
        Some(Values::Bool(vec![true]))
    );
    let i32_input = md.variable("i32").unwrap();
    assert_eq!(
        (i32_input.causality, i32_input.variability),
        (Causality::Input, Variability::Discrete),
        "non-float variables default to discrete"
    );
    let matrix = md.variable("matrix").unwrap();
    assert_eq!(
        matrix.dimensions,
        vec![Dimension::Fixed(2), Dimension::Parameter(18)]
    );
    assert_eq!(
        matrix.start,
        Some(Values::Float(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    );
    assert_eq!(
        md.variable("columns").unwrap().causality,
        Causality::StructuralParameter
    );
    assert_eq!(md.variable("sampled").unwrap().clocks, vec![16]);
    assert_eq!(
        md.variable("omega").unwrap().name,
        "w",
        "aliases resolve to their variable"
    );
    assert_eq!(md.unit_of(md.variable("w").unwrap()), Some("rad/s"));
    assert_eq!(md.type_definition("Tick").unwrap().ty, VariableType::Clock);
}

#[test]
fn fmi3_interfaces_and_structure() {
    let md = fmi3();
    let me = md.model_exchange.as_ref().unwrap();
    assert!(me.needs_completed_integrator_step);
    assert!(
        me.capabilities.provides_adjoint_derivatives
            && me.capabilities.provides_directional_derivatives
    );
    assert!(me.capabilities.provides_evaluate_discrete_states);
    let cs = md.co_simulation.as_ref().unwrap();
    assert!(cs.has_event_mode && cs.might_return_early_from_do_step);
    assert_eq!(cs.fixed_internal_step_size, Some(0.001));
    assert_eq!(cs.max_output_derivative_order, 2);
    let structure = &md.model_structure;
    assert_eq!(references(&structure.outputs), [1, 19]);
    assert_eq!(structure.derivatives[0].dependencies, Some(vec![1, 12]));
    assert_eq!(
        structure.derivatives[0].dependencies_kind,
        Some(vec![DependencyKind::Dependent, DependencyKind::Fixed])
    );
    assert_eq!(structure.clocked_states.len(), 1);
    assert_eq!(md.number_of_event_indicators(), 1);
    assert_eq!(md.number_of_continuous_states(), 1);
    assert_eq!(md.states(), vec![Some(1)]);
}

#[test]
fn valid_fixtures_have_no_problems() {
    assert_eq!(validate(&fmi2()), vec![]);
    assert_eq!(validate(&fmi3()), vec![]);
}

#[test]
fn derivative_attributes_beside_the_chosen_states_are_a_note_not_an_error() {
    let md = ModelDescription::parse(&fixture("fmi2_state_selection.xml"))
        .expect("the state-selection fixture parses");
    let problems = validate(&md);
    let errors: Vec<String> = problems
        .iter()
        .filter(|p| p.is_error())
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let notes: Vec<&str> = problems
        .iter()
        .filter(|p| p.severity == Severity::Note)
        .map(|p| p.message.as_str())
        .collect();
    assert_eq!(notes.len(), 2, "{notes:#?}");
    assert!(
        notes[0].contains("der(mass.s)") && notes[0].contains("mass.s is not a continuous state"),
        "{notes:#?}"
    );
    // A listed derivative without the attribute stays an error.
    let broken =
        fixture("fmi2_state_selection.xml").replacen(r#"<Real derivative="1"/>"#, "<Real/>", 1);
    let problems = validate(&ModelDescription::parse(&broken).unwrap());
    assert!(
        problems.iter().any(|p| p.is_error()
            && p.message.contains("ModelStructure lists der(spring.s_rel) as a derivative, but it has no derivative attribute")),
        "{problems:#?}"
    );
}

/// Validates a fixture after a textual edit and returns the problem messages.
fn problems_after(fixture_name: &str, from: &str, to: &str) -> Vec<String> {
    let text = fixture(fixture_name);
    assert!(text.contains(from), "the edit applies: {from}");
    let md = ModelDescription::parse(&text.replacen(from, to, 1))
        .expect("the edited fixture still parses");
    validate(&md).into_iter().map(|p| p.to_string()).collect()
}

fn assert_reports(problems: &[String], needle: &str) {
    assert!(
        problems.iter().any(|p| p.contains(needle)),
        "expected a problem containing {needle:?}, got {problems:#?}"
    );
}

/// Asserts for each edit `(fixture, from, to, needle)` that the validator reports a problem
/// containing `needle` on the edited fixture.
fn assert_edits_report(edits: &[(&str, &str, &str, &str)]) {
    for &(fixture_name, from, to, needle) in edits {
        assert_reports(&problems_after(fixture_name, from, to), needle);
    }
}

#[test]
fn validator_finds_duplicate_names_and_value_references() {
    assert_edits_report(&[
        (
            BALL,
            r#"name="e""#,
            r#"name="g""#,
            "variable name \"g\" is used more than once",
        ),
        (
            TOUR,
            r#"name="i8" valueReference="4""#,
            r#"name="i8" valueReference="3""#,
            "valueReference 3 is already used by f32",
        ),
    ]);
}

#[test]
fn validator_checks_start_values_against_causality_variability_initial() {
    assert_edits_report(&[
        (
            BALL,
            r#"<Real unit="m/s2" start="-9.81"/>"#,
            r#"<Real unit="m/s2"/>"#,
            "variable g: a start value is required because initial is exact",
        ),
        (
            BALL,
            r#"<Real unit="m/s" derivative="2"/>"#,
            r#"<Real unit="m/s" derivative="2" start="3"/>"#,
            "variable der(h): must not have a start value because initial is calculated",
        ),
        (
            TOUR,
            r#"causality="input" start="7""#,
            r#"causality="input""#,
            "variable i32: a start value is required because causality is input",
        ),
        (
            BALL,
            r#"causality="parameter" variability="fixed"><Real"#,
            r#"causality="parameter" variability="continuous"><Real"#,
            "variable g: causality parameter cannot have variability continuous",
        ),
        (
            BALL,
            r#"causality="parameter" variability="tunable""#,
            r#"causality="parameter" variability="tunable" initial="calculated""#,
            "variable e: initial=\"calculated\" is not allowed",
        ),
        (
            BALL,
            r#"start="0.7" min="0" max="1""#,
            r#"start="1.7" min="0" max="1""#,
            "variable e: start 1.7 is outside [0, 1]",
        ),
    ]);
}

#[test]
fn validator_checks_derivatives_and_model_structure() {
    assert_edits_report(&[
        (
            BALL,
            r#"derivative="4""#,
            r#"derivative="40""#,
            "variable der(v): derivative refers to index 40, which is no variable",
        ),
        (
            BALL,
            r#"<Unknown index="8" dependencies=""/>"#,
            "",
            "output bounces is not listed among the ModelStructure outputs",
        ),
        (
            BALL,
            r#"<Unknown index="5" dependencies="6" dependenciesKind="dependent"/>"#,
            r#"<Unknown index="5" dependencies="60" dependenciesKind="dependent"/>"#,
            "ModelStructure derivative depends on index 60, which is no variable",
        ),
        (
            TOUR,
            r#"<EventIndicator valueReference="1"/>"#,
            r#"<EventIndicator valueReference="99"/>"#,
            "ModelStructure event indicator refers to valueReference 99, which is no variable",
        ),
        (
            TOUR,
            r#"dependenciesKind="dependent fixed""#,
            r#"dependenciesKind="dependent""#,
            "2 dependencies but 1 dependenciesKind entries",
        ),
        (
            TOUR,
            r#"<Output valueReference="19"/>"#,
            r#"<Output valueReference="19"/><Output valueReference="3"/>"#,
            "ModelStructure lists f32 as an output, but its causality is parameter",
        ),
    ]);
}

#[test]
fn validator_checks_units_and_declared_types() {
    assert_edits_report(&[
        (
            BALL,
            r#"<Real unit="m/s2" derivative="4"/>"#,
            r#"<Real unit="furlong" derivative="4"/>"#,
            "variable der(v): unit \"furlong\" is not defined in UnitDefinitions",
        ),
        (
            BALL,
            r#"displayUnit="km/h""#,
            r#"displayUnit="mph""#,
            "variable v: displayUnit \"mph\" is not a display unit of \"m/s\"",
        ),
        (
            TOUR,
            r#"declaredType="Gear""#,
            r#"declaredType="Gearbox""#,
            "variable gear: declaredType \"Gearbox\" is not defined",
        ),
        (
            TOUR,
            r#"declaredType="Tick""#,
            r#"declaredType="Gear""#,
            "variable tick: is Clock but its declaredType \"Gear\" is Enumeration",
        ),
    ]);
}

#[test]
fn malformed_xml_reports_line_and_column() {
    let text = fixture(BALL).replace(
        "<Real unit=\"m/s2\" start=\"-9.81\"/>",
        "<Real unit=\"m/s2\" start=\"-9.81\">",
    );
    let error = ModelDescription::parse(&text).unwrap_err();
    assert!(error.message.contains("malformed XML"), "{error}");
    assert!(
        error.line > 30,
        "points at the broken element, not the top: {error}"
    );
}

#[test]
fn missing_attributes_and_bad_numbers_are_located() {
    let text = fixture(TOUR);
    let error =
        ModelDescription::parse(&text.replace(r#"name="u8" valueReference="5""#, r#"name="u8""#))
            .unwrap_err();
    assert!(
        error
            .message
            .contains("<UInt8> lacks the required attribute valueReference"),
        "{error}"
    );
    let line = text
        .lines()
        .position(|l| l.contains(r#"name="u8""#))
        .unwrap()
        + 1;
    assert_eq!(error.line, line);
    let error =
        ModelDescription::parse(&text.replace(r#"start="255""#, r#"start="many""#)).unwrap_err();
    assert!(
        error
            .message
            .contains("variable u8: start value \"many\" is not a valid UInt8"),
        "{error}"
    );
}

#[test]
fn unsupported_version_is_recognised() {
    let text = fixture(BALL).replace(r#"fmiVersion="2.0""#, r#"fmiVersion="1.0""#);
    let error = ModelDescription::parse(&text).unwrap_err();
    assert_eq!(error.unsupported_version.as_deref(), Some("1.0"));
}
