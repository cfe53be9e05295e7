//! The FMI 3.0 modelDescription.xml (`fmi3ModelDescription.xsd`).

use std::io;

use super::structure::{ModelStructure, Version};
use super::{
    bounds, describe, real, start, unknown, value_attributes, variable_attributes, Element, Schema,
    Xml,
};
use crate::capabilities as cap;
use crate::declaration::Declaration;
use crate::system::System;
use crate::token::instantiation_token;
use crate::variables::{ArrayVariable, ModelVariable, ValueReference, VarType, VariableTable};

/// The complete FMI 3.0 model description of `sys` for Model Exchange and Co-Simulation, whose
/// binary is `<model_identifier>.so/.dll/.dylib`.
pub fn fmi3<S: System>(sys: &S, model_identifier: &str) -> String {
    describe::<Fmi3, S>(sys, model_identifier)
}

/// The FMI 3.0 schema.
enum Fmi3 {}

impl Schema for Fmi3 {
    const FMI_VERSION: &'static str = "3.0";
    const STRUCTURE: Version = Version::Fmi3;

    fn reference(table: &VariableTable, vr: ValueReference) -> u32 {
        table.fmi3_reference(vr)
    }

    fn root(root: Element, decl: &Declaration) -> Element {
        root.attr("instantiationToken", instantiation_token(decl))
    }

    fn interfaces(w: &mut Xml, model_identifier: &str) -> io::Result<()> {
        interface(Element::new("ModelExchange"), model_identifier)
            .flag(
                "needsCompletedIntegratorStep",
                cap::NEEDS_COMPLETED_INTEGRATOR_STEP,
            )
            .empty(w)?;
        interface(Element::new("CoSimulation"), model_identifier)
            .flag(
                "canHandleVariableCommunicationStepSize",
                cap::VARIABLE_COMMUNICATION_STEP,
            )
            .attr(
                "maxOutputDerivativeOrder",
                cap::MAX_OUTPUT_DERIVATIVE_ORDER.to_string(),
            )
            .flag("hasEventMode", cap::CO_SIMULATION_EVENT_MODE)
            .empty(w)
    }

    /// One `<Float64>`, `<Int32>`, `<Boolean>` or `<String>` variable; a String's start value
    /// is a `<Start value>` child (FMI 3.0 section 2.4.7.5), not an attribute. An array is
    /// written at its first element, and its other elements are not declared.
    fn variable(
        w: &mut Xml,
        table: &VariableTable,
        v: &ModelVariable,
        reinit: bool,
    ) -> io::Result<()> {
        match table.array_of(v) {
            Some((array, 0)) => return array_variable(w, table, array),
            Some(_) => return Ok(()),
            None => {}
        }
        let name = match v.ty {
            VarType::Real => "Float64",
            VarType::Integer => "Int32",
            VarType::Boolean => "Boolean",
            VarType::String => {
                let element = variable_attributes(Element::new("String"), &v.var.name, v);
                return match start(v) {
                    Some(text) => element
                        .with_children(w, |w| Element::new("Start").attr("value", text).empty(w)),
                    None => element.empty(w),
                };
            }
        };
        let element = variable_attributes(Element::new(name), &v.var.name, v);
        value_attributes::<Self>(element, table, v, reinit).empty(w)
    }

    /// `<ModelStructure>` with its `<Output>`, `<ContinuousStateDerivative>`,
    /// `<InitialUnknown>` and `<EventIndicator>` lists, in the schema's order.
    fn model_structure(w: &mut Xml, table: &VariableTable, s: &ModelStructure) -> io::Result<()> {
        Element::new("ModelStructure").with_children(w, |w| {
            for (name, list) in [
                ("Output", &s.outputs),
                ("ContinuousStateDerivative", &s.derivatives),
                ("InitialUnknown", &s.initial_unknowns),
                ("EventIndicator", &s.event_indicators),
            ] {
                list.iter()
                    .try_for_each(|u| unknown::<Self>(w, table, name, "valueReference", u))?;
            }
            Ok(())
        })
    }
}

/// A `<Float64>` array (FMI 3.0 section 2.4.7.2): the array's name, the value reference and
/// attributes of its first element, which all elements share, the start values of all its
/// elements in row-major order, and one `<Dimension>` per entry of its shape.
fn array_variable(w: &mut Xml, table: &VariableTable, array: &ArrayVariable) -> io::Result<()> {
    let elements = table.elements(array);
    let first = &elements[0];
    let starts: Vec<String> = elements.iter().map(|e| real(e.var.start)).collect();
    let element = variable_attributes(Element::new("Float64"), &array.name, first);
    bounds(element, first)
        .attr("start", starts.join(" "))
        .with_children(w, |w| {
            array.shape.iter().try_for_each(|size| {
                Element::new("Dimension")
                    .attr("start", size.to_string())
                    .empty(w)
            })
        })
}

/// The attributes Model Exchange and Co-Simulation share.
fn interface(element: Element, model_identifier: &str) -> Element {
    element
        .attr("modelIdentifier", model_identifier)
        .flag("canGetAndSetFMUState", cap::FMU_STATE)
        .flag("canSerializeFMUState", cap::FMU_STATE)
        .flag(
            "providesDirectionalDerivatives",
            cap::DIRECTIONAL_DERIVATIVES,
        )
        .flag("providesAdjointDerivatives", cap::ADJOINT_DERIVATIVES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Declaration, Tunability, Var};
    use crate::ode::{Args, OdeModel};
    use crate::ode_system::OdeSystem;
    use crate::scalar::Scalar;

    /// `x' = -k x + u`, `y = 2 x`, one event indicator `x - 1`.
    #[derive(Default)]
    struct Decay;

    impl OdeModel for Decay {
        fn declaration(&self) -> Declaration {
            Declaration::new("decay", "exponential decay")
                .state(Var::new("x", 1.5).unit("m").nominal(2.0))
                .input(Var::new("u", 0.0).unit("m/s"))
                .parameter(Var::new("k", 2.0).unit("1/s"), Tunability::Tunable)
                .parameter(Var::new("x0", 1.0).unit("m"), Tunability::Fixed)
                .output(Var::new("y", 0.0).unit("m"))
                .event_indicators(1)
                .string_parameter("label", "a <b>", "a text setting")
                .string_output("status", "")
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            dx[0] = -a.p[0] * (a.x[0] - a.p[1]) + a.u[0];
        }
        fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
            y[0] = a.x[0] * T::cst(2.0);
        }
        fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
            z[0] = a.x[0] - T::cst(1.0);
        }
    }

    fn xml() -> String {
        fmi3(&OdeSystem::<Decay>::default(), "decay")
    }

    #[test]
    fn header_declares_both_interfaces_with_capabilities() {
        let xml = xml();
        assert!(xml.contains("<fmiModelDescription fmiVersion=\"3.0\" modelName=\"decay\""));
        assert!(xml.contains(&format!(
            "instantiationToken=\"{}\"",
            instantiation_token(&Decay.declaration())
        )));
        let flags = "canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\" \
                     providesDirectionalDerivatives=\"true\" providesAdjointDerivatives=\"true\"";
        assert!(xml.contains(&format!(
            "<ModelExchange modelIdentifier=\"decay\" {flags} needsCompletedIntegratorStep=\"false\"/>"
        )));
        assert!(xml.contains(&format!(
            "<CoSimulation modelIdentifier=\"decay\" {flags} canHandleVariableCommunicationStepSize=\"true\" \
             maxOutputDerivativeOrder=\"1\" hasEventMode=\"false\"/>"
        )));
    }

    #[test]
    fn variables_are_typed_elements_with_value_reference_derivatives() {
        let xml = xml();
        assert!(xml.contains(
            "<Float64 name=\"time\" valueReference=\"0\" description=\"simulation time\" \
             causality=\"independent\" variability=\"continuous\" unit=\"s\"/>"
        ));
        assert!(xml.contains(
            "<Float64 name=\"x\" valueReference=\"1\" causality=\"local\" variability=\"continuous\" \
             initial=\"exact\" unit=\"m\" nominal=\"2\" start=\"1.5\" reinit=\"true\"/>"
        ));
        assert!(xml.contains("initial=\"calculated\" unit=\"m/s\" derivative=\"1\"/>"));
        assert!(xml.contains(
            "<Float64 name=\"eventIndicator[1]\" valueReference=\"7\" description=\"event indicator: an event \
             occurs when it changes sign\" causality=\"local\" variability=\"continuous\" initial=\"calculated\"/>"
        ));
    }

    #[test]
    fn string_variables_carry_their_start_as_a_child_element() {
        let xml = xml();
        assert!(xml.contains(
            "<String name=\"label\" valueReference=\"8\" description=\"a text setting\" causality=\"parameter\" \
             variability=\"fixed\" initial=\"exact\">\n      <Start value=\"a &lt;b&gt;\"/>\n    </String>"
        ), "{xml}");
        assert!(xml.contains(
            "<String name=\"status\" valueReference=\"9\" causality=\"output\" variability=\"discrete\" \
             initial=\"calculated\"/>"
        ));
    }

    #[test]
    fn model_structure_lists_tunable_parameters_as_knowns() {
        let xml = xml();
        // Value references: 0 time, 1 x, 2 der(x), 3 u, 4 k (tunable), 5 x0 (fixed), 6 y, 7 z,
        // 8 label, 9 status (a String output: no dependency information).
        let structure = &xml[xml.find("<ModelStructure>").unwrap()..];
        assert_eq!(
            structure,
            "<ModelStructure>\n    <Output valueReference=\"6\" dependencies=\"1\"/>\n    \
             <Output valueReference=\"9\"/>\n    \
             <ContinuousStateDerivative valueReference=\"2\" dependencies=\"1 3 4\"/>\n    \
             <InitialUnknown valueReference=\"2\" dependencies=\"1 3 4 5\"/>\n    \
             <InitialUnknown valueReference=\"6\" dependencies=\"1\"/>\n    \
             <InitialUnknown valueReference=\"9\"/>\n    \
             <EventIndicator valueReference=\"7\" dependencies=\"1\"/>\n  </ModelStructure>\n\
             </fmiModelDescription>\n"
        );
    }

    /// `x' = A x + b`, `y = x1`: a 2x2 tunable array with a range and unit, and a fixed
    /// vector.
    #[derive(Default)]
    struct Linear;

    impl OdeModel for Linear {
        fn declaration(&self) -> Declaration {
            Declaration::new("linear", "")
                .state(Var::new("x1", 1.0))
                .state(Var::new("x2", 0.0))
                .parameter_array(
                    Var::new("A", 0.0)
                        .unit("1/s")
                        .range(-10.0, 10.0)
                        .description("system matrix"),
                    &[2, 2],
                    &[0.0, 1.0, -4.0, -0.4],
                    Tunability::Tunable,
                )
                .parameter_array(Var::new("b", 0.0), &[2], &[0.5, 2e-8], Tunability::Fixed)
                .output(Var::new("y", 0.0))
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            let (x, p) = (a.x, a.p);
            dx[0] = p[0] * x[0] + p[1] * x[1] + p[4];
            dx[1] = p[2] * x[0] + p[3] * x[1] + p[5];
        }
        fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
            y[0] = a.x[0];
        }
    }

    #[test]
    fn an_array_parameter_is_one_variable_with_its_dimensions_and_start_values() {
        let xml = fmi3(&OdeSystem::<Linear>::default(), "linear");
        // Entries: 0 time, 1 x1, 2 x2, 3 der(x1), 4 der(x2), 5..=8 A, 9 b[1], 10 b[2], 11 y.
        assert!(
            xml.contains(
                "<Float64 name=\"A\" valueReference=\"5\" description=\"system matrix\" causality=\"parameter\" \
                 variability=\"tunable\" initial=\"exact\" unit=\"1/s\" min=\"-10\" max=\"10\" start=\"0 1 -4 -0.4\">\n      \
                 <Dimension start=\"2\"/>\n      <Dimension start=\"2\"/>\n    </Float64>\n    \
                 <Float64 name=\"b\" valueReference=\"9\" causality=\"parameter\" variability=\"fixed\" \
                 initial=\"exact\" start=\"0.5 2e-8\">\n      <Dimension start=\"2\"/>\n    </Float64>\n    \
                 <Float64 name=\"y\" valueReference=\"11\""
            ),
            "{xml}"
        );
        for element in ["A[", "b[", "valueReference=\"6\"", "valueReference=\"10\""] {
            assert!(!xml.contains(element), "{element} in {xml}");
        }
    }

    #[test]
    fn dependencies_on_elements_are_dependencies_on_their_array() {
        let xml = fmi3(&OdeSystem::<Linear>::default(), "linear");
        let structure = &xml[xml.find("<ModelStructure>").unwrap()..];
        // Run time: the tunable A; initialization: A and the fixed b.
        assert!(structure
            .contains("<ContinuousStateDerivative valueReference=\"3\" dependencies=\"1 2 5\"/>"));
        assert!(
            structure.contains("<InitialUnknown valueReference=\"4\" dependencies=\"1 2 5 9\"/>"),
            "{structure}"
        );
    }
}
