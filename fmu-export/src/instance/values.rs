//! Getting and setting variables by value reference, with the FMI causality/variability
//! rules about when a variable may be set, and its min/max bounds.

use crate::instance::lifecycle::Mode;
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::System;
use crate::variables::{Causality, ModelVariable, Role, ValueReference, VarType, Variability};

/// A C value type that maps onto one of the model's variable types.
pub trait FmiValue: Copy {
    /// The variable type this value type reads and writes.
    const TYPE: VarType;
    /// The value as stored (discrete variables are stored as `f64`).
    fn to_store(self) -> f64;
    /// The stored value in this type.
    fn from_store(value: f64) -> Self;
}

impl FmiValue for f64 {
    const TYPE: VarType = VarType::Real;
    fn to_store(self) -> f64 {
        self
    }
    fn from_store(value: f64) -> Self {
        value
    }
}

impl FmiValue for i32 {
    const TYPE: VarType = VarType::Integer;
    fn to_store(self) -> f64 {
        f64::from(self)
    }
    fn from_store(value: f64) -> Self {
        value as i32
    }
}

impl FmiValue for bool {
    const TYPE: VarType = VarType::Boolean;
    fn to_store(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn from_store(value: f64) -> Self {
        value != 0.0
    }
}

/// Modes in which start values and fixed parameters may be set.
const BEFORE_INITIALIZATION_ENDS: &[Mode] = &[Mode::Instantiated, Mode::Initialization];
/// Modes in which tunable parameters may be set.
const TUNABLE: &[Mode] = &[
    Mode::Instantiated,
    Mode::Initialization,
    Mode::Event,
    Mode::Step,
];
/// Modes in which inputs may be set.
const INPUT: &[Mode] = &[
    Mode::Instantiated,
    Mode::Initialization,
    Mode::Event,
    Mode::ContinuousTime,
    Mode::Step,
];

impl<S: System> Instance<S> {
    /// The variable with value reference `vr`, checked to be of type `ty`.
    pub(crate) fn variable(&self, vr: ValueReference, ty: VarType) -> Outcome<&ModelVariable> {
        let var = self
            .table
            .get(vr)
            .ok_or_else(|| Problem::error(format!("unknown value reference {vr}")))?;
        if var.ty != ty {
            return Err(Problem::error(format!(
                "value reference {vr} ({}) is a {:?} variable, not {:?}",
                var.var.name, var.ty, ty
            )));
        }
        Ok(var)
    }

    /// fmiGetReal/Integer/Boolean (fmi3GetFloat64/Int32/Boolean): `out[k]` receives the
    /// value of `vrs[k]`. Nothing is written unless every reference is valid.
    pub fn get_values<V: FmiValue>(&mut self, vrs: &[ValueReference], out: &mut [V]) -> Outcome {
        check_lengths(vrs.len(), out.len())?;
        self.get_values_with(vrs, |k, value| out[k] = value)
    }

    /// [`Instance::get_values`] handing the value of `vrs[k]` to `write(k, value)`, for a
    /// caller whose array holds another type (a C boolean). Nothing is handed over unless
    /// every reference is valid.
    ///
    /// The references are looked up twice (checked, then read) rather than their roles kept:
    /// a lookup is an index, and a list of roles would be allocated for a call with many.
    pub fn get_values_with<V: FmiValue>(
        &mut self,
        vrs: &[ValueReference],
        mut write: impl FnMut(usize, V),
    ) -> Outcome {
        for &vr in vrs {
            self.variable(vr, V::TYPE)?;
        }
        for (k, &vr) in vrs.iter().enumerate() {
            let role = self.variable(vr, V::TYPE)?.role;
            write(k, V::from_store(self.value_of(role)?));
        }
        Ok(())
    }

    /// fmiSetReal/Integer/Boolean (fmi3SetFloat64/Int32/Boolean). The call is all or
    /// nothing: every reference, mode rule and bound is checked before anything changes.
    pub fn set_values<V: FmiValue>(&mut self, vrs: &[ValueReference], values: &[V]) -> Outcome {
        check_lengths(vrs.len(), values.len())?;
        self.set_values_with(vrs, |k| values[k])
    }

    /// [`Instance::set_values`] with the value for `vrs[k]` given by `value_at(k)`, for a caller
    /// whose array holds another type (a C boolean); all or nothing as well.
    ///
    /// Every reference is checked, then looked up again to write (see
    /// [`Instance::get_values_with`]).
    pub fn set_values_with<V: FmiValue>(
        &mut self,
        vrs: &[ValueReference],
        value_at: impl Fn(usize) -> V,
    ) -> Outcome {
        for (k, &vr) in vrs.iter().enumerate() {
            let var = self.variable(vr, V::TYPE)?;
            self.check_settable(var)?;
            check_bounds(var, value_at(k).to_store())?;
        }
        for (k, &vr) in vrs.iter().enumerate() {
            let role = self.variable(vr, V::TYPE)?.role;
            let value = value_at(k).to_store();
            let s = &mut self.state;
            match role {
                Role::State(i) => s.x[i] = value,
                Role::Input(i) => s.u[i] = value,
                Role::Parameter(i) => s.p[i] = value,
                Role::Discrete(i) => s.d[i] = value,
                Role::Time
                | Role::Derivative(_)
                | Role::Output(_)
                | Role::EventIndicator(_)
                | Role::Sensitivity { .. } => {
                    unreachable!("check_settable rejects calculated variables")
                }
                Role::StringParameter(_) | Role::StringOutput(_) => {
                    unreachable!("`variable` rejects String variables for numeric types")
                }
            }
        }
        self.touch();
        Ok(())
    }

    /// The current value of the variable playing `role`.
    fn value_of(&mut self, role: Role) -> Outcome<f64> {
        let s = &self.state;
        Ok(match role {
            Role::Time => s.t,
            Role::State(i) => s.x[i],
            Role::Input(i) => s.u[i],
            Role::Parameter(i) => s.p[i],
            Role::Discrete(i) => s.d[i],
            Role::Derivative(i) => self.derivatives()?[i],
            Role::Output(i) => self.outputs()?[i],
            Role::EventIndicator(i) => self.indicators()?[i],
            Role::StringParameter(_) | Role::StringOutput(_) => {
                unreachable!("`variable` rejects String variables for numeric types")
            }
            Role::Sensitivity {
                output,
                sensitivity,
            } => {
                let ny = self.declaration().outputs.len();
                let name = self.name_of(role).to_owned();
                let values = self.output_sensitivities().map_err(|problem| Problem {
                    message: format!("{name}: {}", problem.message),
                    ..problem
                })?;
                values[sensitivity * ny + output]
            }
        })
    }

    /// Whether `var` may be set in the current mode (FMI 2.0 section 3.2.3 / FMI 3.0
    /// section 2.2.4, for the kinds of variables Tandem declares).
    pub(crate) fn check_settable(&self, var: &ModelVariable) -> Outcome {
        let name = &var.var.name;
        let (allowed, what) = match (var.role, var.causality, var.variability) {
            (Role::Time, ..) => {
                return Err(Problem::error(format!(
                    "{name} is the independent variable; it cannot be set"
                )))
            }
            (
                Role::Derivative(_)
                | Role::Output(_)
                | Role::EventIndicator(_)
                | Role::Sensitivity { .. }
                | Role::StringOutput(_),
                ..,
            )
            | (_, Causality::Output, _) => {
                return Err(Problem::error(format!(
                    "{name} is calculated by the model; it cannot be set"
                )))
            }
            (Role::Input(_), ..) => (INPUT, "input"),
            (Role::Parameter(_), _, Variability::Tunable) => (TUNABLE, "tunable parameter"),
            (Role::StringParameter(_), ..) => (BEFORE_INITIALIZATION_ENDS, "String parameter"),
            (Role::Parameter(_), ..) | (_, Causality::Parameter, _) => {
                (BEFORE_INITIALIZATION_ENDS, "fixed parameter")
            }
            (Role::State(_), ..) => (
                BEFORE_INITIALIZATION_ENDS,
                "continuous state (use setContinuousStates)",
            ),
            (Role::Discrete(_), ..) => (BEFORE_INITIALIZATION_ENDS, "discrete variable"),
        };
        if allowed.contains(&self.state.mode) {
            return Ok(());
        }
        let modes: Vec<_> = allowed.iter().map(|m| m.name()).collect();
        Err(Problem::error(format!(
            "{name} is a {what} and cannot be set in {} (only in: {})",
            self.state.mode.name(),
            modes.join(", ")
        )))
    }
}

/// An Error unless the value array has one entry per value reference.
fn check_lengths(n_vr: usize, n_values: usize) -> Outcome {
    if n_vr == n_values {
        Ok(())
    } else {
        Err(Problem::error(format!(
            "{n_values} values for {n_vr} value references (only scalar variables exist)"
        )))
    }
}

/// An Error if `value` is not finite or lies outside the variable's min/max.
fn check_bounds(var: &ModelVariable, value: f64) -> Outcome {
    let name = &var.var.name;
    if !value.is_finite() {
        return Err(Problem::error(format!(
            "{name} = {value} is not a finite value"
        )));
    }
    if let Some(min) = var.var.min {
        if value < min {
            return Err(Problem::error(format!(
                "{name} = {value} is below its minimum {min}"
            )));
        }
    }
    if let Some(max) = var.var.max {
        if value > max {
            return Err(Problem::error(format!(
                "{name} = {value} is above its maximum {max}"
            )));
        }
    }
    Ok(())
}
