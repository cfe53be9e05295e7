//! The communication-step driver shared by every method: internal steps up to the
//! communication point, state events (located inside a step) and time events.

use crate::adjoint::DiscreteAdjoint;
use crate::ode::{Args, Crossing, Event};
use crate::system::{Integrator, StepError, StepInputs, StepReport, System};

use super::differentiable::DifferentiableScheme;
use super::events::{
    advance_signs, any_crossing, indicator_rates, indicators, initial_signs, post_event_signs,
    ShortenedStep,
};
use super::finite::require_finite;
use super::inputs::inputs_at;
use super::scheme::StepContext;
use super::tape::{RecordedEvent, Segment, StepEnd, Tape};

/// Intervals shorter than this (relative to `max(1, |t|)`) are below time resolution and are
/// not integrated.
const NEGLIGIBLE: f64 = 4.0 * f64::EPSILON;

/// A one-step method together with its discrete state, driven over communication steps.
///
/// The state vector is `[w, s]`: the method's discrete state `w` (layout in the method's
/// documentation) followed by one reference sign `s_i` in {-1, 0, 1} per event indicator
/// (see the `events` module). Restoring it with [`Integrator::set_state`] reproduces every
/// later result bit for bit.
#[derive(Clone, Debug)]
pub struct SchemeIntegrator<M> {
    scheme: M,
    state: Vec<f64>,
    /// The working copy of the step in progress, kept between steps so that a step allocates
    /// nothing; holds no information between steps.
    buffers: StepBuffers,
}

/// The working copy of a communication step: the method state, event signs and discrete
/// variables as the step advances, and the next internal step's state.
#[derive(Clone, Debug, Default)]
struct StepBuffers {
    w: Vec<f64>,
    references: Vec<f64>,
    d: Vec<f64>,
    next: Vec<f64>,
}

impl StepBuffers {
    /// Loads the committed integrator state `[w, s]` (method state of `ns` entries) and `d`.
    /// (`next` is sized where it is used.)
    fn load(&mut self, state: &[f64], ns: usize, d: &[f64]) {
        let (w, references) = state.split_at(ns);
        for (buffer, values) in [
            (&mut self.w, w),
            (&mut self.references, references),
            (&mut self.d, d),
        ] {
            buffer.clear();
            buffer.extend_from_slice(values);
        }
    }
}

impl<M> SchemeIntegrator<M> {
    /// An integrator for `scheme`, whose state vector has `len` entries (method state plus
    /// one per event indicator), all zero until [`Integrator::initialize`].
    pub fn with_state_len(scheme: M, len: usize) -> Self {
        SchemeIntegrator {
            scheme,
            state: vec![0.0; len],
            buffers: StepBuffers::default(),
        }
    }

    /// The one-step method (for residual evaluations by the adjoint layer).
    pub fn scheme(&self) -> &M {
        &self.scheme
    }

    /// Number of entries of [`Integrator::state`].
    pub fn state_len(&self) -> usize {
        self.state.len()
    }

    /// [`Integrator::do_step`], also returning the [`Tape`] of the step (every accepted
    /// internal step and reset) that its linearization is built from.
    #[allow(clippy::too_many_arguments)]
    pub fn do_step_recorded<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<(StepReport, Tape), StepError>
    where
        M: DifferentiableScheme<S>,
    {
        let ns = self.scheme.state_len();
        let mut tape = Tape {
            t,
            h,
            inputs: u.clone(),
            params: p.to_vec(),
            w_start: self.state[..ns].to_vec(),
            d_start: d.to_vec(),
            segments: Vec::new(),
        };
        let report = self.run_step(sys, t, h, u, p, d, Some(&mut tape.segments))?;
        Ok((report, tape))
    }

    /// Runs one communication step and commits it; records into `tape` if given.
    #[allow(clippy::too_many_arguments)]
    fn run_step<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
        tape: Option<&mut Vec<Segment>>,
    ) -> Result<StepReport, StepError>
    where
        M: DifferentiableScheme<S>,
    {
        let ns = self.scheme.state_len();
        let mut buffers = std::mem::take(&mut self.buffers);
        buffers.load(&self.state, ns, d);
        let mut step = CommunicationStep {
            scheme: &self.scheme,
            sys,
            u,
            p,
            buffers,
            tape,
        };
        let result = step.run(t, t + h);
        let buffers = step.buffers;
        // Commit only a completed step, so a failed one leaves state and `d` untouched.
        if result.is_ok() {
            self.state[..ns].copy_from_slice(&buffers.w);
            self.state[ns..].copy_from_slice(&buffers.references);
            d.copy_from_slice(&buffers.d);
        }
        self.buffers = buffers;
        result
    }
}

impl<S: System, M: DifferentiableScheme<S> + Clone + Send> Integrator<S> for SchemeIntegrator<M> {
    fn initialize(
        &mut self,
        sys: &S,
        t0: f64,
        x: &[f64],
        u: &StepInputs<f64>,
        p: &[f64],
        d: &[f64],
    ) -> Result<(), StepError> {
        let (w, references) = self.state.split_at_mut(self.scheme.state_len());
        self.scheme.start(sys, t0, x, u, p, d, w)?;
        if !references.is_empty() {
            let x = self.scheme.continuous_state(w);
            let z = indicators(sys, t0, x, u, p, d);
            let rates = indicator_rates(sys, t0, x, u, p, d);
            initial_signs(&z, &rates, references);
        }
        Ok(())
    }

    fn do_step(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        u: &StepInputs<f64>,
        p: &[f64],
        d: &mut [f64],
    ) -> Result<StepReport, StepError> {
        self.run_step(sys, t, h, u, p, d, None)
    }

    fn state(&self) -> &[f64] {
        &self.state
    }

    fn set_state(&mut self, w: &[f64]) {
        assert_eq!(
            w.len(),
            self.state.len(),
            "integrator state: expected {} entries, got {}",
            self.state.len(),
            w.len()
        );
        self.state.copy_from_slice(w);
    }

    fn continuous_state(&self, x: &mut [f64]) {
        x.copy_from_slice(self.scheme.continuous_state(&self.state));
    }

    fn outputs(&self, sys: &S, t: f64, u: &[f64], p: &[f64], d: &[f64], y: &mut [f64]) {
        let w = &self.state[..self.scheme.state_len()];
        self.scheme.outputs(sys, t, w, u, p, d, y);
    }

    fn discrete_adjoint(&self) -> Option<&dyn DiscreteAdjoint<S>> {
        Some(self)
    }

    fn discrete_adjoint_mut(&mut self) -> Option<&mut dyn DiscreteAdjoint<S>> {
        Some(self)
    }
}

/// The working copy of one communication step.
struct CommunicationStep<'a, S, M> {
    scheme: &'a M,
    sys: &'a S,
    u: &'a StepInputs<f64>,
    p: &'a [f64],
    buffers: StepBuffers,
    /// Where accepted steps and resets are recorded, if anywhere.
    tape: Option<&'a mut Vec<Segment>>,
}

impl<'a, S: System, M: DifferentiableScheme<S>> CommunicationStep<'a, S, M> {
    /// Records an accepted step from `(t, self.buffers.w)` to `w_next`, when recording.
    fn record_step(&mut self, t: f64, h: f64, w_next: &[f64], end: StepEnd) {
        if let Some(tape) = self.tape.as_deref_mut() {
            let (w_prev, w_next, d) = (
                self.buffers.w.clone(),
                w_next.to_vec(),
                self.buffers.d.clone(),
            );
            tape.push(Segment::Step {
                t,
                h,
                w_prev,
                w_next,
                d,
                end,
            });
        }
    }

    /// Integrates from `t` to `t_end`, stopping at every time event and located state event.
    fn run(&mut self, mut t: f64, t_end: f64) -> Result<StepReport, StepError> {
        let mut report = StepReport::default();
        while t < t_end {
            let time_event = self
                .sys
                .next_time_event(t, self.p, &self.buffers.d)
                .filter(|&te| te > t && te <= t_end);
            let stop = time_event.unwrap_or(t_end);
            let (reached, state_event) = self.integrate_until(t, stop, &mut report)?;
            t = reached;
            if let Some(crossings) = state_event {
                self.reset(t, Event::State(&crossings))?;
                report.events += 1;
            }
            if time_event.is_some() && t == stop {
                self.reset(t, Event::Time)?;
                report.events += 1;
            }
        }
        Ok(report)
    }

    /// Internal steps from `t` to `stop`; returns the time reached, which is `stop` unless a
    /// state event was located first (then also its crossings, with `w` just past it).
    fn integrate_until(
        &mut self,
        mut t: f64,
        stop: f64,
        report: &mut StepReport,
    ) -> Result<(f64, Option<Vec<Crossing>>), StepError> {
        // Taken out for the loop (the buffers are borrowed by the method call); a step that
        // ends early, at an event or failure, leaves it empty to be allocated again here.
        let mut next = std::mem::take(&mut self.buffers.next);
        next.resize(self.buffers.w.len(), 0.0);
        while stop - t > NEGLIGIBLE * t.abs().max(1.0) {
            let (scheme, sys, u, p) = (self.scheme, self.sys, self.u, self.p);
            let cx = StepContext {
                sys,
                u,
                p,
                d: &self.buffers.d,
            };
            let t_next = scheme.advance(&cx, t, stop, &self.buffers.w, &mut next)?;
            report.internal_steps += 1;
            if !self.buffers.references.is_empty() {
                let z = indicators(
                    sys,
                    t_next,
                    scheme.continuous_state(&next),
                    u,
                    p,
                    &self.buffers.d,
                );
                if any_crossing(&self.buffers.references, &z) {
                    let h = t_next - t;
                    let shortened = ShortenedStep {
                        scheme,
                        cx,
                        t,
                        w: &self.buffers.w,
                    };
                    let located = shortened.locate(h, next, z, &self.buffers.references)?;
                    let end = StepEnd::Event(located.crossings.clone());
                    self.record_step(t, located.h, &located.w, end);
                    self.buffers.w = located.w;
                    let t_event = if located.h == h {
                        t_next
                    } else {
                        t + located.h
                    };
                    return Ok((t_event, Some(located.crossings)));
                }
                advance_signs(&mut self.buffers.references, &z);
            }
            let end = if t_next == stop {
                StepEnd::Stop
            } else {
                StepEnd::Free
            };
            self.record_step(t, t_next - t, &next, end);
            std::mem::swap(&mut self.buffers.w, &mut next);
            t = t_next;
        }
        self.buffers.next = next;
        Ok((stop, None))
    }

    /// Applies the reset map at `t`, restarts the method from the new continuous state and
    /// re-references the indicators.
    fn reset(&mut self, t: f64, event: Event) -> Result<(), StepError> {
        let (scheme, sys, u, p) = (self.scheme, self.sys, self.u, self.p);
        let x = scheme.continuous_state(&self.buffers.w).to_vec();
        let mut x_new = x.clone();
        let d_old = self.buffers.d.clone();
        let u_t = inputs_at(u, t);
        sys.reset(
            &Args {
                t,
                x: &x,
                u: &u_t,
                p,
                d: &d_old,
            },
            event,
            &mut x_new,
            &mut self.buffers.d,
        );
        require_finite(t, &x_new)?;
        let w_prev = self.tape.is_some().then(|| self.buffers.w.clone());
        scheme.start(sys, t, &x_new, u, p, &self.buffers.d, &mut self.buffers.w)?;
        if let (Some(tape), Some(w_prev)) = (self.tape.as_deref_mut(), w_prev) {
            let event = match event {
                Event::State(crossings) => RecordedEvent::State(crossings.to_vec()),
                Event::Time => RecordedEvent::Time,
            };
            let (w_next, d_next) = (self.buffers.w.clone(), self.buffers.d.clone());
            tape.push(Segment::Reset {
                t,
                event,
                w_prev,
                d_prev: d_old,
                w_next,
                d_next,
            });
        }
        if !self.buffers.references.is_empty() {
            let z = indicators(sys, t, &x_new, u, p, &self.buffers.d);
            let rates = indicator_rates(sys, t, &x_new, u, p, &self.buffers.d);
            post_event_signs(t, &z, &rates, &mut self.buffers.references);
        }
        Ok(())
    }
}
