//! The manifest of the adjoint extension (`extra/org.tandem.adjoint/manifest.xml`, see
//! docs/adjoint-extension.md), generated from the same declaration and variable table as the
//! FMI 3.0 model description, so its value references are the description's.

use std::io;

use super::{document, Element, Xml};
use crate::system::{Integrator, StepInputs, System};
use crate::variables::{Role, VariableTable};

use fmi_abi::adjoint::{JACOBIAN_ADJOINT_DERIVATIVE, KEEP_STEP_LINEARIZATIONS, VERSION};

/// The adjoint-extension manifest of `sys`: the discrete state's length, taken from a fresh
/// integrator initialized at the start values, and the inputs, real parameters and continuous
/// outputs in the order of the seed arrays (declaration order, which is `Role` index order).
///
/// Fails, with the reason, when the integrator cannot start at the start values or has no
/// discrete adjoint.
pub fn adjoint_manifest<S: System>(sys: &S) -> Result<String, String> {
    let decl = sys.declaration();
    let start = decl.experiment.start;
    let mut integrator = sys.integrator();
    integrator
        .initialize(
            sys,
            start,
            &decl.state_starts(),
            &StepInputs::held(start, &decl.input_starts()),
            &decl.parameter_starts(),
            &decl.discrete_starts(),
        )
        .map_err(|e| {
            format!("the co-simulation integrator cannot start at the start values: {e}")
        })?;
    let n_state = integrator
        .discrete_adjoint()
        .ok_or("the model's co-simulation integrator has no discrete adjoint")?
        .adjoint_state()
        .len();
    let table = VariableTable::new(decl);
    let root = Element::new("TandemAdjoint")
        .attr("version", VERSION.to_string())
        .attr("nState", n_state.to_string())
        .attr(
            "capabilities",
            // Every optional function of the extension: hosts that do not know the
            // attribute ignore it.
            format!("{KEEP_STEP_LINEARIZATIONS} {JACOBIAN_ADJOINT_DERIVATIVE}"),
        );
    Ok(document(root, |w| {
        variables(w, "Inputs", &table, decl.inputs.len(), Role::Input)?;
        variables(
            w,
            "Parameters",
            &table,
            decl.parameters.len(),
            Role::Parameter,
        )?;
        variables(w, "Outputs", &table, decl.outputs.len(), Role::Output)
    }))
}

/// `<list>` with one `<Variable>` per role `role(0..count)`, in that order. An element of an
/// array is listed by the array's FMI 3.0 value reference and name, with its row-major
/// position in the array as `element` (docs/adjoint-extension.md), so that the seed arrays keep
/// one entry per scalar.
fn variables(
    w: &mut Xml,
    list: &'static str,
    table: &VariableTable,
    count: usize,
    role: fn(usize) -> Role,
) -> io::Result<()> {
    Element::new(list).with_children(w, |w| {
        (0..count).try_for_each(|i| {
            let vr = table
                .vr_of(role(i))
                .expect("every declared variable has a value reference");
            let variable = table.get(vr).expect("value references index the table");
            let listed = Element::new("Variable");
            match table.array_of(variable) {
                Some((array, element)) => listed
                    .attr("valueReference", array.first.to_string())
                    .attr("name", array.name.as_str())
                    .attr("element", element.to_string()),
                None => listed
                    .attr("valueReference", vr.to_string())
                    .attr("name", variable.var.name.as_str()),
            }
            .empty(w)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::test_model::Ball;
    use crate::{Declaration, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar};
    use crate::{Tunability, Var};

    /// A mass on a spring with two inputs, two parameters and two outputs.
    #[derive(Default)]
    struct Spring;

    impl MechanicalModel for Spring {
        fn declaration(&self) -> Declaration {
            Declaration::new("spring", "")
                .state(Var::new("x", 0.1))
                .state(Var::new("v", 0.0))
                .input(Var::new("F", 0.0))
                .input(Var::new("G", 0.0))
                .parameter(Var::new("m", 2.0), Tunability::Fixed)
                .parameter(Var::new("k", 3.0), Tunability::Tunable)
                .output(Var::new("position", 0.0))
                .output(Var::new("force", 0.0))
                .cosimulation(Method::Hht { alpha: -0.1 }, 1e-3)
        }
        fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
            m[0] = a.p[0];
        }
        fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
            f[0] = a.u[0] + a.u[1] - a.p[1] * a.q[0];
        }
        fn outputs<T: Scalar>(&self, a: &MechArgs<T>, _acc: &[T], _lambda: &[T], y: &mut [T]) {
            y[0] = a.q[0];
            y[1] = a.p[1] * a.q[0];
        }
    }

    #[test]
    fn the_manifest_lists_the_seed_variables_with_the_description_s_value_references() {
        let sys = MechanicalSystem::<Spring>::default();
        let manifest = adjoint_manifest(&sys).unwrap();
        let description = super::super::fmi3(&sys, "spring");
        // HHT: q, v, a for one coordinate, no constraint.
        let root = r#"<TandemAdjoint version="1" nState="3" capabilities="keepStepLinearizations jacobianAdjointDerivative">"#;
        assert!(manifest.contains(root), "{manifest}");
        let table = VariableTable::new(sys.declaration());
        let listed: Vec<(u32, &str)> = manifest
            .match_indices("<Variable valueReference=\"")
            .map(|(at, tag)| {
                let rest = &manifest[at + tag.len()..];
                let vr = rest[..rest.find('"').unwrap()].parse().unwrap();
                let name = rest.split("name=\"").nth(1).unwrap();
                (vr, &name[..name.find('"').unwrap()])
            })
            .collect();
        let names: Vec<&str> = listed.iter().map(|(_, name)| *name).collect();
        assert_eq!(names, ["F", "G", "m", "k", "position", "force"]);
        for (vr, name) in listed {
            assert_eq!(table.get(vr).unwrap().var.name, name);
            let declared = format!(r#"name="{name}" valueReference="{vr}""#);
            assert!(
                description.contains(&declared),
                "{declared} not in\n{description}"
            );
        }
    }

    #[test]
    fn an_integrator_without_a_discrete_adjoint_has_no_manifest() {
        let error = adjoint_manifest(&Ball::default()).unwrap_err();
        assert!(error.contains("no discrete adjoint"), "{error}");
    }

    /// A mass on a spring whose stiffness and damping are the vector `c` (2).
    #[derive(Default)]
    struct VectorSpring;

    impl MechanicalModel for VectorSpring {
        fn declaration(&self) -> Declaration {
            Declaration::new("vector_spring", "")
                .state(Var::new("x", 0.1))
                .state(Var::new("v", 0.0))
                .parameter(Var::new("m", 2.0), Tunability::Fixed)
                .parameter_array(Var::new("c", 0.0), &[2], &[3.0, 0.1], Tunability::Tunable)
                .output(Var::new("position", 0.0))
                .cosimulation(Method::Hht { alpha: -0.1 }, 1e-3)
        }
        fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
            m[0] = a.p[0];
        }
        fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
            f[0] = -a.p[1] * a.q[0] - a.p[2] * a.v[0];
        }
        fn outputs<T: Scalar>(&self, a: &MechArgs<T>, _acc: &[T], _lambda: &[T], y: &mut [T]) {
            y[0] = a.q[0];
        }
    }

    #[test]
    fn an_array_is_listed_once_per_element_by_its_value_reference_name_and_position() {
        let sys = MechanicalSystem::<VectorSpring>::default();
        let manifest = adjoint_manifest(&sys).unwrap();
        // Entries: 0 time, 1 x, 2 v, 3 der(x), 4 der(v), 5 m, 6 c[1], 7 c[2], 8 position.
        let parameters = "<Parameters>\n    <Variable valueReference=\"5\" name=\"m\"/>\n    \
                          <Variable valueReference=\"6\" name=\"c\" element=\"0\"/>\n    \
                          <Variable valueReference=\"6\" name=\"c\" element=\"1\"/>\n  </Parameters>";
        assert!(manifest.contains(parameters), "{manifest}");
        let description = super::super::fmi3(&sys, "vector_spring");
        assert!(description.contains("<Float64 name=\"c\" valueReference=\"6\""));
    }
}
