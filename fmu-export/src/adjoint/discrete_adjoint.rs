//! The linearizations of an integrator at its current state, which an FMU instance exports
//! through the adjoint extension: the communication step with the outputs at its end, the
//! consistent start with the outputs at it, and the outputs alone.
//!
//! The extension's discrete state `w` is the method state's leading
//! [`carried_len`](DifferentiableScheme::carried_len) entries: all that the next step, the
//! outputs and a restart after an event read (HHT: `[q, v, a, lambda]`, symplectic Euler
//! `[q, v]`, ESDIRK: `x`). The rest of the residual's unknowns (ESDIRK's stage derivatives) is
//! differentiated inside a step but influences nothing after it, so it is left out: its
//! derivatives would hold the accepted step sizes fixed where nothing downstream needs them.
//!
//! [`DiscreteAdjoint`] is object safe so that [`Integrator::discrete_adjoint`] can offer it
//! without the instance knowing the integrator's scheme.

use crate::integrators::tape::Tape;
use crate::integrators::{DifferentiableScheme, SchemeIntegrator};
use crate::system::{Integrator, StepInputs, StepReport, System};

use super::communication::CommunicationLinearization;
use super::error::AdjointError;
use super::initial::InitialLinearization;
use super::outputs::OutputLinearization;
use super::step::EventTimeSensitivity;
use super::vjp_buffers::VjpBuffers;
use super::Cotangents;

/// An integrator's linearizations at its current discrete state.
///
/// The discrete state `w` of the tangents and adjoints is the method state's carried entries
/// (see the module documentation); inputs are the flat coefficients of the input polynomial
/// passed in ([`flatten_inputs`](super::flatten_inputs)).
pub trait DiscreteAdjoint<S: System> {
    /// The current discrete state `w`.
    fn adjoint_state(&self) -> &[f64];

    /// The communication step from the current state, at time `t`, of length `h`, with the
    /// inputs `u`, parameters `p` and discrete variables `d`: recorded on a copy of the
    /// integrator (the integrator itself is unchanged) and linearized, located events included;
    /// the outputs at its end only if `outputs` asks for them.
    #[allow(clippy::too_many_arguments)]
    fn linearize_step(
        &self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        outputs: EndOutputs,
    ) -> Result<LinearizedStep, AdjointError>;

    /// [`linearize_step`](Self::linearize_step) into `target`, reusing its allocations (and
    /// this integrator's step buffers instead of a copy's: the step is taken on this
    /// integrator, whose state is then put back bit for bit). `scratch` keeps that state and
    /// the discrete variables meanwhile. After an error `target` holds no linearization.
    #[allow(clippy::too_many_arguments)]
    fn relinearize_step(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        outputs: EndOutputs,
        scratch: &mut StepScratch,
    ) -> Result<(), AdjointError>;

    /// Takes the communication step on this integrator, as [`Integrator::do_step`] does
    /// (committing it and `d`), and returns its linearization too: one integration serves
    /// both, where [`linearize_step`](Self::linearize_step) integrates a copy.
    #[allow(clippy::too_many_arguments)]
    fn step_linearized(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<(StepReport, LinearizedStep), AdjointError>;

    /// Takes the communication step on this integrator, as [`Integrator::do_step`] does, and
    /// linearizes it with the outputs at its end. A linearization that fails (a grazing event, a
    /// singular Jacobian) is `None` and leaves the step standing: only a failed step is an
    /// error.
    #[allow(clippy::too_many_arguments)]
    fn step_and_linearize(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<(StepReport, Option<LinearizedStep>), AdjointError>;

    /// The consistent start `w = W(t, x, u, p)` from the continuous state `x` of the current
    /// discrete state, with the outputs at `w`.
    fn linearize_start(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Result<LinearizedStart, AdjointError>;

    /// The outputs at the current discrete state and time `t`.
    fn linearize_outputs(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> LinearizedOutputs;

    /// [`linearize_outputs`](Self::linearize_outputs) into `target`, reusing its allocations.
    fn relinearize_outputs(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        target: &mut Option<LinearizedOutputs>,
    );
}

/// What [`DiscreteAdjoint::relinearize_step`] reuses from one call to the next: the latest
/// linearization, and the integrator's state and discrete variables set aside while the step
/// is taken.
#[derive(Default)]
pub struct StepScratch {
    /// The latest step linearized.
    pub step: Option<LinearizedStep>,
    /// The integrator's state while the step is taken.
    pub saved: Vec<f64>,
    /// The discrete variables the step changes.
    pub d: Vec<f64>,
}

/// Whether a step's linearization covers the outputs at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndOutputs {
    /// Linearized too: tangents of `y_k+1` and non-zero seeds on them are available.
    Linearized,
    /// Left out, for a VJP whose output seeds are all zero (their Jacobians would only be
    /// multiplied by zeros).
    Skipped,
}

/// A linearized communication step `(w_k+1, y_k+1) = Phi(w_k, u, p)`.
#[derive(Clone, Debug)]
pub struct LinearizedStep {
    /// The step's map of the residual's unknowns.
    pub step: CommunicationLinearization,
    /// The outputs at the end of the step, unless [`EndOutputs::Skipped`].
    pub outputs: Option<OutputLinearization>,
    /// Entries of the discrete state `w` (the leading entries of the unknowns).
    pub state_len: usize,
}

impl LinearizedStep {
    /// Forward mode: the tangents of `(w_k+1, y_k+1)` from tangents of `w_k`, of the flat
    /// input coefficients and of the parameters. The step must cover its outputs.
    pub fn jvp(&self, dw: &[f64], du: &[f64], dp: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let outputs = self
            .outputs
            .as_ref()
            .expect("the step was linearized with its outputs");
        let mut unknowns = self.step.jvp(&padded(dw, self.step.state_len()), du, dp);
        let dy_next = outputs.jvp(&unknowns, du, dp);
        unknowns.truncate(self.state_len);
        (unknowns, dy_next)
    }

    /// Reverse mode: the adjoints of `(w_k, u, p)` from the seeds on `w_k+1` and `y_k+1`
    /// (all zero unless the step covers its outputs).
    pub fn vjp(&self, w_bar: &[f64], y_bar: &[f64]) -> Cotangents {
        let mut cotangents = Cotangents::default();
        self.vjp_into(w_bar, y_bar, &mut cotangents, &mut VjpBuffers::default());
        cotangents
    }

    /// [`vjp`](Self::vjp) into `out`, with `buffers` as working space (both keep their
    /// allocations).
    pub fn vjp_into(
        &self,
        w_bar: &[f64],
        y_bar: &[f64],
        out: &mut Cotangents,
        buffers: &mut VjpBuffers,
    ) {
        let mut direct = std::mem::take(&mut buffers.direct);
        match &self.outputs {
            Some(outputs) => outputs.vjp_into(y_bar, &mut direct),
            None => {
                assert!(
                    y_bar.iter().all(|&v| v == 0.0),
                    "output seeds on a step linearized without its outputs"
                );
                // What the outputs' VJP gives for zero seeds; adding it below keeps the
                // result bit for bit (it turns -0.0 into +0.0).
                let step = &self.step;
                direct.reset(step.state_len(), step.inputs_len(), step.params_len());
            }
        }
        let mut seed = std::mem::take(&mut buffers.seed);
        seed.clear();
        seed.extend_from_slice(w_bar);
        seed.resize(self.step.state_len(), 0.0);
        accumulate(&mut seed, &direct.state);
        self.step.vjp_into(&seed, out, buffers);
        out.state.truncate(self.state_len);
        accumulate(&mut out.inputs, &direct.inputs);
        accumulate(&mut out.params, &direct.params);
        buffers.seed = seed;
        buffers.direct = direct;
    }
}

/// The linearized outputs `y = Y(w, u, p)` at a communication point.
#[derive(Clone, Debug)]
pub struct LinearizedOutputs {
    /// The outputs over the residual's unknowns.
    pub outputs: OutputLinearization,
    /// Entries of the discrete state `w` (the leading entries of the unknowns).
    pub state_len: usize,
}

impl LinearizedOutputs {
    /// Reverse mode: the adjoints of `(w, u, p)` from the seed on `y`.
    pub fn vjp(&self, y_bar: &[f64]) -> Cotangents {
        let mut cotangents = Cotangents::default();
        self.vjp_into(y_bar, &mut cotangents);
        cotangents
    }

    /// [`vjp`](Self::vjp) into `out`, keeping its allocations.
    pub fn vjp_into(&self, y_bar: &[f64], out: &mut Cotangents) {
        self.outputs.vjp_into(y_bar, out);
        out.state.truncate(self.state_len);
    }
}

/// A linearized start `(w_0, y_0) = (W(x_0, u, p), Y(W(x_0, u, p), u, p))`.
#[derive(Clone, Debug)]
pub struct LinearizedStart {
    /// The consistent start of the residual's unknowns.
    pub start: InitialLinearization,
    /// The outputs at the start.
    pub outputs: OutputLinearization,
}

impl LinearizedStart {
    /// Reverse mode: the adjoints of `(x_0, u, p)` from the seeds on `w_0` (the leading
    /// entries of the unknowns) and `y_0`.
    pub fn vjp(&self, w_bar: &[f64], y_bar: &[f64]) -> Cotangents {
        let mut cotangents = self.outputs.vjp(y_bar);
        let mut lambda = padded(w_bar, self.start.state.rows());
        accumulate(&mut lambda, &cotangents.state);
        let start = &self.start;
        cotangents.state = vec![0.0; start.state.cols()];
        start
            .state
            .transpose_mul_add(&lambda, &mut cotangents.state);
        start
            .inputs
            .transpose_mul_add(&lambda, &mut cotangents.inputs);
        start
            .params
            .transpose_mul_add(&lambda, &mut cotangents.params);
        cotangents
    }
}

impl<S: System, M: DifferentiableScheme<S> + Clone + Send> DiscreteAdjoint<S>
    for SchemeIntegrator<M>
{
    fn adjoint_state(&self) -> &[f64] {
        &Integrator::state(self)[..self.scheme().carried_len()]
    }

    fn linearize_step(
        &self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        outputs: EndOutputs,
    ) -> Result<LinearizedStep, AdjointError> {
        let mut copy = self.clone();
        copy.record_and_linearize(sys, t, h, u, p, &mut d.to_vec(), outputs)
            .map(|(_, step)| step)
    }

    fn relinearize_step(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        outputs: EndOutputs,
        scratch: &mut StepScratch,
    ) -> Result<(), AdjointError> {
        scratch.saved.clear();
        scratch
            .saved
            .extend_from_slice(<Self as Integrator<S>>::state(self));
        scratch.d.clear();
        scratch.d.extend_from_slice(d);
        let taken = self.do_step_recorded(sys, t, h, u, p, &mut scratch.d);
        <Self as Integrator<S>>::set_state(self, &scratch.saved);
        let (_, tape) = taken.map_err(AdjointError::Step)?;
        let scheme = self.scheme();
        if scratch.step.is_none() {
            scratch.step = Some(self.linearize_tape(sys, t, h, &tape, p, outputs)?);
            return Ok(());
        }
        let step = scratch.step.as_mut().expect("linearized before");
        step.step
            .relinearize(sys, scheme, &tape, EventTimeSensitivity::Included)?;
        step.state_len = scheme.carried_len();
        if outputs == EndOutputs::Skipped {
            step.outputs = None;
            return Ok(());
        }
        let (w, inputs, d) = (tape.w_end(), &tape.inputs, tape.d_end());
        match step.outputs.as_mut() {
            Some(linearized) => linearized.relinearize(sys, scheme, t + h, w, inputs, p, d),
            None => {
                step.outputs = Some(OutputLinearization::new(
                    sys,
                    scheme,
                    t + h,
                    w,
                    inputs,
                    p,
                    d,
                ));
            }
        }
        Ok(())
    }

    fn step_linearized(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<(StepReport, LinearizedStep), AdjointError> {
        self.record_and_linearize(sys, t, h, u, p, d, EndOutputs::Linearized)
    }

    fn step_and_linearize(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<(StepReport, Option<LinearizedStep>), AdjointError> {
        let (report, tape) = self
            .do_step_recorded(sys, t, h, u, p, d)
            .map_err(AdjointError::Step)?;
        let step = self
            .linearize_tape(sys, t, h, &tape, p, EndOutputs::Linearized)
            .ok();
        Ok((report, step))
    }

    fn linearize_start(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Result<LinearizedStart, AdjointError> {
        let scheme = self.scheme();
        let w = &Integrator::state(self)[..scheme.state_len()];
        let x = scheme.continuous_state(w);
        let start = InitialLinearization::new(sys, scheme, t, x, u, p, d)?;
        let outputs = OutputLinearization::new(sys, scheme, t, w, u, p, d);
        Ok(LinearizedStart { start, outputs })
    }

    fn linearize_outputs(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> LinearizedOutputs {
        let scheme = self.scheme();
        let w = &Integrator::state(self)[..scheme.state_len()];
        let outputs = OutputLinearization::new(sys, scheme, t, w, u, p, d);
        LinearizedOutputs {
            outputs,
            state_len: scheme.carried_len(),
        }
    }

    fn relinearize_outputs(
        &self,
        sys: &S,
        t: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
        target: &mut Option<LinearizedOutputs>,
    ) {
        if target.is_none() {
            *target = Some(self.linearize_outputs(sys, t, u, p, d));
            return;
        }
        let linearized = target.as_mut().expect("linearized before");
        let scheme = self.scheme();
        let w = &Integrator::state(self)[..scheme.state_len()];
        linearized.outputs.relinearize(sys, scheme, t, w, u, p, d);
        linearized.state_len = scheme.carried_len();
    }
}

impl<M> SchemeIntegrator<M> {
    /// Takes the communication step on this integrator, recorded, and linearizes it (with the
    /// outputs at its end if `outputs` asks for them).
    #[allow(clippy::too_many_arguments)]
    fn record_and_linearize<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
        outputs: EndOutputs,
    ) -> Result<(StepReport, LinearizedStep), AdjointError>
    where
        M: DifferentiableScheme<S>,
    {
        let (report, tape) = self
            .do_step_recorded(sys, t, h, u, p, d)
            .map_err(AdjointError::Step)?;
        Ok((report, self.linearize_tape(sys, t, h, &tape, p, outputs)?))
    }

    /// Linearizes the communication step from `t` of length `h` recorded in `tape` (with the
    /// outputs at its end if `outputs` asks for them).
    fn linearize_tape<S: System>(
        &self,
        sys: &S,
        t: f64,
        h: f64,
        tape: &Tape,
        p: &[f64],
        outputs: EndOutputs,
    ) -> Result<LinearizedStep, AdjointError>
    where
        M: DifferentiableScheme<S>,
    {
        let scheme = self.scheme();
        let step =
            CommunicationLinearization::new(sys, scheme, tape, EventTimeSensitivity::Included)?;
        let outputs = (outputs == EndOutputs::Linearized).then(|| {
            OutputLinearization::new(
                sys,
                scheme,
                t + h,
                tape.w_end(),
                &tape.inputs,
                p,
                tape.d_end(),
            )
        });
        Ok(LinearizedStep {
            step,
            outputs,
            state_len: scheme.carried_len(),
        })
    }
}

/// `values` followed by zeros up to `len` entries.
fn padded(values: &[f64], len: usize) -> Vec<f64> {
    let mut out = values.to_vec();
    out.resize(len, 0.0);
    out
}

/// `into += from`, entry by entry.
fn accumulate(into: &mut [f64], from: &[f64]) {
    into.iter_mut().zip(from).for_each(|(a, b)| *a += b);
}
