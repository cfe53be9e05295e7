//! The co-simulation integrator of mechanical models: HHT-alpha, symplectic Euler, or SDIRK
//! on the first-order form `x = [q; v]`, as the model's declaration asks.

use crate::declaration::{Declaration, Method};
use crate::mechanical_system::MechanicalSystem;
use crate::mechanics::MechanicalModel;
use crate::scalar::Scalar;
use crate::system::{StepError, StepInputs};

use super::differentiable::DifferentiableScheme;
use super::driver::SchemeIntegrator;
use super::hht::Hht;
use super::scheme::{Scheme, StepContext};
use super::sdirk::SdirkScheme;
use super::symplectic_euler::SymplecticEuler;

/// The method a mechanical model is integrated with.
#[derive(Clone, Debug, PartialEq)]
pub enum MechanicalMethod {
    /// HHT-alpha on the index-3 DAE; state `[q, v, a, lambda]`.
    Hht(Hht),
    /// Symplectic Euler on the index-1 form; state `[q, v]`.
    SymplecticEuler(SymplecticEuler),
    /// ESDIRK on the index-1 first-order form; state `[x, k1..k6, h_next, e_prev]`, `x = [q; v]`.
    Sdirk(SdirkScheme),
}

/// HHT-alpha, symplectic Euler or SDIRK for a [`MechanicalSystem`]; state layout per
/// [`MechanicalMethod`], without event signs (mechanical models have no event indicators).
pub type MechanicalIntegrator = SchemeIntegrator<MechanicalMethod>;

impl MechanicalIntegrator {
    /// An integrator configured from the model's declaration, `n` coordinates, `m` constraints.
    pub fn new(declaration: &Declaration, n: usize, m: usize) -> Self {
        let max_step = declaration.cosimulation.max_step;
        let method = match declaration.cosimulation.method {
            Method::Hht { alpha } => MechanicalMethod::Hht(Hht::new(alpha, n, m, max_step)),
            Method::SymplecticEuler => {
                MechanicalMethod::SymplecticEuler(SymplecticEuler::new(n, max_step))
            }
            Method::Sdirk { .. } => {
                MechanicalMethod::Sdirk(SdirkScheme::from_declaration(declaration))
            }
        };
        let len = method.state_len() + declaration.event_indicators;
        SchemeIntegrator::with_state_len(method, len)
    }
}

/// Forwards a [`Scheme`] call to the selected method.
macro_rules! dispatch {
    ($self:ident, $method:ident => $call:expr) => {
        match $self {
            MechanicalMethod::Hht($method) => $call,
            MechanicalMethod::SymplecticEuler($method) => $call,
            MechanicalMethod::Sdirk($method) => $call,
        }
    };
}

impl MechanicalMethod {
    /// Entries of the selected method's discrete state.
    pub fn state_len(&self) -> usize {
        dispatch!(self, s => s.state_len())
    }
}

impl<M: MechanicalModel> Scheme<MechanicalSystem<M>> for MechanicalMethod {
    fn state_len(&self) -> usize {
        MechanicalMethod::state_len(self)
    }

    fn continuous_state<'w>(&self, w: &'w [f64]) -> &'w [f64] {
        dispatch!(self, s => Scheme::<MechanicalSystem<M>>::continuous_state(s, w))
    }

    fn step(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        h: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<(), StepError> {
        dispatch!(self, s => s.step(cx, t, h, w, w_next))
    }

    fn max_step(&self) -> f64 {
        dispatch!(self, s => Scheme::<MechanicalSystem<M>>::max_step(s))
    }

    fn advance(
        &self,
        cx: &StepContext<MechanicalSystem<M>>,
        t: f64,
        stop: f64,
        w: &[f64],
        w_next: &mut [f64],
    ) -> Result<f64, StepError> {
        dispatch!(self, s => s.advance(cx, t, stop, w, w_next))
    }
}

impl<M: MechanicalModel> DifferentiableScheme<MechanicalSystem<M>> for MechanicalMethod {
    fn residual_len(&self) -> usize {
        dispatch!(self, s => DifferentiableScheme::<MechanicalSystem<M>>::residual_len(s))
    }

    fn carried_len(&self) -> usize {
        dispatch!(self, s => DifferentiableScheme::<MechanicalSystem<M>>::carried_len(s))
    }

    fn residual_at<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t_prev: T,
        h: T,
        w_next: &[T],
        w_prev: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        r: &mut [T],
    ) {
        dispatch!(self, s => s.residual_at(sys, t_prev, h, w_next, w_prev, u, p, d, r))
    }

    fn start<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        x: &[T],
        u: &StepInputs<T>,
        p: &[T],
        d: &[f64],
        w: &mut [T],
    ) -> Result<(), StepError> {
        dispatch!(self, s => s.start(sys, t, x, u, p, d, w))
    }

    fn outputs<T: Scalar>(
        &self,
        sys: &MechanicalSystem<M>,
        t: T,
        w: &[T],
        u: &[T],
        p: &[T],
        d: &[f64],
        y: &mut [T],
    ) {
        dispatch!(self, s => s.outputs(sys, t, w, u, p, d, y))
    }
}
