//! The sweep's progress: a bar of runs done and failed and the time left, on standard error
//! when it is a terminal, and the same counts told to a caller's listener (the Python
//! package's progress callback).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

/// How far a sweep got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunsDone {
    /// Runs finished, failed ones included.
    pub done: usize,
    /// Runs that failed.
    pub failed: usize,
    /// Runs in the sweep.
    pub total: usize,
}

/// Told of every finished run, from the thread that ran it.
pub type RunsListener = Arc<dyn Fn(RunsDone) + Send + Sync>;

/// Progress over the runs of a sweep, updated from any thread.
pub struct SweepProgress {
    bar: ProgressBar,
    done: AtomicUsize,
    failed: AtomicUsize,
    total: usize,
    listener: Option<RunsListener>,
}

impl SweepProgress {
    /// A bar over `runs` runs, drawn when `show` and standard error is a terminal, telling
    /// `listener` of every run finished.
    pub fn new(runs: usize, show: bool, listener: Option<RunsListener>) -> Self {
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
            done: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            total: runs,
            listener,
        }
    }

    /// Counts a finished run.
    pub fn finished(&self, ok: bool) {
        let failed = match ok {
            true => self.failed.load(Ordering::Relaxed),
            false => {
                let failed = self.failed.fetch_add(1, Ordering::Relaxed) + 1;
                self.bar.set_message(format!("{failed} failed"));
                failed
            }
        };
        self.bar.inc(1);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(listener) = &self.listener {
            listener(RunsDone {
                done,
                failed,
                total: self.total,
            });
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn the_listener_hears_every_run_with_the_counts_so_far() {
        let heard: Arc<Mutex<Vec<RunsDone>>> = Arc::default();
        let listener: RunsListener = {
            let heard = heard.clone();
            Arc::new(move |done| heard.lock().unwrap().push(done))
        };
        let progress = SweepProgress::new(3, false, Some(listener));
        for ok in [true, false, true] {
            progress.finished(ok);
        }
        progress.finish();
        let counts = |done, failed| RunsDone {
            done,
            failed,
            total: 3,
        };
        assert_eq!(
            *heard.lock().unwrap(),
            [counts(1, 0), counts(2, 1), counts(3, 1)]
        );
    }
}
