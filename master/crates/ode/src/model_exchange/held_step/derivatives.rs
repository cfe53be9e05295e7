//! The step derivatives of a [`HeldInputStep`]: the step from `t_k` with inputs `u_k` held,
//! `x_{k+1} = Phi(x_k, u_k, p)`, is the chain of the solver's accepted steps, each a
//! Runge–Kutta recurrence over the FMU's right-hand side `f(x, u, p)` (explicit Dormand–Prince
//! steps, or implicit ESDIRK steps where auto found the problem stiff); its outputs are
//! `y_{k+1} = g(x_{k+1}, u_k, p)`. The tangent and adjoint go through the recurrences with
//! the step sizes and methods the solver took ([`crate::solver::StepLinearization`]) and the
//! FMU's partial derivatives at every stage (at an implicit stage also the state Jacobian,
//! column by column), so they are the derivatives of exactly the states the step computes
//! (for implicit stages: of the exact solution of the stage equations, which the solver's
//! Newton iteration meets to well within the tolerance). To know the stages, the step is taken again from the current point (the FMU's
//! state and the solver's are restored after).
//!
//! The discrete state `w` is the continuous state vector. Steps with an event are not
//! differentiated (FMI gives no derivative of an event's reset): the components that could
//! have state events are not integrated this way, and a time event inside a step is an error.

use std::cell::RefCell;

use nalgebra::{DMatrix, DVector};

use super::{HeldInputStep, Saved};
use crate::error::{Error, Result};
use crate::model_exchange::partials::Equation;
use crate::model_exchange::Reached;
use crate::solver::StepLinearization;
use fmi_host::instance::{DerivativeLayout, StepDerivatives};

/// The step taken again: its solver steps and where it ended.
struct Retraced {
    steps: Vec<StepLinearization>,
    end_time: f64,
    end_states: Vec<f64>,
}

impl HeldInputStep {
    /// Takes the step of length `step` from the current point again, recording the solver's
    /// steps, runs `with` on them and goes back to the current point.
    fn retraced<R>(
        &mut self,
        step: f64,
        with: impl FnOnce(&mut Self, &Retraced) -> Result<R>,
    ) -> Result<R> {
        let saved = self.save()?;
        let result = self
            .retrace(step)
            .and_then(|retraced| with(self, &retraced));
        let restored = self.restore(&saved);
        let Saved { fmu, .. } = saved;
        let freed = self.fmu_instance().free_fmu_state(fmu);
        let result = result?;
        restored?;
        freed?;
        Ok(result)
    }

    fn retrace(&mut self, step: f64) -> Result<Retraced> {
        let start = self.stepper.time();
        let events = self.stepper.statistics().events;
        let mut steps = Vec::new();
        let reached = self
            .stepper
            .advance_visiting(start + step, &mut super::hold, |solver| {
                steps.push(solver.last_step())
            })?;
        if reached != Reached::Target || self.stepper.statistics().events != events {
            return Err(Error::Simulation {
                time: start,
                message: format!(
                    "instance {}: the step from t = {start} has an event or ends the simulation; \
                     its derivatives are not defined through the Model Exchange interface",
                    self.name
                ),
            });
        }
        Ok(Retraced {
            steps,
            end_time: self.stepper.time(),
            end_states: self.stepper.states().to_vec(),
        })
    }

    /// Puts the FMU at `(time, states)`; its inputs stay as set.
    fn put(&mut self, time: f64, states: &[f64]) -> Result<()> {
        let fmu = self.fmu_instance();
        fmu.set_time(time)?;
        if !states.is_empty() {
            fmu.set_continuous_states(states)?;
        }
        Ok(())
    }

    /// `J^T seed` of `equation` at the FMU's current point, split into the adjoints of the
    /// states (written) and of the inputs and parameters (added).
    fn transpose_product(
        &mut self,
        equation: Equation,
        seed: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let mut bar = vec![0.0; self.partials.known_count()];
        self.partials
            .vjp(self.stepper.instance(), equation, seed, &mut bar)?;
        let (states, rest) = bar.split_at(self.stepper.state_count());
        let (inputs, parameters) = rest.split_at(bar_inputs.len());
        bar_state.copy_from_slice(states);
        add(bar_inputs, inputs);
        add(bar_parameters, parameters);
        Ok(())
    }

    /// `df/dx` at `(time, states)`, column by column from directional derivatives (for the
    /// implicit stages of the solver, whose derivatives solve a system with it).
    fn state_jacobian(
        &mut self,
        time: f64,
        states: &[f64],
        jacobian: &mut DMatrix<f64>,
    ) -> Result<()> {
        self.put(time, states)?;
        let n = states.len();
        let (inputs, parameters) = (
            vec![0.0; self.layout.inputs.len()],
            vec![0.0; self.layout.parameters.len()],
        );
        let (mut seed, mut column) = (vec![0.0; n], vec![0.0; n]);
        for j in 0..n {
            seed[j] = 1.0;
            self.product(
                Equation::Derivatives,
                &seed,
                &inputs,
                &parameters,
                &mut column,
            )?;
            jacobian.set_column(j, &DVector::from_column_slice(&column));
            seed[j] = 0.0;
        }
        Ok(())
    }

    /// `J (state, inputs, parameters)` of `equation` at the FMU's current point.
    fn product(
        &mut self,
        equation: Equation,
        state: &[f64],
        inputs: &[f64],
        parameters: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        let seed: Vec<f64> = [state, inputs, parameters].concat();
        self.partials
            .jvp(self.stepper.instance(), equation, &seed, out)
    }
}

fn add(to: &mut [f64], values: &[f64]) {
    for (t, v) in to.iter_mut().zip(values) {
        *t += v;
    }
}

impl StepDerivatives for HeldInputStep {
    fn layout(&self) -> DerivativeLayout {
        self.layout.clone()
    }

    fn state_size(&mut self) -> fmi_host::Result<usize> {
        Ok(self.stepper.state_count())
    }

    fn step_jvp(
        &mut self,
        step: f64,
        d_state: &[f64],
        d_inputs: &[f64],
        d_parameters: &[f64],
        d_state_next: &mut [f64],
        d_outputs_next: &mut [f64],
    ) -> fmi_host::Result<()> {
        Ok(self.retraced(step, |this, retraced| {
            let mut d_state = d_state.to_vec();
            let shared = RefCell::new(&mut *this);
            for linear in &retraced.steps {
                d_state = linear.tangent(
                    &d_state,
                    |_, t, stage, d_stage, dk| {
                        let mut this = shared.borrow_mut();
                        this.put(t, stage)?;
                        this.product(Equation::Derivatives, d_stage, d_inputs, d_parameters, dk)
                    },
                    |_, t, stage, jacobian| shared.borrow_mut().state_jacobian(t, stage, jacobian),
                )?;
            }
            d_state_next.copy_from_slice(&d_state);
            this.put(retraced.end_time, &retraced.end_states)?;
            this.product(
                Equation::Outputs,
                &d_state,
                d_inputs,
                d_parameters,
                d_outputs_next,
            )
        })?)
    }

    fn step_vjp(
        &mut self,
        step: f64,
        bar_state_next: &[f64],
        bar_outputs_next: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> fmi_host::Result<()> {
        bar_inputs.fill(0.0);
        bar_parameters.fill(0.0);
        Ok(self.retraced(step, |this, retraced| {
            this.put(retraced.end_time, &retraced.end_states)?;
            let mut bar = vec![0.0; this.stepper.state_count()];
            this.transpose_product(
                Equation::Outputs,
                bar_outputs_next,
                &mut bar,
                bar_inputs,
                bar_parameters,
            )?;
            add(&mut bar, bar_state_next);
            let shared = RefCell::new(&mut *this);
            for linear in retraced.steps.iter().rev() {
                bar = linear.adjoint(
                    &bar,
                    |_, t, stage, bar_k, bar_stage| {
                        let mut this = shared.borrow_mut();
                        this.put(t, stage)?;
                        this.transpose_product(
                            Equation::Derivatives,
                            bar_k,
                            bar_stage,
                            bar_inputs,
                            bar_parameters,
                        )
                    },
                    |_, t, stage, jacobian| shared.borrow_mut().state_jacobian(t, stage, jacobian),
                )?;
            }
            bar_state.copy_from_slice(&bar);
            Ok(())
        })?)
    }

    fn output_vjp(
        &mut self,
        bar_outputs: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> fmi_host::Result<()> {
        bar_inputs.fill(0.0);
        bar_parameters.fill(0.0);
        Ok(self.transpose_product(
            Equation::Outputs,
            bar_outputs,
            bar_state,
            bar_inputs,
            bar_parameters,
        )?)
    }

    /// The initial states do not depend on the inputs or on the parameters in the layout
    /// ([`super::layout`] excludes the parameters they depend on), so only the outputs'
    /// dependence on them remains.
    fn initialization_vjp(
        &mut self,
        _bar_state: &[f64],
        bar_outputs: &[f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> fmi_host::Result<()> {
        let mut bar_state = vec![0.0; self.stepper.state_count()];
        self.output_vjp(bar_outputs, &mut bar_state, bar_inputs, bar_parameters)
    }
}
