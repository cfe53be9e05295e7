//! Ctrl-C and SIGTERM during a run. The first one only sets a flag, which the host loops
//! check after every step: the run ends after the step in progress, with the rows recorded so
//! far written out and a message. A second one ends the process at once (for an FMU that
//! never returns).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// The signal received, 0 while none.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);

/// Installs the handlers of SIGINT and SIGTERM (once per process; later calls do nothing).
/// Only the command line does this: a library user keeps its own handling.
pub fn install() {
    #[cfg(unix)]
    {
        static INSTALLED: std::sync::Once = std::sync::Once::new();
        INSTALLED.call_once(|| {
            use std::sync::atomic::AtomicBool;
            use std::sync::Arc;

            let again = Arc::new(AtomicBool::new(false));
            for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                // Registered first, so the flag set below decides only from the second signal on.
                let registered = signal_hook::flag::register_conditional_shutdown(
                    signal,
                    128 + signal,
                    Arc::clone(&again),
                )
                .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&again)))
                // SAFETY: the action only stores into an atomic, which is async-signal-safe.
                .and_then(|_| unsafe {
                    signal_hook::low_level::register(signal, move || {
                        RECEIVED.store(signal as usize, Ordering::Relaxed)
                    })
                });
                if let Err(error) = registered {
                    eprintln!("warning: cannot handle signal {signal}: {error}");
                }
            }
        });
    }
}

/// An error naming the signal if one arrived, to end the run at `time`, the last time whose
/// results were recorded.
pub fn check(time: f64) -> Result<()> {
    match RECEIVED.load(Ordering::Relaxed) {
        0 => Ok(()),
        signal => Err(Error::Interrupted {
            signal: signal_name(signal),
            time,
        }),
    }
}

fn signal_name(signal: usize) -> &'static str {
    match signal {
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}
