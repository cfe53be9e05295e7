//! What a failed doStep restores: the instance's dynamic state and the integrator's discrete
//! state from before the step, in buffers that every step reuses (a doStep allocates nothing).

use crate::instance::dynamic::DynamicState;
use crate::system::{Integrator, System};

/// The state before the step in progress.
#[derive(Default)]
pub(super) struct Rollback {
    state: Option<DynamicState>,
    integrator: Vec<f64>,
}

impl Rollback {
    /// Saves `state` and the integrator's discrete state (copies into the kept buffers).
    pub(super) fn save(&mut self, state: &DynamicState, integrator: &[f64]) {
        match &mut self.state {
            Some(saved) => saved.clone_from(state),
            None => self.state = Some(state.clone()),
        }
        self.integrator.clear();
        self.integrator.extend_from_slice(integrator);
    }

    /// Puts the saved state back; the replaced one becomes the buffer of the next save.
    pub(super) fn restore<S: System, I: Integrator<S>>(
        &mut self,
        state: &mut DynamicState,
        integrator: &mut I,
    ) {
        let saved = self
            .state
            .as_mut()
            .expect("a step saves the state before it can fail");
        std::mem::swap(state, saved);
        integrator.set_state(&self.integrator);
    }
}
