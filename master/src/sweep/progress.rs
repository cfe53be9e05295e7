//! The sweep's progress bar: runs done and failed, and the time left, on standard error when it
//! is a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// Progress over the runs of a sweep, updated from any thread.
pub struct SweepProgress {
    bar: ProgressBar,
    failed: AtomicUsize,
}

impl SweepProgress {
    /// A bar over `runs` runs, drawn when `show` and standard error is a terminal.
    pub fn new(runs: usize, show: bool) -> Self {
        let bar = if show && std::io::stderr().is_terminal() {
            ProgressBar::new(runs as u64)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {msg}, {eta} left")
                .expect("the template is valid"),
        );
        bar.set_message("0 failed");
        SweepProgress {
            bar,
            failed: AtomicUsize::new(0),
        }
    }

    /// Counts a finished run.
    pub fn finished(&self, ok: bool) {
        if !ok {
            let failed = self.failed.fetch_add(1, Ordering::Relaxed) + 1;
            self.bar.set_message(format!("{failed} failed"));
        }
        self.bar.inc(1);
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
