//! `tandem.read_model_description`: an FMU's model description as objects with the attribute
//! names of FMPy's `ModelDescription` where the two mean the same (`fmiVersion`, `modelName`,
//! `modelVariables`, `coSimulation`, ...), read the way `tandem info` reads it.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::error::failed;
use fmi_host::import::Fmu;
use fmi_host::model_description::{
    self as md, Capabilities, FmiVersion, Shapes, Values, Variable, VariableType,
};

/// What `modelDescription.xml` declares.
#[pyclass(frozen, module = "tandem")]
pub struct ModelDescription {
    /// `2.0` or `3.0`.
    #[pyo3(get, name = "fmiVersion")]
    fmi_version: String,
    /// The model's name.
    #[pyo3(get, name = "modelName")]
    model_name: String,
    /// The model's description.
    #[pyo3(get)]
    description: Option<String>,
    /// FMI 3.0's instantiation token, FMI 2.0's GUID.
    #[pyo3(get, name = "instantiationToken")]
    instantiation_token: String,
    /// The tool that generated the FMU.
    #[pyo3(get, name = "generationTool")]
    generation_tool: Option<String>,
    /// Continuous states, every element of an array state counted.
    #[pyo3(get, name = "numberOfContinuousStates")]
    number_of_continuous_states: usize,
    /// Event indicators.
    #[pyo3(get, name = "numberOfEventIndicators")]
    number_of_event_indicators: usize,
    /// The default experiment, if declared.
    #[pyo3(get, name = "defaultExperiment")]
    default_experiment: Option<Py<DefaultExperiment>>,
    /// The Co-Simulation interface, if implemented.
    #[pyo3(get, name = "coSimulation")]
    co_simulation: Option<Py<Interface>>,
    /// The Model Exchange interface, if implemented.
    #[pyo3(get, name = "modelExchange")]
    model_exchange: Option<Py<Interface>>,
    /// The Scheduled Execution interface (FMI 3.0), if implemented.
    #[pyo3(get, name = "scheduledExecution")]
    scheduled_execution: Option<Py<Interface>>,
    /// Every variable, in file order.
    #[pyo3(get, name = "modelVariables")]
    model_variables: Py<PyList>,
}

#[pymethods]
impl ModelDescription {
    /// FMPy's name for the instantiation token of FMI 2.0.
    #[getter]
    fn guid(&self) -> &str {
        &self.instantiation_token
    }

    fn __repr__(&self) -> String {
        format!(
            "ModelDescription(fmiVersion={:?}, modelName={:?})",
            self.fmi_version, self.model_name
        )
    }
}

/// One model variable.
#[pyclass(frozen, module = "tandem")]
pub struct ModelVariable {
    /// Its unique name.
    #[pyo3(get)]
    name: String,
    /// The value reference every get and set call uses.
    #[pyo3(get, name = "valueReference")]
    value_reference: u32,
    /// FMPy's type name: FMI 2.0's (`Real`, `Integer`, ...) or FMI 3.0's (`Float64`, ...).
    #[pyo3(get, name = "type")]
    ty: &'static str,
    /// Its description.
    #[pyo3(get)]
    description: Option<String>,
    /// `parameter`, `input`, `output`, `local`, ...
    #[pyo3(get)]
    causality: &'static str,
    /// `constant`, `fixed`, `tunable`, `discrete` or `continuous`.
    #[pyo3(get)]
    variability: &'static str,
    /// `exact`, `approx` or `calculated`, as declared or by the standard's default.
    #[pyo3(get)]
    initial: Option<&'static str>,
    /// The start value: a number, Boolean, string or bytes; a flat list in row-major order
    /// for an array.
    #[pyo3(get)]
    start: Py<PyAny>,
    /// Its unit, or its declared type's.
    #[pyo3(get)]
    unit: Option<String>,
    /// Its display unit.
    #[pyo3(get, name = "displayUnit")]
    display_unit: Option<String>,
    /// The type definition it refers to.
    #[pyo3(get, name = "declaredType")]
    declared_type: Option<String>,
    /// Lower bound.
    #[pyo3(get)]
    min: Option<f64>,
    /// Upper bound.
    #[pyo3(get)]
    max: Option<f64>,
    /// Nominal value.
    #[pyo3(get)]
    nominal: Option<f64>,
    /// An array's sizes (structural parameters at their start values), None for a scalar or
    /// an array whose size is unknown.
    #[pyo3(get)]
    shape: Option<Py<PyTuple>>,
    /// The names of its FMI 3.0 aliases.
    #[pyo3(get)]
    aliases: Vec<String>,
}

#[pymethods]
impl ModelVariable {
    fn __repr__(&self) -> String {
        format!("ModelVariable(name={:?}, type={:?})", self.name, self.ty)
    }
}

/// The default experiment.
#[pyclass(frozen, module = "tandem")]
pub struct DefaultExperiment {
    /// Start time.
    #[pyo3(get, name = "startTime")]
    start_time: Option<f64>,
    /// Stop time.
    #[pyo3(get, name = "stopTime")]
    stop_time: Option<f64>,
    /// Relative tolerance.
    #[pyo3(get)]
    tolerance: Option<f64>,
    /// Communication or output step.
    #[pyo3(get, name = "stepSize")]
    step_size: Option<f64>,
}

/// An interface the FMU implements, with the capabilities shared by all of them.
#[pyclass(frozen, module = "tandem")]
pub struct Interface {
    /// The binary's name and the prefix of its functions.
    #[pyo3(get, name = "modelIdentifier")]
    model_identifier: String,
    /// FMU states can be got and set.
    #[pyo3(get, name = "canGetAndSetFMUstate")]
    can_get_and_set_fmu_state: bool,
    /// FMU states can be serialized.
    #[pyo3(get, name = "canSerializeFMUstate")]
    can_serialize_fmu_state: bool,
    /// Directional derivatives are provided.
    #[pyo3(get, name = "providesDirectionalDerivative")]
    provides_directional_derivative: bool,
    /// Adjoint derivatives are provided (FMI 3.0).
    #[pyo3(get, name = "providesAdjointDerivatives")]
    provides_adjoint_derivatives: bool,
}

/// Reads the model description of the FMU `filename`.
#[pyfunction]
pub fn read_model_description(py: Python<'_>, filename: PathBuf) -> PyResult<ModelDescription> {
    // The archive is opened as for a run (and removed again) without the GIL.
    let description = py
        .detach(|| Fmu::open(&filename).map(|fmu| fmu.model_description().clone()))
        .map_err(|e| failed(py, &e))?;
    describe(py, &description)
}

/// The Python objects of `description`.
fn describe(py: Python<'_>, description: &md::ModelDescription) -> PyResult<ModelDescription> {
    let shapes = Shapes::new(description);
    let variables = description
        .variables
        .iter()
        .map(|variable| Py::new(py, model_variable(py, description, &shapes, variable)?))
        .collect::<PyResult<Vec<_>>>()?;
    let interface = |model_identifier: &str, capabilities: &Capabilities| {
        Py::new(
            py,
            Interface {
                model_identifier: model_identifier.to_string(),
                can_get_and_set_fmu_state: capabilities.can_get_and_set_fmu_state,
                can_serialize_fmu_state: capabilities.can_serialize_fmu_state,
                provides_directional_derivative: capabilities.provides_directional_derivatives,
                provides_adjoint_derivatives: capabilities.provides_adjoint_derivatives,
            },
        )
    };
    Ok(ModelDescription {
        fmi_version: description.fmi_version_text.clone(),
        model_name: description.model_name.clone(),
        description: description.description.clone(),
        instantiation_token: description.instantiation_token.clone(),
        generation_tool: description.generation_tool.clone(),
        number_of_continuous_states: description.continuous_state_elements(),
        number_of_event_indicators: description.number_of_event_indicators(),
        default_experiment: description
            .default_experiment
            .as_ref()
            .map(|experiment| {
                Py::new(
                    py,
                    DefaultExperiment {
                        start_time: experiment.start_time,
                        stop_time: experiment.stop_time,
                        tolerance: experiment.tolerance,
                        step_size: experiment.step_size,
                    },
                )
            })
            .transpose()?,
        co_simulation: description
            .co_simulation
            .as_ref()
            .map(|cs| interface(&cs.model_identifier, &cs.capabilities))
            .transpose()?,
        model_exchange: description
            .model_exchange
            .as_ref()
            .map(|me| interface(&me.model_identifier, &me.capabilities))
            .transpose()?,
        scheduled_execution: description
            .scheduled_execution
            .as_ref()
            .map(|se| interface(&se.model_identifier, &se.capabilities))
            .transpose()?,
        model_variables: PyList::new(py, variables)?.unbind(),
    })
}

/// The Python object of `variable`.
fn model_variable(
    py: Python<'_>,
    description: &md::ModelDescription,
    shapes: &Shapes<'_>,
    variable: &Variable,
) -> PyResult<ModelVariable> {
    let start = match &variable.start {
        None => py.None(),
        Some(values) if variable.is_scalar() => element(py, values, 0)?.unbind(),
        Some(values) => {
            let elements = (0..values.len())
                .map(|i| element(py, values, i))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, elements)?.into_any().unbind()
        }
    };
    let shape = match variable.is_scalar() {
        true => None,
        false => shapes
            .of(variable)
            .ok()
            .map(|shape| PyTuple::new(py, shape).map(Bound::unbind))
            .transpose()?,
    };
    Ok(ModelVariable {
        name: variable.name.clone(),
        value_reference: variable.value_reference,
        ty: type_name(description.fmi_version, variable.ty),
        description: variable.description.clone(),
        causality: variable.causality.as_str(),
        variability: variable.variability.as_str(),
        initial: variable.initial().map(|initial| initial.as_str()),
        start,
        unit: description.unit_of(variable).map(str::to_string),
        display_unit: variable.display_unit.clone(),
        declared_type: variable.declared_type.clone(),
        min: variable.min,
        max: variable.max,
        nominal: variable.nominal,
        shape,
        aliases: variable.aliases.iter().map(|a| a.name.clone()).collect(),
    })
}

/// Value `i` of `values` as a Python object.
fn element<'py>(py: Python<'py>, values: &Values, i: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(match values {
        Values::Float(v) => v[i].into_pyobject(py)?.into_any(),
        Values::Int(v) => v[i].into_pyobject(py)?.into_any(),
        Values::UInt(v) => v[i].into_pyobject(py)?.into_any(),
        Values::Bool(v) => v[i].into_pyobject(py)?.to_owned().into_any(),
        Values::String(v) => v[i].clone().into_pyobject(py)?.into_any(),
        Values::Binary(v) => PyBytes::new(py, &v[i]).into_any(),
    })
}

/// The type's name as FMPy gives it: FMI 2.0's element names for FMI 2.0 FMUs.
fn type_name(version: FmiVersion, ty: VariableType) -> &'static str {
    match (version, ty) {
        (FmiVersion::V2, VariableType::Float64) => "Real",
        (FmiVersion::V2, VariableType::Int32) => "Integer",
        _ => ty.as_str(),
    }
}
