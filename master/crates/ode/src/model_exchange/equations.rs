//! A Model Exchange FMU's continuous-time equations as the master's solvers see them: the
//! state derivatives at `(t, x)`, and their Jacobian from the FMU's directional derivatives
//! when it provides them.

use super::sparsity::declared_sparsity;
use super::stepper::Inputs;
use crate::error::{Error, Result};
use crate::solver::{forward_differences, Jacobian, Ode, Sparsity};
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{element_names, ModelDescription, Shapes};

/// The continuous states and their derivatives in the order of the state vector.
pub(super) struct StateVariables {
    /// Value references of the states.
    states: Vec<u32>,
    /// Value references of the derivatives.
    derivatives: Vec<u32>,
    /// Names of the derivatives (for messages).
    derivative_names: Vec<String>,
    /// Names of the states (for messages).
    state_names: Vec<String>,
    /// Whether the Jacobian comes from the FMU's directional derivatives.
    directional: bool,
    /// The Jacobian's pattern as the ModelStructure declares it (dense without one).
    sparsity: Option<Sparsity>,
}

impl StateVariables {
    /// The states of `md`; directional derivatives are used when the Model Exchange interface
    /// provides them and every state resolves to a variable.
    pub(super) fn new(md: &ModelDescription) -> Self {
        let mut variables = StateVariables {
            states: Vec::new(),
            derivatives: Vec::new(),
            derivative_names: Vec::new(),
            state_names: Vec::new(),
            directional: md
                .model_exchange
                .as_ref()
                .is_some_and(|me| me.capabilities.provides_directional_derivatives),
            sparsity: declared_sparsity(md),
        };
        let shapes = Shapes::new(md);
        for (index, (unknown, state)) in md
            .model_structure
            .derivatives
            .iter()
            .zip(md.states())
            .enumerate()
        {
            let derivative = md.resolve(unknown.reference).map(|d| &md.variables[d]);
            let state = state.map(|s| &md.variables[s]);
            match (derivative, state) {
                (Some(derivative), Some(state)) => {
                    variables.derivatives.push(derivative.value_reference);
                    variables.states.push(state.value_reference);
                    // An array state is one entry of the state vector per element.
                    let shape = shapes.of(state).unwrap_or_default();
                    variables
                        .derivative_names
                        .extend(element_names(&derivative.name, &shape));
                    variables
                        .state_names
                        .extend(element_names(&state.name, &shape));
                }
                _ => {
                    variables.directional = false;
                    variables
                        .derivative_names
                        .push(format!("the derivative of state {}", index + 1));
                    variables.state_names.push(format!("state {}", index + 1));
                }
            }
        }
        variables
    }

    /// The name of state `index` (by number when structural parameters set in Configuration
    /// Mode gave the FMU more states than the model description's start values).
    pub(super) fn state_name(&self, index: usize) -> String {
        self.state_names
            .get(index)
            .cloned()
            .unwrap_or_else(|| format!("state {}", index + 1))
    }

    /// The name of the derivative of state `index`, as [`StateVariables::state_name`].
    fn derivative_name(&self, index: usize) -> String {
        self.derivative_names
            .get(index)
            .cloned()
            .unwrap_or_else(|| format!("the derivative of state {}", index + 1))
    }
}

/// A non-finite derivative returned by the FMU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFinite {
    /// The time it was evaluated at.
    pub time: f64,
    /// The index of the derivative in the state vector.
    pub index: usize,
    /// The value.
    pub value: f64,
}

impl NonFinite {
    /// `der(x) = NaN at t = 1.5`.
    pub(super) fn describe(&self, variables: &StateVariables) -> String {
        format!(
            "{} = {} at t = {}",
            variables.derivative_name(self.index),
            self.value,
            self.time
        )
    }
}

/// The FMU's equations during one solver call: sets time, inputs and states, reads
/// derivatives, and counts the FMI calls it makes.
pub(super) struct Equations<'s, 'i> {
    /// The instance, in continuous-time mode.
    pub instance: &'s mut dyn FmuInstance,
    /// Writes the inputs at a time.
    pub inputs: &'s mut Inputs<'i>,
    /// The states and derivatives.
    pub variables: &'s StateVariables,
    /// The first non-finite derivative seen since it was last cleared: the solver treats it as
    /// a failed step, and the stepper reports it if no smaller step avoids it.
    pub non_finite: &'s mut Option<NonFinite>,
    /// FMI calls made.
    pub calls: &'s mut usize,
}

impl Equations<'_, '_> {
    /// Puts the FMU at `(time, states)`, with its inputs at `time`.
    pub(super) fn set_point(&mut self, time: f64, states: &[f64]) -> Result<()> {
        put(self.instance, self.calls, time, states, self.inputs)
    }
}

/// Puts `instance` at `time` with `states` (when it has any) and its inputs there, counting
/// the calls.
pub(super) fn put(
    instance: &mut dyn FmuInstance,
    calls: &mut usize,
    time: f64,
    states: &[f64],
    inputs: &mut Inputs<'_>,
) -> Result<()> {
    *calls += 1;
    instance.set_time(time)?;
    inputs(instance, time, false)?;
    if !states.is_empty() {
        *calls += 1;
        instance.set_continuous_states(states)?;
    }
    Ok(())
}

impl Ode for Equations<'_, '_> {
    type Error = Error;

    fn sparsity(&self) -> Option<&Sparsity> {
        self.variables.sparsity.as_ref()
    }

    fn derivatives(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<()> {
        self.set_point(t, x)?;
        *self.calls += 1;
        self.instance.get_derivatives(dx)?;
        if self.non_finite.is_none() {
            if let Some(index) = dx.iter().position(|v| !v.is_finite()) {
                *self.non_finite = Some(NonFinite {
                    time: t,
                    index,
                    value: dx[index],
                });
            }
        }
        Ok(())
    }

    fn jacobian(
        &mut self,
        t: f64,
        x: &[f64],
        fx: &[f64],
        typical: &[f64],
        jacobian: &mut Jacobian,
    ) -> Result<()> {
        if !self.variables.directional {
            return forward_differences(self, t, x, fx, typical, jacobian);
        }
        self.set_point(t, x)?;
        let n = x.len();
        let mut seed = vec![0.0; n];
        let mut product = vec![0.0; n];
        // One directional derivative per colour, seeded by the colour's unit vectors.
        for colour in 0..jacobian.colours() {
            for &j in jacobian.columns(colour) {
                seed[j] = 1.0;
            }
            *self.calls += 1;
            self.instance.get_directional_derivative(
                &self.variables.derivatives,
                &self.variables.states,
                &seed,
                &mut product,
            )?;
            for &j in jacobian.columns(colour) {
                seed[j] = 0.0;
            }
            jacobian.store(colour, &product, |_| 1.0);
        }
        Ok(())
    }
}
