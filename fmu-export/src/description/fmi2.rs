//! The FMI 2.0 modelDescription.xml (`fmi2ModelDescription.xsd`).

use std::io;

use super::structure::{ModelStructure, Version};
use super::{describe, unknown, value_attributes, variable_attributes, Element, Schema, Xml};
use crate::capabilities as cap;
use crate::declaration::Declaration;
use crate::system::System;
use crate::token::instantiation_token;
use crate::variables::{ModelVariable, ValueReference, VarType, VariableTable};

/// The complete FMI 2.0 model description of `sys` for Model Exchange and Co-Simulation, whose
/// binary is `<model_identifier>.so/.dll/.dylib`.
pub fn fmi2<S: System>(sys: &S, model_identifier: &str) -> String {
    describe::<Fmi2, S>(sys, model_identifier)
}

/// The FMI 2.0 schema.
enum Fmi2 {}

impl Schema for Fmi2 {
    const FMI_VERSION: &'static str = "2.0";
    const STRUCTURE: Version = Version::Fmi2;

    /// FMI 2.0 refers to variables by their 1-based position in `<ModelVariables>`; the table
    /// lists variables in value-reference order starting at 0.
    fn reference(_: &VariableTable, vr: ValueReference) -> u32 {
        vr + 1
    }

    fn root(root: Element, decl: &Declaration) -> Element {
        root.attr("guid", instantiation_token(decl))
            .attr("numberOfEventIndicators", decl.event_indicators.to_string())
    }

    fn interfaces(w: &mut Xml, model_identifier: &str) -> io::Result<()> {
        let model_exchange = Element::new("ModelExchange")
            .attr("modelIdentifier", model_identifier)
            .flag(
                "completedIntegratorStepNotNeeded",
                !cap::NEEDS_COMPLETED_INTEGRATOR_STEP,
            );
        shared_capabilities(model_exchange).empty(w)?;
        let co_simulation = Element::new("CoSimulation")
            .attr("modelIdentifier", model_identifier)
            .flag(
                "canHandleVariableCommunicationStepSize",
                cap::VARIABLE_COMMUNICATION_STEP,
            )
            .flag("canInterpolateInputs", cap::INTERPOLATE_INPUTS)
            .attr(
                "maxOutputDerivativeOrder",
                cap::MAX_OUTPUT_DERIVATIVE_ORDER.to_string(),
            );
        shared_capabilities(co_simulation).empty(w)
    }

    /// One `<ScalarVariable>` with its type element (an element of an array too: FMI 2.0 has
    /// scalars only, named `A[i,j]`).
    fn variable(
        w: &mut Xml,
        table: &VariableTable,
        v: &ModelVariable,
        reinit: bool,
    ) -> io::Result<()> {
        let type_name = match v.ty {
            VarType::Real => "Real",
            VarType::Integer => "Integer",
            VarType::Boolean => "Boolean",
            VarType::String => "String",
        };
        let value = value_attributes::<Self>(Element::new(type_name), table, v, reinit);
        variable_attributes(Element::new("ScalarVariable"), &v.var.name, v)
            .with_children(w, |w| value.empty(w))
    }

    /// `<ModelStructure>` with `<Outputs>`, `<Derivatives>` and `<InitialUnknowns>` (each only
    /// if non-empty, as the schema requires).
    fn model_structure(w: &mut Xml, table: &VariableTable, s: &ModelStructure) -> io::Result<()> {
        Element::new("ModelStructure").with_children(w, |w| {
            for (name, list) in [
                ("Outputs", &s.outputs),
                ("Derivatives", &s.derivatives),
                ("InitialUnknowns", &s.initial_unknowns),
            ] {
                if !list.is_empty() {
                    Element::new(name).with_children(w, |w| {
                        list.iter()
                            .try_for_each(|u| unknown::<Self>(w, table, "Unknown", "index", u))
                    })?;
                }
            }
            Ok(())
        })
    }
}

/// The attributes, after the interface-specific ones, that Model Exchange and Co-Simulation
/// share.
fn shared_capabilities(element: Element) -> Element {
    element
        .flag(
            "canNotUseMemoryManagementFunctions",
            cap::OWN_MEMORY_MANAGEMENT,
        )
        .flag("canGetAndSetFMUstate", cap::FMU_STATE)
        .flag("canSerializeFMUstate", cap::FMU_STATE)
        .flag(
            "providesDirectionalDerivative",
            cap::DIRECTIONAL_DERIVATIVES,
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Declaration, DiscreteRole, DiscreteType, Tunability, Var};
    use crate::ode::{Args, OdeModel};
    use crate::ode_system::OdeSystem;
    use crate::scalar::Scalar;

    /// `x' = -k x + u`, `y = 2 x`, with a counter and awkward text in names and descriptions.
    #[derive(Default)]
    struct Decay;

    impl OdeModel for Decay {
        fn declaration(&self) -> Declaration {
            Declaration::new("decay <&> \"quoted\"", "line one\nline two & more")
                .state(Var::new("x", 1.5).unit("m").description("a <state>"))
                .input(Var::new("u", 0.0).unit("m/s"))
                .parameter(
                    Var::new("k", 2.0).unit("1/s").range(0.0, 10.0),
                    Tunability::Tunable,
                )
                .output(Var::new("y", 0.0).unit("m"))
                .discrete(
                    Var::new("n", 3.0).range(0.0, 100.0),
                    DiscreteType::Integer,
                    DiscreteRole::Output,
                )
                .discrete(
                    Var::new("on", 1.0),
                    DiscreteType::Boolean,
                    DiscreteRole::Local,
                )
                .event_indicators(1)
                .string_parameter("label", "a <b>", "a text setting")
                .string_output("status", "")
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            dx[0] = -a.p[0] * a.x[0] + a.u[0];
        }
        fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
            y[0] = a.x[0] * T::cst(2.0);
        }
        fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
            z[0] = a.x[0] - T::cst(1.0);
        }
    }

    fn xml() -> String {
        fmi2(&OdeSystem::<Decay>::default(), "decay")
    }

    #[test]
    fn header_declares_both_interfaces_with_capabilities() {
        let xml = xml();
        assert!(xml.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"2.0\""
        ));
        assert!(xml.contains("numberOfEventIndicators=\"1\""));
        assert!(xml.contains(&format!(
            "guid=\"{}\"",
            instantiation_token(&Decay.declaration())
        )));
        assert!(xml.contains(
            "<ModelExchange modelIdentifier=\"decay\" completedIntegratorStepNotNeeded=\"true\" \
             canNotUseMemoryManagementFunctions=\"true\" canGetAndSetFMUstate=\"true\" \
             canSerializeFMUstate=\"true\" providesDirectionalDerivative=\"true\"/>"
        ));
        assert!(xml.contains(
            "<CoSimulation modelIdentifier=\"decay\" canHandleVariableCommunicationStepSize=\"true\" \
             canInterpolateInputs=\"true\" maxOutputDerivativeOrder=\"1\""
        ));
        assert!(xml.contains("<DefaultExperiment startTime=\"0\" stopTime=\"10\" tolerance=\"1e-6\" stepSize=\"0.01\"/>"));
        assert!(xml.contains("<Category name=\"logEvents\""));
    }

    #[test]
    fn text_is_escaped() {
        let xml = xml();
        assert!(xml.contains("modelName=\"decay &lt;&amp;&gt; &quot;quoted&quot;\""));
        assert!(xml.contains("description=\"line one&#10;line two &amp; more\""));
        assert!(xml.contains("description=\"a &lt;state&gt;\""));
    }

    #[test]
    fn variables_carry_types_starts_and_derivative_indices() {
        let xml = xml();
        assert!(xml.contains(
            "<ScalarVariable name=\"time\" valueReference=\"0\" description=\"simulation time\" \
             causality=\"independent\" variability=\"continuous\">\n      <Real unit=\"s\"/>"
        ));
        assert!(xml.contains("<Real unit=\"m\" start=\"1.5\" reinit=\"true\"/>"));
        assert!(xml.contains("name=\"der(x)\" valueReference=\"2\""));
        assert!(xml.contains("<Real unit=\"m/s\" derivative=\"2\"/>"));
        assert!(xml.contains("<Real unit=\"1/s\" min=\"0\" max=\"10\" start=\"2\"/>"));
        assert!(xml.contains(
            "causality=\"output\" variability=\"discrete\" initial=\"calculated\">\n      \
             <Integer min=\"0\" max=\"100\"/>"
        ));
        assert!(xml.contains("<Boolean start=\"true\"/>"));
        assert!(xml.contains(
            "<ScalarVariable name=\"label\" valueReference=\"9\" description=\"a text setting\" \
             causality=\"parameter\" variability=\"fixed\" initial=\"exact\">\n      <String start=\"a &lt;b&gt;\"/>"
        ));
        assert!(xml.contains(
            "<ScalarVariable name=\"status\" valueReference=\"10\" causality=\"output\" \
             variability=\"discrete\" initial=\"calculated\">\n      <String/>"
        ));
        assert!(xml.contains("<Unit name=\"1/s\">\n      <BaseUnit s=\"-1\"/>"));
    }

    #[test]
    fn model_structure_uses_one_based_indices() {
        let xml = xml();
        // Variables: 1 time, 2 x, 3 der(x), 4 u, 5 k, 6 y, 7 n, 8 on, 9 eventIndicator[1],
        // 10 label, 11 status (a String output: no dependency information).
        let structure = &xml[xml.find("<ModelStructure>").unwrap()..];
        assert_eq!(
            structure,
            "<ModelStructure>\n    <Outputs>\n      <Unknown index=\"6\" dependencies=\"2\"/>\n      \
             <Unknown index=\"7\"/>\n      <Unknown index=\"11\"/>\n    </Outputs>\n    <Derivatives>\n      \
             <Unknown index=\"3\" dependencies=\"2 4\"/>\n    </Derivatives>\n    <InitialUnknowns>\n      \
             <Unknown index=\"3\"/>\n      <Unknown index=\"6\"/>\n      <Unknown index=\"7\"/>\n      <Unknown index=\"11\"/>\n    \
             </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n"
        );
    }

    /// `x' = -k1 x + k2`: a fixed vector parameter.
    #[derive(Default)]
    struct Vector;

    impl OdeModel for Vector {
        fn declaration(&self) -> Declaration {
            Declaration::new("vector", "")
                .state(Var::new("x", 1.0))
                .parameter_array(
                    Var::new("k", 0.0).unit("1/s").description("rates"),
                    &[2],
                    &[3.0, 0.5],
                    Tunability::Fixed,
                )
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            dx[0] = -a.p[0] * a.x[0] + a.p[1];
        }
        fn outputs<T: Scalar>(&self, _: &Args<T>, _: &mut [T]) {}
    }

    #[test]
    fn an_array_parameter_is_a_scalar_variable_per_element() {
        let xml = fmi2(&OdeSystem::<Vector>::default(), "vector");
        for (index, vr, start) in [(1, 3, "3"), (2, 4, "0.5")] {
            let element = format!(
                "<ScalarVariable name=\"k[{index}]\" valueReference=\"{vr}\" description=\"rates\" \
                 causality=\"parameter\" variability=\"fixed\" initial=\"exact\">\n      \
                 <Real unit=\"1/s\" start=\"{start}\"/>"
            );
            assert!(xml.contains(&element), "{element} not in {xml}");
        }
        assert!(!xml.contains("name=\"k\""));
        assert!(!xml.contains("Dimension"));
    }
}
