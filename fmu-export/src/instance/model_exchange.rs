//! Model Exchange: the host sets time and states, reads derivatives and event indicators,
//! and calls the event update, which applies the model's reset map.

use crate::instance::lifecycle::{Kind, Mode};
use crate::instance::logging::Category;
use crate::instance::outcome::{Outcome, Problem, Status};
use crate::instance::{time_tolerance, Instance};
use crate::integrators::events;
use crate::ode::{Crossing, Event};
use crate::system::{StepInputs, System};
use crate::variables::Role;

/// What the event update tells the host (FMI 2.0 fmi2EventInfo / FMI 3.0 the outputs of
/// fmi3UpdateDiscreteStates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventInfo {
    /// Another event iteration is needed.
    pub discrete_states_need_update: bool,
    /// The model asks to end the simulation.
    pub terminate_simulation: bool,
    /// The nominal values of the states changed.
    pub nominals_changed: bool,
    /// The reset map changed the continuous states.
    pub values_changed: bool,
    /// The next time event.
    pub next_event_time: Option<f64>,
}

/// Modes in which the host provides time and states.
const INTEGRATING: &[Mode] = &[Mode::Event, Mode::ContinuousTime];

impl<S: System> Instance<S> {
    /// Number of continuous states.
    pub fn state_count(&self) -> usize {
        self.state.x.len()
    }

    /// Number of event indicators.
    pub fn indicator_count(&self) -> usize {
        self.state.z_ref.len()
    }

    /// fmiSetTime.
    pub fn set_time(&mut self, t: f64) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_mode(INTEGRATING)?;
        if !t.is_finite() {
            return Err(Problem::error(format!("time {t} is not finite")));
        }
        self.state.t = t;
        self.touch();
        Ok(())
    }

    /// fmiSetContinuousStates.
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_mode(INTEGRATING)?;
        self.expect_state_len(x.len())?;
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(Problem::error(format!(
                "{} = {} is not finite",
                self.name_of(Role::State(i)),
                x[i]
            )));
        }
        self.state.x.copy_from_slice(x);
        self.touch();
        Ok(())
    }

    /// fmiGetContinuousStates (also valid in Co-Simulation, where the states come from the
    /// integrator).
    pub fn get_continuous_states(&mut self, out: &mut [f64]) -> Outcome {
        self.expect_state_len(out.len())?;
        out.copy_from_slice(&self.state.x);
        Ok(())
    }

    /// fmiGetDerivatives / fmi3GetContinuousStateDerivatives.
    pub fn get_derivatives(&mut self, out: &mut [f64]) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_state_len(out.len())?;
        out.copy_from_slice(self.derivatives()?);
        Ok(())
    }

    /// fmiGetNominalsOfContinuousStates: the declared nominal values (1 where none).
    pub fn get_nominals(&mut self, out: &mut [f64]) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_state_len(out.len())?;
        for (slot, var) in out.iter_mut().zip(&self.declaration().states) {
            *slot = var.nominal.unwrap_or(1.0);
        }
        Ok(())
    }

    /// fmiGetEventIndicators. An indicator that started at zero with zero rate has no side yet;
    /// the first non-zero value the host reads arms it, because a host that skips
    /// fmiCompletedIntegratorStep (allowed, and FMPy does) would otherwise never arm it and its
    /// first crossing would go unseen.
    pub fn get_event_indicators(&mut self, out: &mut [f64]) -> Outcome {
        self.expect_kind(Kind::ModelExchange)?;
        if out.len() != self.indicator_count() {
            return Err(Problem::error(format!(
                "{} event indicators requested, the model has {}",
                out.len(),
                self.indicator_count()
            )));
        }
        out.copy_from_slice(&self.indicators()?);
        if self.state.mode == Mode::ContinuousTime {
            events::arm_unset_signs(&mut self.state.z_ref, out);
        }
        Ok(())
    }

    /// fmiCompletedIntegratorStep: returns whether the host must enter event mode (an
    /// event indicator changed sign since the last event or completed step).
    pub fn completed_integrator_step(&mut self) -> Outcome<bool> {
        self.expect_kind(Kind::ModelExchange)?;
        self.expect_mode(&[Mode::ContinuousTime])?;
        self.check_state_finite()?;
        self.derivatives()?;
        let sides = self.indicator_sides()?;
        let crossed = events::any_crossing(&self.state.z_ref, &sides);
        if crossed {
            self.log(
                Status::Ok,
                Category::Events,
                &format!("state event detected at t = {}", self.state.t),
            );
        } else {
            // Keep the reference from before the crossing so the event update sees it.
            events::advance_signs(&mut self.state.z_ref, &sides);
        }
        Ok(crossed)
    }

    /// fmi2NewDiscreteStates / fmi3UpdateDiscreteStates: applies the reset map for the
    /// indicators that changed sign and for a reached time event.
    pub fn update_discrete_states(&mut self) -> Outcome<EventInfo> {
        self.expect_mode(&[Mode::Event])?;
        if self.kind == Kind::CoSimulation {
            // Events inside a step are handled by the integrator: nothing is pending here.
            return Ok(EventInfo {
                discrete_states_need_update: false,
                terminate_simulation: false,
                nominals_changed: false,
                values_changed: false,
                next_event_time: None,
            });
        }
        let sides = self.indicator_sides()?;
        let crossing: Vec<Crossing> = self
            .state
            .z_ref
            .iter()
            .zip(&sides)
            .map(|(&r, &z)| events::crossing(r, z))
            .collect();
        let t = self.state.t;
        let time_event = self
            .state
            .next_time_event
            .is_some_and(|te| t >= te - time_tolerance(te));
        let x_before = self.state.x.clone();
        if crossing.iter().any(|c| *c != Crossing::None) {
            self.log(
                Status::Ok,
                Category::Events,
                &format!("state event at t = {t}: crossings {crossing:?}"),
            );
            self.apply_reset(Event::State(&crossing));
        }
        if time_event {
            self.log(
                Status::Ok,
                Category::Events,
                &format!("time event at t = {t}"),
            );
            self.apply_reset(Event::Time);
        }
        self.check_state_finite()
            .map_err(|p| Problem::failure(format!("after the reset map: {p}")))?;
        self.derivatives()
            .map_err(|p| Problem::failure(format!("after the reset map: {p}")))?;
        self.state.z_ref = self
            .indicator_sides()
            .map_err(|p| Problem::failure(p.message))?;
        self.state.next_time_event = self.sys.next_time_event(t, &self.state.p, &self.state.d);
        Ok(EventInfo {
            discrete_states_need_update: false,
            terminate_simulation: false,
            nominals_changed: false,
            values_changed: self.state.x != x_before,
            next_event_time: self.state.next_time_event,
        })
    }

    /// The event indicators at the current point; non-finite values are an Error.
    pub(crate) fn indicators(&self) -> Outcome<Vec<f64>> {
        let mut z = vec![0.0; self.indicator_count()];
        self.sys.event_indicators(&self.args(), &mut z);
        match z.iter().position(|v| !v.is_finite()) {
            None => Ok(z),
            Some(i) => Err(Problem::error(format!(
                "event indicator {i} = {} at t = {}",
                z[i], self.state.t
            ))),
        }
    }

    /// The side of zero each event indicator is on (+1, -1, or 0 for one that stays at zero),
    /// judged as after a reset: an indicator within rounding of zero counts as being on the side
    /// its time derivative points to (see [`events::post_event_signs`]).
    ///
    /// Comparing sides rather than raw values is what lets a host skip
    /// fmiCompletedIntegratorStep (the descriptions say it is not needed): a bouncing ball
    /// reset to exactly h = 0 and moving up is on the + side, so its next landing is a
    /// Falling crossing even though no completed step re-armed the reference, and an event
    /// update repeated at the instant of the reset sees no second crossing.
    pub(crate) fn indicator_sides(&self) -> Outcome<Vec<f64>> {
        let z = self.indicators()?;
        let mut sides = vec![0.0; z.len()];
        if !z.is_empty() {
            let s = &self.state;
            let inputs = StepInputs::held(s.t, &s.u);
            let rates = events::indicator_rates(&self.sys, s.t, &s.x, &inputs, &s.p, &s.d);
            events::post_event_signs(s.t, &z, &rates, &mut sides);
        }
        Ok(sides)
    }

    fn apply_reset(&mut self, event: Event) {
        let mut x_new = self.state.x.clone();
        let mut d_new = self.state.d.clone();
        self.sys.reset(&self.args(), event, &mut x_new, &mut d_new);
        self.state.x = x_new;
        self.state.d = d_new;
        self.touch();
    }

    fn expect_state_len(&self, n: usize) -> Outcome {
        if n == self.state_count() {
            Ok(())
        } else {
            Err(Problem::error(format!(
                "{n} continuous states given, the model has {}",
                self.state_count()
            )))
        }
    }
}
