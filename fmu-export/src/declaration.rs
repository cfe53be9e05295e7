//! Variables declared once by a model; the FMI 2.0 and FMI 3.0 model descriptions and the value
//! references are generated from this declaration.

/// Descriptive attributes shared by every declared variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// Variable name as it appears in modelDescription.xml (FMI structured naming allowed).
    pub name: String,
    /// One-line human description.
    pub description: String,
    /// Unit symbol (e.g. `"m"`, `"N/m"`); `None` for dimensionless.
    pub unit: Option<String>,
    /// Start value (initial state, parameter value, input default).
    pub start: f64,
    /// Nominal magnitude, used by hosts for scaling.
    pub nominal: Option<f64>,
    /// Lower bound, checked when a host sets the variable.
    pub min: Option<f64>,
    /// Upper bound, checked when a host sets the variable.
    pub max: Option<f64>,
}

impl Var {
    /// A variable with a name and start value; attributes are added with the builder methods.
    pub fn new(name: &str, start: f64) -> Self {
        Var {
            name: name.to_owned(),
            description: String::new(),
            unit: None,
            start,
            nominal: None,
            min: None,
            max: None,
        }
    }

    /// Sets the description.
    pub fn description(mut self, text: &str) -> Self {
        self.description = text.to_owned();
        self
    }

    /// Sets the unit.
    pub fn unit(mut self, unit: &str) -> Self {
        self.unit = Some(unit.to_owned());
        self
    }

    /// Sets the nominal value.
    pub fn nominal(mut self, nominal: f64) -> Self {
        self.nominal = Some(nominal);
        self
    }

    /// Sets the admissible range.
    pub fn range(mut self, min: f64, max: f64) -> Self {
        self.min = Some(min);
        self.max = Some(max);
        self
    }
}

/// Whether a parameter may change after initialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tunability {
    /// Set before initialization only (FMI variability "fixed").
    Fixed,
    /// May be changed between steps (FMI variability "tunable").
    Tunable,
}

/// A real parameter `p[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Name, start value and attributes.
    pub var: Var,
    /// Fixed or tunable.
    pub tunability: Tunability,
}

/// An array of real parameters (FMI 3.0 style, row-major): consecutive entries of
/// [`Declaration::parameters`], one per element, so that model code reads the elements as
/// ordinary parameters `p[first..first + len]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterArray {
    /// The array's name (FMI 3.0); its elements are named `name[i,j,...]` (1-based), which is
    /// how FMI 2.0 writes arrays.
    pub name: String,
    /// The size of each dimension, outermost first.
    pub shape: Vec<usize>,
    /// Index of the first element in [`Declaration::parameters`].
    pub first: usize,
    /// Number of elements (the product of `shape` in a valid declaration, see
    /// [`crate::validation`]).
    pub len: usize,
}

/// The FMI type of a discrete variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscreteType {
    /// fmi2Real / fmi3Float64 with discrete variability.
    Real,
    /// fmi2Integer / fmi3Int32.
    Integer,
    /// fmi2Boolean / fmi3Boolean.
    Boolean,
}

/// What a discrete variable is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscreteRole {
    /// A structural or settings parameter, fixed after initialization.
    Parameter,
    /// A discrete-time output, changed only at events (e.g. a bounce counter).
    Output,
    /// Internal mode or memory, changed only at events, visible to the host.
    Local,
}

/// A discrete variable `d[i]` (stored as `f64`; integers exactly, booleans as 0/1).
#[derive(Clone, Debug, PartialEq)]
pub struct Discrete {
    /// Name, start value and attributes.
    pub var: Var,
    /// FMI type.
    pub ty: DiscreteType,
    /// Parameter, output or local.
    pub role: DiscreteRole,
}

/// What a String variable is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringRole {
    /// A text setting, fixed after initialization (e.g. the name of something the model
    /// reports).
    Parameter,
    /// A label the model computes from its discrete state and String parameters (see
    /// [`crate::OdeModel::string_outputs`]); it changes only at events.
    Output,
}

/// A String variable `s[i]` (parameters) or label output.
#[derive(Clone, Debug, PartialEq)]
pub struct StringVariable {
    /// Name as it appears in modelDescription.xml.
    pub name: String,
    /// One-line human description.
    pub description: String,
    /// Start value of a parameter (outputs are calculated and have none).
    pub start: String,
    /// Parameter or output.
    pub role: StringRole,
}

/// The co-simulation integrator a model's FMUs embed in `doStep`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// HHT-alpha for second-order constrained mechanics; `alpha` in [-1/3, 0].
    Hht {
        /// Numerical damping parameter.
        alpha: f64,
    },
    /// Symplectic (semi-implicit) Euler for second-order mechanics.
    SymplecticEuler,
    /// L-stable ESDIRK of order 4 with error control, for stiff first-order ODEs.
    Sdirk {
        /// Relative tolerance of the local error.
        rtol: f64,
        /// Absolute tolerance of the local error.
        atol: f64,
    },
}

/// The embedded co-simulation solver settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoSimulation {
    /// Integration method.
    pub method: Method,
    /// Largest internal step; a communication step is split into steps no longer than this
    /// (fixed-step methods) or starts its step-size control from it (SDIRK).
    pub max_step: f64,
}

/// The default experiment written into modelDescription.xml.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experiment {
    /// Start time in seconds.
    pub start: f64,
    /// Stop time in seconds.
    pub stop: f64,
    /// Relative tolerance suggested to Model Exchange hosts.
    pub tolerance: f64,
    /// Communication / output step size.
    pub step: f64,
}

/// Everything a model declares about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    /// FMI modelName.
    pub model_name: String,
    /// One-paragraph description.
    pub description: String,
    /// Continuous states `x` (for mechanical models: the coordinates q, then the velocities v).
    pub states: Vec<Var>,
    /// Continuous real inputs `u`.
    pub inputs: Vec<Var>,
    /// Real parameters `p`.
    pub parameters: Vec<Parameter>,
    /// The arrays among the real parameters, in declaration order.
    pub arrays: Vec<ParameterArray>,
    /// Continuous real outputs `y`.
    pub outputs: Vec<Var>,
    /// Discrete variables `d` (parameters, outputs, modes, memory).
    pub discrete: Vec<Discrete>,
    /// Number of event indicators `z`.
    pub event_indicators: usize,
    /// String parameters and outputs, in declaration order.
    pub strings: Vec<StringVariable>,
    /// Indices into `parameters` whose forward sensitivities the co-simulation integrator
    /// propagates (exported as the outputs `d(y)/d(p)`, see [`Declaration::sensitivities`]).
    pub sensitivities: Vec<usize>,
    /// Embedded co-simulation solver.
    pub cosimulation: CoSimulation,
    /// Default experiment.
    pub experiment: Experiment,
}

impl Declaration {
    /// An empty declaration with the given name, SDIRK co-simulation and a 0..10 s experiment.
    pub fn new(model_name: &str, description: &str) -> Self {
        Declaration {
            model_name: model_name.to_owned(),
            description: description.to_owned(),
            states: Vec::new(),
            inputs: Vec::new(),
            parameters: Vec::new(),
            arrays: Vec::new(),
            outputs: Vec::new(),
            discrete: Vec::new(),
            event_indicators: 0,
            strings: Vec::new(),
            sensitivities: Vec::new(),
            cosimulation: CoSimulation {
                method: Method::Sdirk {
                    rtol: 1e-6,
                    atol: 1e-9,
                },
                max_step: 1e-2,
            },
            experiment: Experiment {
                start: 0.0,
                stop: 10.0,
                tolerance: 1e-6,
                step: 1e-2,
            },
        }
    }

    /// Adds a continuous state.
    pub fn state(mut self, var: Var) -> Self {
        self.states.push(var);
        self
    }

    /// Adds a continuous input.
    pub fn input(mut self, var: Var) -> Self {
        self.inputs.push(var);
        self
    }

    /// Adds a real parameter.
    pub fn parameter(mut self, var: Var, tunability: Tunability) -> Self {
        self.parameters.push(Parameter { var, tunability });
        self
    }

    /// Adds an array of real parameters of shape `shape` (e.g. `&[2, 2]`), with the start
    /// values `starts` in row-major order: `var` names the array and gives the attributes all
    /// its elements share (description, unit, nominal, range; its own start is not used).
    /// Each element becomes a parameter of its own, `p[i]` in declaration order, named
    /// `name[i,j]` (1-based; `name[i]` for a vector). The FMI 3.0 model description declares
    /// one array variable, the FMI 2.0 one a scalar per element. The shape is checked when the
    /// FMU is exported ([`crate::validation::validate`]).
    pub fn parameter_array(
        mut self,
        var: Var,
        shape: &[usize],
        starts: &[f64],
        tunability: Tunability,
    ) -> Self {
        let first = self.parameters.len();
        for (k, &start) in starts.iter().enumerate() {
            let element = Var {
                name: element_name(&var.name, shape, k),
                start,
                ..var.clone()
            };
            self.parameters.push(Parameter {
                var: element,
                tunability,
            });
        }
        self.arrays.push(ParameterArray {
            name: var.name,
            shape: shape.to_vec(),
            first,
            len: starts.len(),
        });
        self
    }

    /// Adds a continuous output.
    pub fn output(mut self, var: Var) -> Self {
        self.outputs.push(var);
        self
    }

    /// Adds a discrete variable.
    pub fn discrete(mut self, var: Var, ty: DiscreteType, role: DiscreteRole) -> Self {
        self.discrete.push(Discrete { var, ty, role });
        self
    }

    /// Adds a String parameter (fixed: set before initialization ends).
    pub fn string_parameter(mut self, name: &str, start: &str, description: &str) -> Self {
        self.strings.push(StringVariable {
            name: name.to_owned(),
            description: description.to_owned(),
            start: start.to_owned(),
            role: StringRole::Parameter,
        });
        self
    }

    /// Adds a String output, which the model writes in its `string_outputs`.
    pub fn string_output(mut self, name: &str, description: &str) -> Self {
        self.strings.push(StringVariable {
            name: name.to_owned(),
            description: description.to_owned(),
            start: String::new(),
            role: StringRole::Output,
        });
        self
    }

    /// Sets the number of event indicators.
    pub fn event_indicators(mut self, count: usize) -> Self {
        self.event_indicators = count;
        self
    }

    /// Declares forward sensitivity outputs with respect to the named (already declared) real
    /// parameters: for every such parameter `p` and continuous output `y`, the FMU gets the
    /// output `d(y)/d(p)`, which the co-simulation integrator propagates exactly (event jumps
    /// included). Model Exchange cannot provide these values (getting them is an Error).
    ///
    /// # Panics
    ///
    /// If a name is not a declared real parameter or is listed twice: a model definition error.
    pub fn sensitivities(mut self, parameters: &[&str]) -> Self {
        for &name in parameters {
            let index = self
                .parameters
                .iter()
                .position(|p| p.var.name == name)
                .unwrap_or_else(|| {
                    panic!(
                        "model {}: sensitivities: `{name}` is not a declared real parameter (declare it before calling sensitivities)",
                        self.model_name
                    )
                });
            assert!(
                !self.sensitivities.contains(&index),
                "model {}: sensitivities: `{name}` is listed twice",
                self.model_name
            );
            self.sensitivities.push(index);
        }
        self
    }

    /// Sets the embedded co-simulation solver.
    pub fn cosimulation(mut self, method: Method, max_step: f64) -> Self {
        self.cosimulation = CoSimulation { method, max_step };
        self
    }

    /// Sets the default experiment.
    pub fn experiment(mut self, start: f64, stop: f64, tolerance: f64, step: f64) -> Self {
        self.experiment = Experiment {
            start,
            stop,
            tolerance,
            step,
        };
        self
    }

    /// Start values of the states.
    pub fn state_starts(&self) -> Vec<f64> {
        self.states.iter().map(|v| v.start).collect()
    }

    /// Start values of the inputs.
    pub fn input_starts(&self) -> Vec<f64> {
        self.inputs.iter().map(|v| v.start).collect()
    }

    /// Start values of the parameters.
    pub fn parameter_starts(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.var.start).collect()
    }

    /// Start values of the String parameters.
    pub fn string_parameter_starts(&self) -> Vec<String> {
        self.string_parameters().map(|s| s.start.clone()).collect()
    }

    /// The String parameters, in declaration order (their index is their position here).
    pub fn string_parameters(&self) -> impl Iterator<Item = &StringVariable> {
        self.strings
            .iter()
            .filter(|s| s.role == StringRole::Parameter)
    }

    /// The String outputs, in declaration order (their index is their position here).
    pub fn string_outputs(&self) -> impl Iterator<Item = &StringVariable> {
        self.strings.iter().filter(|s| s.role == StringRole::Output)
    }

    /// Start values of the discrete variables.
    pub fn discrete_starts(&self) -> Vec<f64> {
        self.discrete.iter().map(|d| d.var.start).collect()
    }
}

/// The name of the `k`-th element (row-major, 0-based) of the array `array` of shape `shape`:
/// `array[i,j,...]` with 1-based indices, the FMI structured name of an array element. An
/// element beyond the shape (a declaration the export rejects) counts on in the first index.
pub fn element_name(array: &str, shape: &[usize], k: usize) -> String {
    let Some((_, inner)) = shape.split_first() else {
        return format!("{array}[{}]", k + 1);
    };
    let mut indices = vec![0; shape.len()];
    let mut rest = k;
    for (index, &size) in indices[1..].iter_mut().zip(inner).rev() {
        let size = size.max(1);
        *index = rest % size;
        rest /= size;
    }
    indices[0] = rest;
    let indices: Vec<String> = indices.iter().map(|i| (i + 1).to_string()).collect();
    format!("{array}[{}]", indices.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_elements_are_parameters_named_row_major_with_one_based_indices() {
        let decl = Declaration::new("m", "")
            .parameter(Var::new("k", 1.0), Tunability::Fixed)
            .parameter_array(
                Var::new("A", 0.0).unit("1/s").range(-10.0, 10.0),
                &[2, 3],
                &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                Tunability::Tunable,
            )
            .parameter_array(Var::new("v", 0.0), &[2], &[7.0, 8.0], Tunability::Fixed);
        let names: Vec<&str> = decl
            .parameters
            .iter()
            .map(|p| p.var.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["k", "A[1,1]", "A[1,2]", "A[1,3]", "A[2,1]", "A[2,2]", "A[2,3]", "v[1]", "v[2]"]
        );
        assert_eq!(
            decl.parameter_starts(),
            [1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        );
        let a21 = &decl.parameters[4];
        assert_eq!(
            (a21.var.unit.as_deref(), a21.var.max, a21.tunability),
            (Some("1/s"), Some(10.0), Tunability::Tunable)
        );
        assert_eq!(
            decl.arrays,
            [
                ParameterArray {
                    name: "A".into(),
                    shape: vec![2, 3],
                    first: 1,
                    len: 6
                },
                ParameterArray {
                    name: "v".into(),
                    shape: vec![2],
                    first: 7,
                    len: 2
                }
            ]
        );
        assert_eq!(element_name("T", &[2, 2, 2], 5), "T[2,1,2]");
        assert_eq!(element_name("T", &[2, 2], 5), "T[3,2]", "beyond the shape");
    }
}
