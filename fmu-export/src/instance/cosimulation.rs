//! Co-Simulation: doStep through the model's embedded integrator, FMI 2.0 input
//! derivatives (a Taylor polynomial of the inputs over the step) and output derivatives.

use crate::capabilities::{MAX_INPUT_DERIVATIVE_ORDER, MAX_OUTPUT_DERIVATIVE_ORDER};
use crate::instance::lifecycle::{Kind, Mode};
use crate::instance::logging::Category;
use crate::instance::outcome::{Outcome, Problem, Status};
use crate::instance::{time_tolerance, Instance};
use crate::system::{Integrator, StepInputs, System};
use crate::variables::{Role, ValueReference, VarType};

/// The most internal steps of the declared largest length one communication step may take.
const MAX_INTERNAL_STEPS: f64 = 1e7;

impl<S: System> Instance<S> {
    /// fmiDoStep from `current` (which must be the instance's time) to `current + h`.
    ///
    /// A step the integrator cannot complete, or that ends in a non-finite state, returns
    /// Discard and leaves the instance exactly as before the call (lastSuccessfulTime =
    /// `current`), so the host may retry with a smaller step or restore an FMU state.
    pub fn do_step(&mut self, current: f64, h: f64) -> Outcome {
        self.expect_kind(Kind::CoSimulation)?;
        self.expect_mode(&[Mode::Step])?;
        self.check_step(current, h)?;
        let (t, t_end) = (self.state.t, current + h);
        self.rollback.save(&self.state, self.integrator.state());
        match self.advance(t, h) {
            Ok(events) => {
                if events > 0 {
                    self.log(
                        Status::Ok,
                        Category::Events,
                        &format!("{events} event(s) in the step to t = {t_end}"),
                    );
                }
                self.state.t = t_end;
                self.state.last_successful_time = t_end;
                Ok(())
            }
            Err(reason) => {
                self.rollback.restore(&mut self.state, &mut self.integrator);
                self.touch();
                Err(Problem::discard(format!(
                    "the step from t = {t} to t = {t_end} failed: {reason}; the instance stays at t = {t}"
                )))
            }
        }
    }

    /// An Error unless a communication step of size `h` from `current` may be taken: `h`
    /// positive and finite, `current` the instance's time, and the stop time not passed.
    pub(super) fn check_step(&self, current: f64, h: f64) -> Outcome {
        let t = self.state.t;
        if !(h > 0.0 && h.is_finite()) {
            return Err(Problem::error(format!(
                "communication step size {h} must be positive and finite"
            )));
        }
        if !current.is_finite() || (current - t).abs() > time_tolerance(t) {
            return Err(Problem::error(format!(
                "currentCommunicationPoint = {current} but the instance is at t = {t}"
            )));
        }
        let max_step = self.declaration().cosimulation.max_step;
        if h / max_step > MAX_INTERNAL_STEPS {
            // Beyond this the step could not end in any reasonable time (and the fixed-step
            // grid's step count overflows to infinity, giving steps of length 0).
            return Err(Problem::error(format!(
                "communication step size {h} would take more than {MAX_INTERNAL_STEPS:e} internal \
                 steps of at most {max_step} s"
            )));
        }
        let t_end = current + h;
        if let Some(stop) = self.state.experiment.stop {
            if t_end > stop + time_tolerance(stop) {
                return Err(Problem::error(format!(
                    "a step to t = {t_end} passes the stop time {stop}"
                )));
            }
        }
        Ok(())
    }

    /// Integrates over `[t, t + h]` and moves the inputs and states to the end of the step;
    /// returns the number of events handled, or why the step failed.
    ///
    /// The step's own checks stand for the finiteness of its result: every integrator rejects
    /// a non-finite state, and the mechanical and SDIRK ones non-finite forces or derivatives
    /// along the step (no extra evaluation here just to check them).
    fn advance(&mut self, t: f64, h: f64) -> Result<usize, String> {
        // Taken out of the instance (to lend it alongside `self`), put back after the step.
        let empty = StepInputs {
            t0: t,
            coefficients: Vec::new(),
        };
        let mut inputs = std::mem::replace(&mut self.inputs, empty);
        self.fill_step_inputs(&mut inputs);
        let report = if self.propagates_sensitivities() {
            self.step_with_sensitivities(t, h, &inputs)
        } else if self.keeps_linearizations() {
            self.step_keeping_linearization(t, h, &inputs)
        } else {
            self.integrator
                .do_step(&self.sys, t, h, &inputs, &self.state.p, &mut self.state.d)
                .map_err(|e| e.to_string())
        };
        if report.is_ok() {
            self.sync_states_from_integrator();
            self.state.t = t + h;
            self.shift_inputs(&inputs, h);
        }
        self.inputs = inputs;
        let report = report?;
        self.check_state_finite()
            .map_err(|p| format!("non-finite state: {p}"))?;
        Ok(report.events)
    }

    /// The inputs over the next step: held values plus the derivatives set since, up to the
    /// highest order with a non-zero entry.
    pub(super) fn step_inputs(&self) -> StepInputs<f64> {
        let mut inputs = StepInputs {
            t0: 0.0,
            coefficients: Vec::new(),
        };
        self.fill_step_inputs(&mut inputs);
        inputs
    }

    /// [`Instance::step_inputs`] written into `inputs`, reusing its allocations.
    pub(super) fn fill_step_inputs(&self, inputs: &mut StepInputs<f64>) {
        let s = &self.state;
        let order = s
            .input_derivatives
            .iter()
            .rposition(|d| d.iter().any(|&v| v != 0.0))
            .map_or(0, |k| k + 1);
        inputs.t0 = s.t;
        inputs.coefficients.resize_with(order + 1, Vec::new);
        let sources = std::iter::once(&s.u).chain(&s.input_derivatives[..order]);
        for (coefficient, source) in inputs.coefficients.iter_mut().zip(sources) {
            coefficient.clone_from(source);
        }
    }

    /// Re-expands the input polynomial around the end of the step, so that inputs and their
    /// derivatives (and with them the outputs) refer to the instance's current time.
    fn shift_inputs(&mut self, inputs: &StepInputs<f64>, h: f64) {
        let c = &inputs.coefficients;
        let shifted = |k: usize, i: usize| -> f64 {
            let mut factor = 1.0;
            let mut sum = 0.0;
            for (j, cj) in c.iter().enumerate().skip(k) {
                if j > k {
                    factor *= h / (j - k) as f64;
                }
                sum += factor * cj[i];
            }
            sum
        };
        for i in 0..self.state.u.len() {
            self.state.u[i] = shifted(0, i);
            for k in 1..=self.state.input_derivatives.len() {
                self.state.input_derivatives[k - 1][i] =
                    if k < c.len() { shifted(k, i) } else { 0.0 };
            }
        }
        self.touch();
    }

    /// fmi2SetRealInputDerivatives: `values[k]` is the `orders[k]`-th derivative of input
    /// `vrs[k]` at the current time, used by the following steps.
    pub fn set_input_derivatives(
        &mut self,
        vrs: &[ValueReference],
        orders: &[i32],
        values: &[f64],
    ) -> Outcome {
        self.expect_kind(Kind::CoSimulation)?;
        self.expect_mode(&[Mode::Instantiated, Mode::Initialization, Mode::Step])?;
        check_parallel(vrs.len(), orders.len(), values.len())?;
        let mut writes = Vec::with_capacity(vrs.len());
        for ((&vr, &order), &value) in vrs.iter().zip(orders).zip(values) {
            let var = self.variable(vr, VarType::Real)?;
            let Role::Input(i) = var.role else {
                return Err(Problem::error(format!(
                    "{} (value reference {vr}) is not an input",
                    var.var.name
                )));
            };
            let order = check_order(order, MAX_INPUT_DERIVATIVE_ORDER, &var.var.name)?;
            if !value.is_finite() {
                return Err(Problem::error(format!(
                    "derivative {order} of {} = {value} is not finite",
                    var.var.name
                )));
            }
            writes.push((order, i, value));
        }
        for (order, i, value) in writes {
            self.state.input_derivatives[order - 1][i] = value;
        }
        self.touch();
        Ok(())
    }

    /// fmiGetRealOutputDerivatives / fmi3GetOutputDerivatives: exact time derivatives of
    /// continuous outputs (order 1).
    pub fn output_derivatives(
        &mut self,
        vrs: &[ValueReference],
        orders: &[i32],
        out: &mut [f64],
    ) -> Outcome {
        self.expect_kind(Kind::CoSimulation)?;
        self.expect_mode(&[
            Mode::Initialization,
            Mode::Event,
            Mode::Step,
            Mode::Terminated,
        ])?;
        check_parallel(vrs.len(), orders.len(), out.len())?;
        let mut picks = Vec::with_capacity(vrs.len());
        for (&vr, &order) in vrs.iter().zip(orders) {
            let var = self.variable(vr, VarType::Real)?;
            let Role::Output(i) = var.role else {
                return Err(Problem::error(format!(
                    "{} (value reference {vr}) is not a continuous output",
                    var.var.name
                )));
            };
            check_order(order, MAX_OUTPUT_DERIVATIVE_ORDER, &var.var.name)?;
            picks.push(i);
        }
        let rates = self.output_rates()?;
        for (slot, i) in out.iter_mut().zip(picks) {
            *slot = rates[i];
        }
        Ok(())
    }

    /// The time up to which the last doStep succeeded.
    pub fn last_successful_time(&self) -> f64 {
        self.state.last_successful_time
    }
}

/// An Error unless value references, orders and values have the same length.
fn check_parallel(n_vr: usize, n_orders: usize, n_values: usize) -> Outcome {
    if n_vr == n_orders && n_vr == n_values {
        Ok(())
    } else {
        Err(Problem::error(format!(
            "{n_vr} value references, {n_orders} orders and {n_values} values"
        )))
    }
}

/// `order` as an index, or an Error unless `1 <= order <= max`.
fn check_order(order: i32, max: u32, name: &str) -> Outcome<usize> {
    match u32::try_from(order) {
        Ok(k) if (1..=max).contains(&k) => Ok(k as usize),
        _ => Err(Problem::error(format!(
            "derivative order {order} of {name} is outside 1..={max}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_outside_the_declared_range_are_rejected() {
        assert_eq!(check_order(1, 2, "u"), Ok(1));
        assert_eq!(check_order(2, 2, "u"), Ok(2));
        assert!(check_order(0, 2, "u").is_err());
        assert!(check_order(3, 2, "u").is_err());
        assert!(check_order(-1, 2, "u").is_err());
    }
}
