//! A progress bar over simulated time for long runs: it appears only once a run has taken a
//! second of wall time (short runs print nothing), only when standard error is a terminal,
//! and it is cleared before the summary line is printed. Its text names the time reached and,
//! for an integrator, the steps taken and rejected; it is renewed when the bar moves and at
//! least every quarter second otherwise, so that a run crawling through a tiny part of a long
//! interval (a stiff model under an explicit method) still shows that it moves, and how.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An integrator's work so far, for the bar's text.
pub use tandem_simulate::progress::StepCounts;

/// Wall time after which the bar appears.
const DELAY: Duration = Duration::from_secs(1);
/// Resolution of the bar: its length in units.
const UNITS: u64 = 1000;
/// Longest wall time the text stays the same while the run goes on.
const REFRESH: Duration = Duration::from_millis(250);

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
    /// When the text was last written.
    written: Option<Instant>,
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
            written: None,
        }
    }

    /// Reports that the run reached simulated time `time`.
    pub fn update(&mut self, time: f64) {
        self.report(time, None);
    }

    /// Reports that an integrator reached simulated time `time` with `steps` so far.
    pub fn update_steps(&mut self, time: f64, steps: StepCounts) {
        self.report(time, Some(steps));
    }

    fn report(&mut self, time: f64, steps: Option<StepCounts>) {
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
        // A new text when the bar moves or now and then: not a string per step of a long run.
        let stale = self
            .written
            .is_none_or(|written| written.elapsed() >= REFRESH);
        if self.shown != Some(position) || stale {
            self.shown = Some(position);
            self.written = Some(Instant::now());
            bar.set_position(position);
            bar.set_message(message(time, self.stop, steps));
        }
    }

    /// Removes the bar, if it was shown.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The bar's text: "t = 28500.1 of 1e8, 912345 steps (2301 rejected)".
fn message(time: f64, stop: f64, steps: Option<StepCounts>) -> String {
    let mut text = format!("t = {} of {stop}", significant(time));
    if let Some(StepCounts { accepted, rejected }) = steps {
        text.push_str(&format!(", {accepted} steps ({rejected} rejected)"));
    }
    text
}

/// `x` to six significant digits, in exponent notation when it is far from 1.
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let rounded: f64 = format!("{x:.5e}").parse().unwrap_or(x);
    if (1e-3..1e6).contains(&rounded.abs()) {
        rounded.to_string()
    } else {
        format!("{rounded:e}")
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The bar as the listener of one run of the simulation crate: made when the run says where
/// it goes, on standard error when it is a terminal (see [`Progress::on_stderr`]), else hidden.
pub struct TerminalProgress {
    visible: bool,
    bar: Option<Progress>,
}

impl TerminalProgress {
    /// A bar on standard error if `visible`, else none.
    pub fn new(visible: bool) -> Self {
        TerminalProgress { visible, bar: None }
    }
}

impl tandem_simulate::progress::Progress for TerminalProgress {
    fn begin(&mut self, start: f64, stop: f64) {
        self.bar = Some(if self.visible {
            Progress::on_stderr(start, stop)
        } else {
            Progress::hidden(start, stop)
        });
    }

    fn update(&mut self, time: f64) {
        if let Some(bar) = &mut self.bar {
            bar.update(time);
        }
    }

    fn update_steps(&mut self, time: f64, steps: StepCounts) {
        if let Some(bar) = &mut self.bar {
            bar.update_steps(time, steps);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &mut self.bar {
            bar.finish();
        }
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
    fn the_text_names_time_steps_and_rejections_and_follows_a_crawling_run() {
        let mut progress =
            Progress::with_target(0.0, 1e8, Duration::ZERO, Some(ProgressDrawTarget::hidden));
        let counts = |accepted| StepCounts {
            accepted,
            rejected: 7,
        };
        progress.update_steps(28500.123456789, counts(912345));
        let bar = progress.bar.as_ref().unwrap();
        assert_eq!(bar.position(), 0);
        assert_eq!(
            bar.message(),
            "t = 28500.1 of 100000000, 912345 steps (7 rejected)"
        );
        // The bar has not moved, but the text is stale: it follows the run.
        progress.written = Some(Instant::now() - REFRESH);
        progress.update_steps(29000.0, counts(912400));
        let bar = progress.bar.as_ref().unwrap();
        assert_eq!(
            bar.message(),
            "t = 29000 of 100000000, 912400 steps (7 rejected)"
        );
        // Within the refresh interval and on the same position, the text stays.
        progress.update_steps(29001.0, counts(912401));
        assert!(progress.bar.as_ref().unwrap().message().contains("912400"));
        assert_eq!(message(1.5e-7, 1e-6, None), "t = 1.5e-7 of 0.000001");
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
