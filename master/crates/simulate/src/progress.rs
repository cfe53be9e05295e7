//! What a caller hears of a run's progress in simulated time: the `tandem` binary draws a bar
//! from it, a library user may ignore it ([`NoProgress`]).

/// An integrator's work so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepCounts {
    /// Accepted steps.
    pub accepted: usize,
    /// Rejected steps.
    pub rejected: usize,
}

/// A listener to the progress of one run.
pub trait Progress {
    /// The run goes from `start` to `stop` in simulated time; called once, before any update.
    fn begin(&mut self, start: f64, stop: f64);

    /// The run reached `time`.
    fn update(&mut self, time: f64);

    /// The run reached `time` with an integrator that took `steps` so far.
    fn update_steps(&mut self, time: f64, steps: StepCounts) {
        let _ = steps;
        self.update(time);
    }

    /// The run ended, however it ended.
    fn finish(&mut self);
}

/// No listener.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&mut self, _: f64, _: f64) {}

    fn update(&mut self, _: f64) {}

    fn finish(&mut self) {}
}
