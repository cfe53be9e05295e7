//! Library work run off the calling thread while that thread watches it. Python runs signal
//! handlers only on its main thread, and only when that thread runs Python: a run that held
//! it inside the library would leave Ctrl-C unanswered until the end. So the work goes to a
//! thread of its own, and the calling thread wakes every [`TICK`] to run the signal handlers
//! (`Python::check_signals`) and the caller's progress callback. When either raises (Ctrl-C's
//! `KeyboardInterrupt`, or the callback's own exception), the loops are asked to stop
//! (`tandem_cosim::stop`): the work ends after the macro step in progress with what it has,
//! and the caller raises the exception with that.

use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use tandem_cosim::stop;

/// How often the calling thread looks at signals and progress.
const TICK: Duration = Duration::from_millis(50);

/// The stack of the worker thread: that of a main thread, since the work would otherwise have
/// run on the caller's.
const STACK: usize = 8 << 20;

/// The signal number the stop request names (SIGINT on every platform): the library's errors
/// say the run was interrupted by it, though the caller raises its own exception instead.
const SIGINT: usize = 2;

/// What watched work came to.
pub struct Watched<T> {
    /// What the work returned.
    pub value: T,
    /// The exception a signal handler or the progress callback raised while the work ran (the
    /// work was then asked to stop), to raise with what the work returned.
    pub raised: Option<PyErr>,
}

/// Runs `work` on a thread of its own with the GIL released, calling `tick` on this thread
/// every [`TICK`] and once more after the work ended (to hand its progress to Python). A
/// stop this requested is withdrawn when the work has ended, so that the next call runs.
pub fn watched<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<Watched<T>> {
    let caller = std::thread::current();
    let mut raised: Option<PyErr> = None;
    let value = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("tandem".into())
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                let value = work();
                caller.unpark();
                value
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        loop {
            // Woken early when the work ends; a panic ends it without waking, within a tick.
            py.detach(|| std::thread::park_timeout(TICK));
            let ended = worker.is_finished();
            if raised.is_none() {
                if let Err(exception) = py.check_signals().and_then(|()| tick(py)) {
                    stop::request(SIGINT);
                    raised = Some(exception);
                }
            }
            if ended {
                break;
            }
        }
        let joined = py.detach(|| worker.join());
        Ok::<T, PyErr>(joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    if raised.is_some() {
        stop::clear();
    }
    Ok(Watched {
        value: value?,
        raised,
    })
}

/// No progress to hand over: only the signals are watched.
pub fn signals_only(_: Python<'_>) -> PyResult<()> {
    Ok(())
}
