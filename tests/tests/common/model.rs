//! A model crate under test through its C ABI: its shared library together with the model
//! description its describe program writes, which gives every value reference by role, so
//! that one test serves every model.
//!
//! A variable may be an FMI 3.0 array (a Tandem array parameter): its value reference then
//! stands for all its elements, and every array of values a call passes has one entry per
//! element ([`size`], [`count`], [`elements`]).

use tandem::import::AdjointManifest;
use tandem::model_description::{Causality, Dimension, Variability, Variable, VariableType};
use tandem::ModelDescription;
use tandem_tests::fmus::FmiVersion;
use tandem_tests::models::ModelCrate;

use super::Fmu;

/// A loaded model library and its model description for one FMI version.
pub struct Model {
    /// The package name.
    pub package: String,
    /// The FMI version of `description`.
    pub version: FmiVersion,
    /// The parsed modelDescription.xml.
    pub description: ModelDescription,
    /// The loaded shared library.
    pub fmu: Fmu,
}

impl Model {
    /// Builds (once), loads and describes the model crate.
    pub fn load(model: &ModelCrate, version: FmiVersion) -> Model {
        let text = model.description(version);
        let description = ModelDescription::parse(&text).unwrap_or_else(|e| {
            panic!(
                "{} {}: modelDescription.xml: {e}",
                model.package,
                version.folder()
            )
        });
        Model {
            package: model.package.clone(),
            version,
            description,
            fmu: Fmu::load(&model.package),
        }
    }

    /// Every model crate of the workspace.
    pub fn all(version: FmiVersion) -> Vec<Model> {
        ModelCrate::all()
            .iter()
            .map(|m| Model::load(m, version))
            .collect()
    }

    /// The model crate `package`.
    pub fn named(package: &str, version: FmiVersion) -> Model {
        let model = ModelCrate::all()
            .into_iter()
            .find(|m| m.package == package)
            .unwrap_or_else(|| panic!("no model crate {package}"));
        Model::load(&model, version)
    }

    /// The adjoint extension's manifest, written by the crate's describe program and checked
    /// against the model description (FMI 3.0).
    pub fn adjoint_manifest(&self) -> AdjointManifest {
        let text = ModelCrate::all()
            .into_iter()
            .find(|m| m.package == self.package)
            .unwrap_or_else(|| panic!("no model crate {}", self.package))
            .adjoint_manifest();
        AdjointManifest::parse(&text, &self.description)
            .unwrap_or_else(|e| panic!("{}: adjoint manifest: {e}\n{text}", self.package))
    }

    /// The instantiation token (FMI 3.0) or GUID (FMI 2.0).
    pub fn token(&self) -> &str {
        &self.description.instantiation_token
    }

    /// The value reference of `name`.
    pub fn vr(&self, name: &str) -> u32 {
        self.description
            .variable(name)
            .unwrap_or_else(|| panic!("{}: no variable {name}", self.package))
            .value_reference
    }

    /// The continuous states, in the order of the state vector.
    pub fn states(&self) -> Vec<&Variable> {
        self.description
            .states()
            .into_iter()
            .map(|i| &self.description.variables[i.expect("states resolve")])
            .collect()
    }

    /// The state derivatives, in the order of the state vector.
    pub fn derivatives(&self) -> Vec<&Variable> {
        self.description
            .model_structure
            .derivatives
            .iter()
            .map(|d| {
                let i = self
                    .description
                    .resolve(d.reference)
                    .expect("derivatives resolve");
                &self.description.variables[i]
            })
            .collect()
    }

    /// The real inputs.
    pub fn inputs(&self) -> Vec<&Variable> {
        self.reals(|v| v.causality == Causality::Input)
    }

    /// The real parameters, fixed and tunable.
    pub fn parameters(&self) -> Vec<&Variable> {
        self.reals(|v| v.causality == Causality::Parameter)
    }

    /// The continuous real outputs.
    pub fn outputs(&self) -> Vec<&Variable> {
        self.reals(|v| v.causality == Causality::Output && v.variability == Variability::Continuous)
    }

    /// The knowns of the partial derivatives: states, inputs, real parameters.
    pub fn knowns(&self) -> Vec<&Variable> {
        [self.states(), self.inputs(), self.parameters()].concat()
    }

    /// The unknowns of the partial derivatives: state derivatives and continuous outputs.
    pub fn unknowns(&self) -> Vec<&Variable> {
        [self.derivatives(), self.outputs()].concat()
    }

    /// Every variable of type `ty`.
    pub fn of_type(&self, ty: VariableType) -> Vec<&Variable> {
        self.description
            .variables
            .iter()
            .filter(|v| v.ty == ty)
            .collect()
    }

    fn reals(&self, keep: impl Fn(&Variable) -> bool) -> Vec<&Variable> {
        self.of_type(VariableType::Float64)
            .into_iter()
            .filter(|v| keep(v))
            .collect()
    }
}

/// The value references of `variables`.
pub fn vrs(variables: &[&Variable]) -> Vec<u32> {
    variables.iter().map(|v| v.value_reference).collect()
}

/// The start value of a real variable (0 when it has none); of its first element for an
/// array.
pub fn start(variable: &Variable) -> f64 {
    start_at(variable, 0)
}

/// The start value of element `index` of a real variable (0 when it has none).
fn start_at(variable: &Variable, index: usize) -> f64 {
    variable
        .start
        .as_ref()
        .and_then(|s| s.f64_at(index))
        .unwrap_or(0.0)
}

/// The number of values of `variable`: 1 for a scalar, the product of its dimensions for an
/// array (Tandem's arrays have fixed sizes).
pub fn size(variable: &Variable) -> usize {
    variable
        .dimensions
        .iter()
        .map(|d| match d {
            Dimension::Fixed(n) => *n as usize,
            Dimension::Parameter(_) => panic!("{}: a structural dimension", variable.name),
        })
        .product()
}

/// The number of values of `variables`: what FMI 3.0 counts in `nValues`, `nSeed` and
/// `nSensitivity`.
pub fn count(variables: &[&Variable]) -> usize {
    variables.iter().map(|v| size(v)).sum()
}

/// One value of a variable: the variable itself, or one element of an array (row-major).
#[derive(Clone, Copy, Debug)]
pub struct Element<'a> {
    /// The variable.
    pub variable: &'a Variable,
    /// The row-major position in the array (0 for a scalar).
    pub index: usize,
}

impl Element<'_> {
    /// The start value.
    pub fn start(&self) -> f64 {
        start_at(self.variable, self.index)
    }

    /// The name, with the position for an element of an array.
    pub fn name(&self) -> String {
        if self.variable.is_scalar() {
            self.variable.name.clone()
        } else {
            format!("{} (element {})", self.variable.name, self.index)
        }
    }
}

/// Every value of `variables`, in the order arrays of values list them.
pub fn elements<'a>(variables: &[&'a Variable]) -> Vec<Element<'a>> {
    variables
        .iter()
        .flat_map(|&variable| (0..size(variable)).map(move |index| Element { variable, index }))
        .collect()
}

/// The names of the values of `variables`, for messages.
pub fn names(variables: &[&Variable]) -> Vec<String> {
    elements(variables).iter().map(Element::name).collect()
}
