//! A progress bar over simulated time for long runs: it appears only once a run has taken a
//! second of wall time (short runs print nothing), only when standard error is a terminal,
//! and it is cleared before the summary line is printed.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Wall time after which the bar appears.
const DELAY: Duration = Duration::from_secs(1);
/// Resolution of the bar: its length in units.
const UNITS: u64 = 1000;

/// The progress of a run from `start` to `stop` in simulated time.
pub struct Progress {
    start: f64,
    stop: f64,
    began: Instant,
    delay: Duration,
    /// Where a bar would draw; `None` when no bar is ever shown.
    target: Option<fn() -> ProgressDrawTarget>,
    bar: Option<ProgressBar>,
    /// The position the bar shows, once shown.
    shown: Option<u64>,
}

impl Progress {
    /// A progress bar on standard error when it is a terminal, shown after one second.
    pub fn on_stderr(start: f64, stop: f64) -> Self {
        let target = std::io::stderr()
            .is_terminal()
            .then_some(ProgressDrawTarget::stderr as fn() -> ProgressDrawTarget);
        Self::with_target(start, stop, DELAY, target)
    }

    /// No progress report.
    pub fn hidden(start: f64, stop: f64) -> Self {
        Self::with_target(start, stop, DELAY, None)
    }

    fn with_target(
        start: f64,
        stop: f64,
        delay: Duration,
        target: Option<fn() -> ProgressDrawTarget>,
    ) -> Self {
        Progress {
            start,
            stop,
            began: Instant::now(),
            delay,
            target,
            bar: None,
            shown: None,
        }
    }

    /// Reports that the run reached simulated time `time`.
    pub fn update(&mut self, time: f64) {
        let Some(target) = self.target else {
            return;
        };
        if self.bar.is_none() {
            if self.began.elapsed() < self.delay {
                return;
            }
            let style = ProgressStyle::with_template(
                "[{elapsed_precise}] [{wide_bar}] {percent:>3}% {msg} (eta {eta})",
            )
            .expect("the template is valid")
            .progress_chars("=> ");
            self.bar = Some(ProgressBar::with_draw_target(Some(UNITS), target()).with_style(style));
        }
        let bar = self.bar.as_ref().expect("created above");
        let fraction = ((time - self.start) / (self.stop - self.start)).clamp(0.0, 1.0);
        let position = (fraction * UNITS as f64).round() as u64;
        // A new text at most once per unit: not a string per step of a long run.
        if self.shown != Some(position) {
            self.shown = Some(position);
            bar.set_position(position);
            bar.set_message(format!("t = {time:.6} of {}", self.stop));
        }
    }

    /// Removes the bar, if it was shown.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_appears_after_the_delay_and_follows_simulated_time() {
        let mut progress =
            Progress::with_target(2.0, 12.0, Duration::ZERO, Some(ProgressDrawTarget::hidden));
        progress.update(4.5);
        let bar = progress.bar.as_ref().expect("no delay: the bar exists");
        assert_eq!(bar.position(), 250);
        progress.update(20.0);
        assert_eq!(progress.bar.as_ref().unwrap().position(), UNITS);
        progress.finish();
        assert!(progress.bar.is_none());
    }

    #[test]
    fn short_runs_and_hidden_progress_show_no_bar() {
        let mut progress = Progress::with_target(
            0.0,
            1.0,
            Duration::from_secs(3600),
            Some(ProgressDrawTarget::hidden),
        );
        progress.update(0.5);
        assert!(progress.bar.is_none(), "before the delay");
        let mut hidden = Progress::hidden(0.0, 1.0);
        hidden.delay = Duration::ZERO;
        hidden.update(0.5);
        assert!(hidden.bar.is_none());
    }
}
