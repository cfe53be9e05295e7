//! Step linearizations kept from doStep (`tandemKeepStepLinearizations`, a capability of the
//! adjoint extension): a gradient sweep re-runs a segment of the co-simulation and then asks
//! for the VJP of every step of it, from FMU states saved on the way. Each of those steps was
//! just taken, so doStep linearizes it as it goes (one integration for both) and the step
//! VJP or JVP at the same point finds it here instead of integrating the step again.
//!
//! A kept linearization is used only for a step with bit for bit the arguments it was taken
//! with (time, step size, the integrator's whole state, the input polynomial, parameters and
//! discrete variables): those are all a step reads, so it is the linearization the VJP would
//! compute, and a host that restores another state or sets other inputs gets a fresh one.

use std::collections::VecDeque;

use crate::adjoint::{AdjointError, LinearizedStep};
use crate::instance::lifecycle::Kind;
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::{Integrator, StepInputs, StepReport, System};

/// The linearizations of the latest steps, up to a number the host chose (none by default),
/// and the latest a step JVP made.
#[derive(Default)]
pub struct KeptLinearizations {
    capacity: usize,
    /// Oldest first.
    kept: VecDeque<Kept>,
    /// The linearization of the latest step JVP's step: a host carrying several tangents
    /// through one step (an implicit coupling's Jacobian, forward sensitivities) calls the JVP
    /// once per tangent from the same point, and the step is linearized once.
    jvp: Option<Kept>,
}

/// One step's arguments and linearization.
struct Kept {
    arguments: Arguments,
    step: LinearizedStep,
}

/// Everything a communication step reads.
#[derive(Default)]
struct Arguments {
    t: f64,
    h: f64,
    integrator: Vec<f64>,
    inputs: Vec<f64>,
    input_orders: usize,
    p: Vec<f64>,
    d: Vec<f64>,
}

impl Arguments {
    /// Overwrites these arguments with the given ones, reusing the allocations.
    fn set(
        &mut self,
        t: f64,
        h: f64,
        integrator: &[f64],
        inputs: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) {
        self.t = t;
        self.h = h;
        refill(&mut self.integrator, integrator);
        self.inputs.clear();
        inputs
            .coefficients
            .iter()
            .for_each(|c| self.inputs.extend_from_slice(c));
        self.input_orders = inputs.coefficients.len();
        refill(&mut self.p, p);
        refill(&mut self.d, d);
    }

    /// Whether these are bit for bit the given arguments.
    fn matches(
        &self,
        t: f64,
        h: f64,
        integrator: &[f64],
        inputs: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> bool {
        let flat = inputs.coefficients.iter().flatten();
        same(&[self.t, self.h], &[t, h])
            && same(&self.integrator, integrator)
            && self.input_orders == inputs.coefficients.len()
            && self.inputs.len() == flat.clone().count()
            && self
                .inputs
                .iter()
                .zip(flat)
                .all(|(a, b)| a.to_bits() == b.to_bits())
            && same(&self.p, p)
            && same(&self.d, d)
    }
}

impl KeptLinearizations {
    /// Keeps the linearizations of the next `steps` steps (0: none), dropping those kept.
    pub fn set_capacity(&mut self, steps: usize) {
        self.capacity = steps;
        self.kept.clear();
        self.kept.shrink_to(steps);
        self.jvp = None;
    }

    /// Whether doStep linearizes its steps.
    pub fn on(&self) -> bool {
        self.capacity > 0
    }

    /// The linearization of the step with these arguments, if kept.
    pub fn find(
        &self,
        t: f64,
        h: f64,
        integrator: &[f64],
        inputs: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Option<&LinearizedStep> {
        // Newest first: a sweep asks for the steps it just re-ran, last first.
        self.kept
            .iter()
            .rev()
            .chain(&self.jvp)
            .find(|kept| kept.arguments.matches(t, h, integrator, inputs, p, d))
            .map(|kept| &kept.step)
    }

    /// Arguments storage for the next step: the oldest entry's allocations once full.
    fn recycled(&mut self) -> Arguments {
        if self.kept.len() >= self.capacity {
            if let Some(oldest) = self.kept.pop_front() {
                return oldest.arguments;
            }
        }
        Arguments::default()
    }

    fn push(&mut self, arguments: Arguments, step: LinearizedStep) {
        self.kept.push_back(Kept { arguments, step });
    }

    /// Keeps `step`, linearized for a step JVP with these arguments, in place of the one kept
    /// for the previous JVP.
    fn keep_jvp(
        &mut self,
        (t, h, integrator): (f64, f64, &[f64]),
        inputs: &StepInputs<f64>,
        (p, d): (&[f64], &[f64]),
        step: LinearizedStep,
    ) {
        let mut arguments = self
            .jvp
            .take()
            .map(|kept| kept.arguments)
            .unwrap_or_default();
        arguments.set(t, h, integrator, inputs, p, d);
        self.jvp = Some(Kept { arguments, step });
    }
}

impl<S: System> Instance<S> {
    /// tandemKeepStepLinearizations: from now on, doStep linearizes every step it takes and
    /// keeps the latest `steps` of them for the step VJPs and JVPs (0: none, as at
    /// instantiation). The kept ones are dropped.
    pub fn keep_step_linearizations(&mut self, steps: usize) -> Outcome {
        self.expect_kind(Kind::CoSimulation)?;
        if steps > 0 && self.integrator.discrete_adjoint().is_none() {
            return Err(Problem::error(
                "the model's co-simulation integrator has no discrete adjoint",
            ));
        }
        self.kept.set_capacity(steps);
        Ok(())
    }

    /// The kept linearization of the step of size `h` from the current point with `inputs`.
    pub(super) fn kept_step(&self, h: f64, inputs: &StepInputs<f64>) -> Option<&LinearizedStep> {
        let s = &self.state;
        self.kept
            .find(s.t, h, self.integrator.state(), inputs, &s.p, &s.d)
    }

    /// Keeps `step`, the linearization of the step of size `h` from the current point with
    /// `inputs` that a step JVP made, for the next JVPs from the same point.
    pub(super) fn keep_jvp_step(&mut self, h: f64, inputs: &StepInputs<f64>, step: LinearizedStep) {
        let s = &self.state;
        let point = (s.t, h, self.integrator.state());
        self.kept.keep_jvp(point, inputs, (&s.p, &s.d), step);
    }

    /// Whether doStep linearizes its steps for [`Instance::kept_step`].
    pub(super) fn keeps_linearizations(&self) -> bool {
        self.kept.on()
    }

    /// Takes the step of size `h` from `t` with `inputs`, linearized on the way, and keeps
    /// the linearization.
    pub(super) fn step_keeping_linearization(
        &mut self,
        t: f64,
        h: f64,
        inputs: &StepInputs<f64>,
    ) -> Result<StepReport, String> {
        let mut arguments = self.kept.recycled();
        let s = &mut self.state;
        arguments.set(t, h, self.integrator.state(), inputs, &s.p, &s.d);
        let adjoint = self
            .integrator
            .discrete_adjoint_mut()
            .ok_or("the model's co-simulation integrator has no discrete adjoint")?;
        let (report, step) = adjoint
            .step_and_linearize(&self.sys, t, h, inputs, &s.p, &mut s.d)
            .map_err(|e| match e {
                AdjointError::Step(failure) => failure.to_string(),
                e => e.to_string(),
            })?;
        // A step that cannot be linearized is not kept: its VJP reports why.
        if let Some(step) = step {
            self.kept.push(arguments, step);
        }
        Ok(report)
    }
}

/// `target = source`, reusing `target`'s allocation.
fn refill(target: &mut Vec<f64>, source: &[f64]) {
    target.clear();
    target.extend_from_slice(source);
}

/// Whether `a` and `b` hold the same bits.
fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
