//! Ctrl-C and SIGTERM during a command that runs systems. The first one only sets the stop
//! request of the co-simulation crate (`tandem_cosim::stop`), which the loops check after
//! every macro step: the command ends after the step in progress,
//! keeping what it has (a run its rows, an identification its best point) and saying so. A
//! signal within [`SAME_SIGNAL`] of the first is the same request sent twice (GNU `timeout`
//! signals the child, then its group; an impatient double Ctrl-C) and changes nothing; one
//! later than that ends the process at once, for an FMU that never returns.

#[cfg(unix)]
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Result;

/// When the first signal arrived, in nanoseconds of the monotonic clock (at least 1); 0 while
/// none has.
#[cfg(unix)]
static FIRST_AT: AtomicU64 = AtomicU64::new(0);

/// How long after the first signal another one still counts as the same request, in
/// nanoseconds.
pub const SAME_SIGNAL: u64 = 500_000_000;

/// Installs the handlers of SIGINT and SIGTERM (once per process; later calls do nothing).
/// Only the command line does this: a library user keeps its own handling.
pub fn install() {
    #[cfg(unix)]
    {
        static INSTALLED: std::sync::Once = std::sync::Once::new();
        INSTALLED.call_once(|| {
            for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                // SAFETY: the action reads the monotonic clock, touches atomics and may call
                // _exit, all of which are async-signal-safe.
                let registered =
                    unsafe { signal_hook::low_level::register(signal, move || on_signal(signal)) };
                if let Err(error) = registered {
                    eprintln!("warning: cannot handle signal {signal}: {error}");
                }
            }
        });
    }
}

/// What a signal does: the first sets the flag, a later one beyond [`SAME_SIGNAL`] ends the
/// process with the shell's code for it (128 + the signal). Runs inside the signal handler.
#[cfg(unix)]
fn on_signal(signal: i32) {
    let now = monotonic_nanos().max(1);
    match FIRST_AT.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => tandem_cosim::stop::request(signal as usize),
        // A handler running on another thread may have read the clock after this one.
        Err(first) if now.saturating_sub(first) > SAME_SIGNAL => {
            signal_hook::low_level::exit(128 + signal)
        }
        Err(_) => {}
    }
}

/// The monotonic clock in nanoseconds.
#[cfg(unix)]
fn monotonic_nanos() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into `now`, a valid timespec, and is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

/// An error naming the signal if one arrived, to end the run at `time`, the last time whose
/// results were recorded.
pub fn check(time: f64) -> Result<()> {
    Ok(tandem_cosim::stop::check(time)?)
}

/// The name of the signal received, if one was.
pub use tandem_cosim::stop::received;

/// The number of the signal received, 0 while none: what MPI ranks tell each other.
pub use tandem_cosim::stop::number;

/// The name of signal number `signal`.
pub use tandem_cosim::stop::signal_name;
