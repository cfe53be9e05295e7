//! A request to stop, as a signal handler or a caller makes it: the loops that run
//! co-simulations check it after every macro step and end with what they have. Setting it is
//! async-signal-safe (one atomic store); installing handlers is the application's business.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// The number of the signal that asked to stop, 0 while none has.
static REQUESTED: AtomicUsize = AtomicUsize::new(0);

/// Asks every running loop to stop, naming signal number `signal` (not 0).
pub fn request(signal: usize) {
    REQUESTED.store(signal, Ordering::SeqCst);
}

/// Withdraws the request, so that the next run goes to its end: for a caller that stays
/// alive after a stop, as a Python session does after Ctrl-C (the command line exits instead).
pub fn clear() {
    REQUESTED.store(0, Ordering::SeqCst);
}

/// The number of the signal that asked to stop, 0 while none has: what MPI ranks tell each
/// other.
pub fn number() -> usize {
    REQUESTED.load(Ordering::SeqCst)
}

/// The name of the signal that asked to stop, if one has.
pub fn received() -> Option<&'static str> {
    match number() {
        0 => None,
        signal => Some(signal_name(signal)),
    }
}

/// The name of signal number `signal`.
pub fn signal_name(signal: usize) -> &'static str {
    match signal {
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// An error naming the signal if a stop was requested, to end the run at `time`, the last
/// time whose results were recorded.
pub fn check(time: f64) -> Result<()> {
    match received() {
        None => Ok(()),
        Some(signal) => Err(Error::Interrupted { signal, time }),
    }
}
