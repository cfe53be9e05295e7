//! Forward sensitivity outputs `d(y)/d(p)` (declared with
//! [`Declaration::sensitivities`](crate::Declaration::sensitivities)) in Co-Simulation.
//!
//! The instance carries `S = dw/dp`, the sensitivity of the integrator's discrete state `w` (the
//! adjoint extension's state: HHT `[q, v, a, lambda]`, symplectic Euler `[q, v]`, ESDIRK `x`)
//! to every listed parameter. `exitInitializationMode` starts it from the consistent start's
//! `dw0/dp`; every doStep maps it through the exact linearization of that step
//! ([`LinearizedStep::jvp`]), event times and reset maps included; a read returns
//! `dy/dp = Y_w S + Y_p` at the current point. `S` lives in the instance's dynamic state, so a
//! discarded step and the FMU state functions roll it back with everything else. Models
//! without sensitivities pay nothing.

use crate::adjoint::{AdjointError, DiscreteAdjoint};
use crate::instance::dynamic::DynamicState;
use crate::instance::lifecycle::Kind;
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::{Integrator, StepInputs, StepReport, System};

impl<S: System> Instance<S> {
    /// Whether the model declares sensitivity outputs and the instance propagates them.
    pub(super) fn propagates_sensitivities(&self) -> bool {
        self.kind == Kind::CoSimulation && !self.declaration().sensitivities.is_empty()
    }

    /// At the end of initialization (integrator just started): `S = dw0/dp` of the
    /// consistent start; nothing without declared sensitivities.
    pub(super) fn start_sensitivities(&mut self) -> Outcome {
        if !self.propagates_sensitivities() {
            return Ok(());
        }
        let s = &self.state;
        let adjoint = self
            .integrator
            .discrete_adjoint()
            .ok_or_else(no_discrete_adjoint)?;
        let nw = adjoint.adjoint_state().len();
        let start = adjoint
            .linearize_start(&self.sys, s.t, &StepInputs::held(s.t, &s.u), &s.p, &s.d)
            .map_err(|e| {
                Problem::error(format!(
                    "the start at t = {} cannot be linearized for the sensitivities: {e}",
                    s.t
                ))
            })?;
        let columns = &self.declaration().sensitivities;
        let sensitivities = columns
            .iter()
            .flat_map(|&j| start.start.params.column(j)[..nw].to_vec())
            .collect();
        self.state.sensitivities = sensitivities;
        Ok(())
    }

    /// Takes the step of size `h` from `t` with `inputs` once, linearized on the way, and maps
    /// `S <- dw_next/dw S + dw_next/dp` through it.
    pub(super) fn step_with_sensitivities(
        &mut self,
        t: f64,
        h: f64,
        inputs: &StepInputs<f64>,
    ) -> Result<StepReport, String> {
        let adjoint = self
            .integrator
            .discrete_adjoint_mut()
            .ok_or_else(|| no_discrete_adjoint().message)?;
        let state = &mut self.state;
        let step = StepArguments {
            t,
            h,
            inputs,
            p: &state.p,
        };
        let columns = &self.sys.declaration().sensitivities;
        let report = step_sensitivities(
            adjoint,
            &self.sys,
            step,
            &mut state.d,
            columns,
            &mut state.sensitivities,
        )?;
        self.touch();
        Ok(report)
    }

    /// `d(y[i])/d(p)` of the `k`-th listed parameter at `k * ny + i`, at the current point
    /// (cached); an Error in Model Exchange and before the integrator has started.
    pub(crate) fn output_sensitivities(&mut self) -> Outcome<&[f64]> {
        if self.kind != Kind::CoSimulation {
            return Err(Problem::error(
                "sensitivity outputs d(y)/d(p) are propagated by the co-simulation integrator; \
                 Model Exchange cannot provide them (record only the other outputs)",
            ));
        }
        if !self.state.integrator_ready {
            return Err(Problem::error(
                "sensitivity outputs d(y)/d(p) are available after exitInitializationMode",
            ));
        }
        if self.cache.dy_dp.is_none() {
            let s = &self.state;
            let adjoint = self
                .integrator
                .discrete_adjoint()
                .ok_or_else(no_discrete_adjoint)?;
            let outputs =
                adjoint.linearize_outputs(&self.sys, s.t, &self.step_inputs(), &s.p, &s.d);
            let linear = &outputs.outputs;
            let (nw, np) = (outputs.state_len, s.p.len());
            let du = vec![0.0; linear.inputs.cols()];
            let mut dw = vec![0.0; linear.state.cols()];
            let mut values = Vec::new();
            for (k, &j) in self.declaration().sensitivities.iter().enumerate() {
                dw[..nw].copy_from_slice(&s.sensitivities[k * nw..(k + 1) * nw]);
                values.extend(linear.jvp(&dw, &du, &unit(np, j)));
            }
            if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                return Err(Problem::error(format!(
                    "sensitivity output {i} = {} at t = {} is not finite",
                    values[i], s.t
                )));
            }
            self.cache.dy_dp = Some(values);
        }
        Ok(self.cache.dy_dp.as_deref().expect("filled above"))
    }

    /// An Error unless the sensitivities of `state`, about to be restored, fit the
    /// integrator's state.
    pub(super) fn check_sensitivity_layout(&self, state: &DynamicState) -> Outcome {
        let expected = if self.propagates_sensitivities() && state.integrator_ready {
            let nw = self
                .integrator
                .discrete_adjoint()
                .map_or(0, |a| a.adjoint_state().len());
            nw * self.declaration().sensitivities.len()
        } else {
            0
        };
        let given = state.sensitivities.len();
        if given == expected {
            Ok(())
        } else {
            Err(Problem::error(format!(
                "the FMU state holds {given} sensitivity entries, this instance expects {expected}"
            )))
        }
    }
}

/// One step's arguments: from `t` over `h` with `inputs` and parameters `p`.
#[derive(Clone, Copy)]
pub struct StepArguments<'a> {
    /// The step's start time.
    pub t: f64,
    /// The step size.
    pub h: f64,
    /// The inputs over the step.
    pub inputs: &'a StepInputs<f64>,
    /// The parameter values.
    pub p: &'a [f64],
}

/// Takes `step` once through `adjoint`, linearized on the way, and maps the sensitivities `s`
/// of the discrete state (one block per listed parameter index in `columns`) through it:
/// `S <- dw_next/dw S + dw_next/dp`. What a Co-Simulation instance with sensitivity outputs
/// does at every step (public for benchmarks that compare the C ABI with the same work done
/// directly).
pub fn step_sensitivities<S: System>(
    adjoint: &mut dyn DiscreteAdjoint<S>,
    sys: &S,
    step: StepArguments<'_>,
    d: &mut [f64],
    columns: &[usize],
    s: &mut [f64],
) -> Result<StepReport, String> {
    let (report, linearized) = adjoint
        .step_linearized(sys, step.t, step.h, step.inputs, step.p, d)
        .map_err(|e| match e {
            AdjointError::Step(failure) => failure.to_string(),
            e => format!("the step cannot be linearized for the sensitivities: {e}"),
        })?;
    let np = step.p.len();
    let nw = linearized.state_len;
    let du = vec![0.0; linearized.step.inputs_len()];
    for (k, &j) in columns.iter().enumerate() {
        let column = &mut s[k * nw..(k + 1) * nw];
        let (next, _) = linearized.jvp(column, &du, &unit(np, j));
        column.copy_from_slice(&next);
    }
    Ok(report)
}

/// The Error of a model that declares sensitivities but whose integrator cannot linearize.
fn no_discrete_adjoint() -> Problem {
    Problem::error(
        "the model declares sensitivity outputs, but its co-simulation integrator has no discrete adjoint",
    )
}

/// The `j`-th unit vector of length `n`.
fn unit(n: usize, j: usize) -> Vec<f64> {
    let mut e = vec![0.0; n];
    e[j] = 1.0;
    e
}
