//! The flat variable table derived from a [`Declaration`]: value references, FMI types,
//! causality, variability and initial attributes, shared by the runtime (get/set by value
//! reference) and by both model-description generators.

use crate::declaration::{Declaration, DiscreteRole, DiscreteType, StringRole, Tunability, Var};

/// Value reference type: the position in the [`VariableTable`], which is the value reference
/// in FMI 2.0 and, but for the elements of arrays after their first, in FMI 3.0 (see
/// [`VariableTable::fmi3_reference`]).
pub type ValueReference = u32;

/// The FMI type of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    /// fmi2Real / fmi3Float64.
    Real,
    /// fmi2Integer / fmi3Int32.
    Integer,
    /// fmi2Boolean / fmi3Boolean.
    Boolean,
    /// fmi2String / fmi3String.
    String,
}

/// FMI causality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    /// The independent variable, time.
    Independent,
    /// A parameter.
    Parameter,
    /// An input.
    Input,
    /// An output.
    Output,
    /// A local variable (states, derivatives, modes).
    Local,
}

/// FMI variability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variability {
    /// Set before initialization only.
    Fixed,
    /// Changeable between steps or events.
    Tunable,
    /// Changes only at events.
    Discrete,
    /// Changes continuously.
    Continuous,
}

/// FMI initial attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initial {
    /// Initialized with the start value.
    Exact,
    /// Start value is a guess for an iteration.
    Approx,
    /// Computed during initialization; no start value.
    Calculated,
}

/// Where a variable's value lives in an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Simulation time.
    Time,
    /// Continuous state `x[i]`.
    State(usize),
    /// State derivative `dx[i]`.
    Derivative(usize),
    /// Input `u[i]`.
    Input(usize),
    /// Real parameter `p[i]`.
    Parameter(usize),
    /// Continuous output `y[i]`.
    Output(usize),
    /// Discrete variable `d[i]`.
    Discrete(usize),
    /// Event indicator `z[i]` (FMI 3.0 lists event indicators by value reference).
    EventIndicator(usize),
    /// String parameter `s[i]`.
    StringParameter(usize),
    /// String output (label) `i`, computed by the model.
    StringOutput(usize),
    /// The forward sensitivity `d(y[output])/d(p)` of an output to the `sensitivity`-th
    /// parameter listed in [`Declaration::sensitivities`].
    Sensitivity {
        /// Index of the output `y`.
        output: usize,
        /// Position of the parameter in the declaration's sensitivity list.
        sensitivity: usize,
    },
}

/// One entry of the variable table.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelVariable {
    /// Value reference (equal to the position in the table).
    pub vr: ValueReference,
    /// Name, description, unit, start, nominal and bounds.
    pub var: Var,
    /// FMI type.
    pub ty: VarType,
    /// FMI causality.
    pub causality: Causality,
    /// FMI variability.
    pub variability: Variability,
    /// FMI initial attribute (`None` where the standard forbids it: time and inputs).
    pub initial: Option<Initial>,
    /// Where the value lives.
    pub role: Role,
    /// For a derivative: the value reference of its state.
    pub derivative_of: Option<ValueReference>,
    /// For a String parameter: its start value (`var.start` holds numbers only).
    pub text_start: Option<String>,
    /// For an element of an array parameter: which array, and where in it.
    pub array: Option<ArrayElement>,
}

/// Where an element of an array parameter sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayElement {
    /// Index of the array in [`VariableTable::arrays`].
    pub array: usize,
    /// Row-major position in the array (0 for the first element).
    pub element: usize,
}

/// An array parameter: consecutive entries of the table, one per element in row-major order.
/// FMI 3.0 declares it as one variable with the value reference of its first element; FMI 2.0
/// declares every element.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayVariable {
    /// The array's name (FMI 3.0).
    pub name: String,
    /// The size of each dimension, outermost first.
    pub shape: Vec<usize>,
    /// The entry (value reference) of the first element.
    pub first: ValueReference,
    /// Number of elements.
    pub len: usize,
}

impl ArrayVariable {
    /// The entries of the elements, in row-major order.
    pub fn entries(&self) -> std::ops::Range<ValueReference> {
        self.first..self.first + self.len as ValueReference
    }
}

impl ModelVariable {
    /// Whether the start value is written into the model description.
    pub fn has_start(&self) -> bool {
        !matches!(self.initial, Some(Initial::Calculated))
            && self.causality != Causality::Independent
    }
}

/// All variables of a model, indexed by value reference.
#[derive(Clone, Debug, PartialEq)]
pub struct VariableTable {
    variables: Vec<ModelVariable>,
    arrays: Vec<ArrayVariable>,
}

impl VariableTable {
    /// Builds the table: time, states, derivatives, inputs, parameters, outputs, discrete,
    /// event indicators, String variables, then the sensitivity outputs `d(y)/d(p)` (per listed parameter, every
    /// output; last, so that declaring sensitivities keeps all other value references).
    pub fn new(decl: &Declaration) -> Self {
        let mut variables = Vec::new();
        let mut push = |var: Var, ty, causality, variability, initial, role, derivative_of| {
            let vr = variables.len() as ValueReference;
            variables.push(ModelVariable {
                vr,
                var,
                ty,
                causality,
                variability,
                initial,
                role,
                derivative_of,
                text_start: None,
                array: None,
            });
        };
        let time = Var::new("time", 0.0)
            .unit("s")
            .description("simulation time");
        push(
            time,
            VarType::Real,
            Causality::Independent,
            Variability::Continuous,
            None,
            Role::Time,
            None,
        );
        let first_state = 1;
        for (i, v) in decl.states.iter().enumerate() {
            push(
                v.clone(),
                VarType::Real,
                Causality::Local,
                Variability::Continuous,
                Some(Initial::Exact),
                Role::State(i),
                None,
            );
        }
        for (i, v) in decl.states.iter().enumerate() {
            let der = Var {
                name: format!("der({})", v.name),
                description: format!("time derivative of {}", v.name),
                unit: v.unit.as_ref().map(|u| format!("{u}/s")),
                start: 0.0,
                nominal: None,
                min: None,
                max: None,
            };
            push(
                der,
                VarType::Real,
                Causality::Local,
                Variability::Continuous,
                Some(Initial::Calculated),
                Role::Derivative(i),
                Some((first_state + i) as ValueReference),
            );
        }
        for (i, v) in decl.inputs.iter().enumerate() {
            push(
                v.clone(),
                VarType::Real,
                Causality::Input,
                Variability::Continuous,
                None,
                Role::Input(i),
                None,
            );
        }
        for (i, p) in decl.parameters.iter().enumerate() {
            let variability = match p.tunability {
                Tunability::Fixed => Variability::Fixed,
                Tunability::Tunable => Variability::Tunable,
            };
            push(
                p.var.clone(),
                VarType::Real,
                Causality::Parameter,
                variability,
                Some(Initial::Exact),
                Role::Parameter(i),
                None,
            );
        }
        for (i, v) in decl.outputs.iter().enumerate() {
            push(
                v.clone(),
                VarType::Real,
                Causality::Output,
                Variability::Continuous,
                Some(Initial::Calculated),
                Role::Output(i),
                None,
            );
        }
        for (i, d) in decl.discrete.iter().enumerate() {
            let ty = match d.ty {
                DiscreteType::Real => VarType::Real,
                DiscreteType::Integer => VarType::Integer,
                DiscreteType::Boolean => VarType::Boolean,
            };
            let (causality, variability, initial) = match d.role {
                DiscreteRole::Parameter => {
                    (Causality::Parameter, Variability::Fixed, Initial::Exact)
                }
                DiscreteRole::Output => (
                    Causality::Output,
                    Variability::Discrete,
                    Initial::Calculated,
                ),
                DiscreteRole::Local => (Causality::Local, Variability::Discrete, Initial::Exact),
            };
            push(
                d.var.clone(),
                ty,
                causality,
                variability,
                Some(initial),
                Role::Discrete(i),
                None,
            );
        }
        for i in 0..decl.event_indicators {
            let z = Var::new(&format!("eventIndicator[{}]", i + 1), 0.0)
                .description("event indicator: an event occurs when it changes sign");
            push(
                z,
                VarType::Real,
                Causality::Local,
                Variability::Continuous,
                Some(Initial::Calculated),
                Role::EventIndicator(i),
                None,
            );
        }
        let (mut parameters, mut outputs) = (0, 0);
        for s in &decl.strings {
            let var = Var::new(&s.name, 0.0).description(&s.description);
            match s.role {
                StringRole::Parameter => {
                    push(
                        var,
                        VarType::String,
                        Causality::Parameter,
                        Variability::Fixed,
                        Some(Initial::Exact),
                        Role::StringParameter(parameters),
                        None,
                    );
                    parameters += 1;
                }
                StringRole::Output => {
                    push(
                        var,
                        VarType::String,
                        Causality::Output,
                        Variability::Discrete,
                        Some(Initial::Calculated),
                        Role::StringOutput(outputs),
                        None,
                    );
                    outputs += 1;
                }
            }
        }
        for (k, &j) in decl.sensitivities.iter().enumerate() {
            let p = &decl.parameters[j].var;
            for (i, y) in decl.outputs.iter().enumerate() {
                push(
                    sensitivity_var(y, p),
                    VarType::Real,
                    Causality::Local,
                    Variability::Continuous,
                    Some(Initial::Calculated),
                    Role::Sensitivity {
                        output: i,
                        sensitivity: k,
                    },
                    None,
                );
            }
        }
        let starts: Vec<&str> = decl.string_parameters().map(|s| s.start.as_str()).collect();
        for v in &mut variables {
            if let Role::StringParameter(i) = v.role {
                v.text_start = Some(starts[i].to_owned());
            }
        }
        let arrays = mark_arrays(decl, &mut variables);
        VariableTable { variables, arrays }
    }

    /// The variable with value reference `vr`.
    pub fn get(&self, vr: ValueReference) -> Option<&ModelVariable> {
        self.variables.get(vr as usize)
    }

    /// All variables in value-reference order.
    pub fn iter(&self) -> impl Iterator<Item = &ModelVariable> {
        self.variables.iter()
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.variables.len()
    }

    /// Whether the table is empty (never: time is always present).
    pub fn is_empty(&self) -> bool {
        self.variables.is_empty()
    }

    /// The value reference of the variable with role `role`.
    pub fn vr_of(&self, role: Role) -> Option<ValueReference> {
        self.variables.iter().find(|v| v.role == role).map(|v| v.vr)
    }

    /// The variable named `name`.
    pub fn by_name(&self, name: &str) -> Option<&ModelVariable> {
        self.variables.iter().find(|v| v.var.name == name)
    }

    /// The array parameters, in declaration order.
    pub fn arrays(&self) -> &[ArrayVariable] {
        &self.arrays
    }

    /// Whether the model has array parameters (without them, FMI 3.0 value references are
    /// the table's entries one for one).
    pub fn has_arrays(&self) -> bool {
        !self.arrays.is_empty()
    }

    /// The array `v` is an element of, and its position there.
    pub fn array_of(&self, v: &ModelVariable) -> Option<(&ArrayVariable, usize)> {
        v.array.map(|a| (&self.arrays[a.array], a.element))
    }

    /// The elements of `array`, in row-major order.
    pub fn elements(&self, array: &ArrayVariable) -> &[ModelVariable] {
        &self.variables[array.first as usize..][..array.len]
    }

    /// The FMI 3.0 value reference of the variable at entry `vr`: its own, or for an element
    /// of an array, the array's.
    pub fn fmi3_reference(&self, vr: ValueReference) -> ValueReference {
        match self.get(vr).and_then(|v| self.array_of(v)) {
            Some((array, _)) => array.first,
            None => vr,
        }
    }
}

/// The table's view of the declaration's arrays, each element marked with its array. An
/// array is cut to the parameters that exist (a declaration the export rejects may claim
/// more), so that its entries never reach beyond them.
fn mark_arrays(decl: &Declaration, variables: &mut [ModelVariable]) -> Vec<ArrayVariable> {
    let parameters: Vec<usize> = variables
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.role, Role::Parameter(_)))
        .map(|(entry, _)| entry)
        .collect();
    decl.arrays
        .iter()
        .enumerate()
        .map(|(index, a)| {
            let entries = parameters.get(a.first..).unwrap_or_default();
            let len = a.len.min(entries.len());
            for (element, &entry) in entries[..len].iter().enumerate() {
                variables[entry].array = Some(ArrayElement {
                    array: index,
                    element,
                });
            }
            ArrayVariable {
                name: a.name.clone(),
                shape: a.shape.clone(),
                first: entries.first().map_or(0, |&e| e as ValueReference),
                len,
            }
        })
        .collect()
}

/// The output `'d(y)/d(p)'`: the forward sensitivity of output `y` to parameter `p`, named
/// `d(y)/d(p)` as an FMI quoted name (`'...'`, with `'` and `\` escaped by a backslash), which
/// the structured naming convention of FMI 2.0 and 3.0 admits.
pub fn sensitivity_name(y: &str, p: &str) -> String {
    let escaped = format!("d({y})/d({p})")
        .replace('\\', "\\\\")
        .replace('\'', "\\'");
    format!("'{escaped}'")
}

/// The sensitivity output of `y` to `p` (see [`sensitivity_name`]).
fn sensitivity_var(y: &Var, p: &Var) -> Var {
    Var::new(&sensitivity_name(&y.name, &p.name), 0.0).description(&format!(
        "sensitivity of {} to the parameter {} (co-simulation only)",
        y.name, p.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::Tunability;

    #[test]
    fn value_references_follow_the_declaration_order() {
        let decl = Declaration::new("m", "")
            .state(Var::new("x", 1.0))
            .input(Var::new("u", 0.0))
            .parameter(Var::new("k", 2.0), Tunability::Tunable)
            .output(Var::new("y", 0.0))
            .discrete(
                Var::new("n", 0.0),
                DiscreteType::Integer,
                DiscreteRole::Output,
            )
            .event_indicators(1);
        let table = VariableTable::new(&decl);
        let names: Vec<_> = table.iter().map(|v| v.var.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "time",
                "x",
                "der(x)",
                "u",
                "k",
                "y",
                "n",
                "eventIndicator[1]"
            ]
        );
        assert_eq!(table.vr_of(Role::EventIndicator(0)), Some(7));
        assert_eq!(table.get(2).unwrap().derivative_of, Some(1));
        assert_eq!(table.vr_of(Role::Output(0)), Some(5));
        assert_eq!(table.by_name("n").unwrap().ty, VarType::Integer);
    }

    #[test]
    fn sensitivity_outputs_come_last_and_keep_the_other_value_references() {
        let plain = Declaration::new("m", "")
            .state(Var::new("x", 1.0))
            .parameter(Var::new("k", 2.0), Tunability::Fixed)
            .parameter(Var::new("c", 3.0), Tunability::Fixed)
            .output(Var::new("y", 0.0))
            .output(Var::new("v", 0.0));
        let table = VariableTable::new(&plain.clone().sensitivities(&["c", "k"]));
        let plain_names: Vec<_> = VariableTable::new(&plain)
            .iter()
            .map(|v| v.var.name.clone())
            .collect();
        let names: Vec<_> = table.iter().map(|v| v.var.name.clone()).collect();
        assert_eq!(names[..plain_names.len()], plain_names[..]);
        assert_eq!(
            names[plain_names.len()..],
            ["'d(y)/d(c)'", "'d(v)/d(c)'", "'d(y)/d(k)'", "'d(v)/d(k)'"]
        );
        assert_eq!(sensitivity_name("a'b", "c"), r"'d(a\'b)/d(c)'");
        let dv_dk = table.by_name("'d(v)/d(k)'").unwrap();
        assert_eq!(
            dv_dk.role,
            Role::Sensitivity {
                output: 1,
                sensitivity: 1
            }
        );
        assert_eq!(dv_dk.causality, Causality::Local);
        assert!(!dv_dk.has_start());
    }

    #[test]
    #[should_panic(expected = "`g` is not a declared real parameter")]
    fn sensitivities_of_an_undeclared_parameter_are_rejected() {
        let _ = Declaration::new("m", "")
            .parameter(Var::new("k", 2.0), Tunability::Fixed)
            .sensitivities(&["g"]);
    }

    #[test]
    fn array_elements_are_consecutive_entries_marked_with_their_array() {
        let decl = Declaration::new("m", "")
            .state(Var::new("x", 1.0))
            .parameter(Var::new("k", 2.0), Tunability::Fixed)
            .parameter_array(
                Var::new("A", 0.0),
                &[2, 2],
                &[1.0, 2.0, 3.0, 4.0],
                Tunability::Tunable,
            )
            .output(Var::new("y", 0.0));
        let table = VariableTable::new(&decl);
        assert!(table.has_arrays());
        let [array] = table.arrays() else {
            panic!("one array: {:?}", table.arrays())
        };
        assert_eq!(
            (
                array.name.as_str(),
                &array.shape[..],
                array.first,
                array.len
            ),
            ("A", &[2, 2][..], 4, 4)
        );
        assert_eq!(array.entries(), 4..8);
        let names: Vec<&str> = table
            .elements(array)
            .iter()
            .map(|v| v.var.name.as_str())
            .collect();
        assert_eq!(names, ["A[1,1]", "A[1,2]", "A[2,1]", "A[2,2]"]);
        let a21 = table.by_name("A[2,1]").unwrap();
        assert_eq!(
            (a21.role, a21.variability),
            (Role::Parameter(3), Variability::Tunable)
        );
        assert_eq!(table.array_of(a21).map(|(a, k)| (a.first, k)), Some((4, 2)));
        assert_eq!(table.array_of(table.by_name("k").unwrap()), None);
        assert_eq!(
            [3, 4, 6, 7, 8].map(|vr| table.fmi3_reference(vr)),
            [3, 4, 4, 4, 8]
        );
        assert!(!VariableTable::new(&Declaration::new("m", "")).has_arrays());
    }
}
