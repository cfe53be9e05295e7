//! What an FMU that crashes inside a call leaves behind: one line on standard error naming the
//! instance, the call and the simulation time, and the result rows recorded before the call.
//!
//! Before each FMU call the host notes the call in a thread-local slot: pointers to the
//! instance name and to the call's static name, and the time, so no text is formatted per
//! call. The handler of SIGSEGV, SIGBUS, SIGFPE and SIGILL uses only async-signal-safe means:
//! it reads the slot, formats the time on its stack, writes with write(2), calls the hook the
//! application installed it with (the command line writes out the result rows not yet on
//! disk), and then gives the signal back to the handler installed before it (Rust's
//! stack-overflow report or the default action, which ends the process with the signal). The
//! hook keeps the FMI layer ignorant of what the application writes.

use std::cell::Cell;

/// The FMU call in progress on a thread.
#[derive(Clone, Copy)]
struct CallSite {
    /// The instance name's bytes, alive for as long as the instance (which outlives the call).
    instance: *const u8,
    instance_len: usize,
    function: &'static str,
    time: f64,
}

thread_local! {
    // Const-initialized without destructor: a plain thread-local read, safe in a handler.
    static CURRENT: Cell<Option<CallSite>> = const { Cell::new(None) };
}

/// Runs `call`, an FMU call named `function` of instance `instance` at simulation time
/// `time`, so that a crash inside it is reported with these names.
pub(crate) fn guarded<T>(
    instance: &str,
    function: &'static str,
    time: f64,
    call: impl FnOnce() -> T,
) -> T {
    let site = CallSite {
        instance: instance.as_ptr(),
        instance_len: instance.len(),
        function,
        time,
    };
    let outer = CURRENT.with(|slot| slot.replace(Some(site)));
    let result = call();
    CURRENT.with(|slot| slot.set(outer));
    result
}

/// Installs the crash handler (once per process; later calls do nothing), which calls
/// `after_report` after its report line. Only the command line does this: a library user keeps
/// its own handling of these signals. `after_report` runs inside a signal handler, so it must
/// be async-signal-safe.
pub fn install(after_report: fn()) {
    #[cfg(unix)]
    handler::install(after_report);
    #[cfg(not(unix))]
    let _ = after_report;
}

#[cfg(unix)]
mod handler {
    use std::cell::Cell;
    use std::ffi::{c_int, c_void};
    use std::sync::OnceLock;

    use super::{CallSite, CURRENT};

    const SIGNALS: [(c_int, &str); 4] = [
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGILL, "SIGILL"),
    ];

    /// The actions in place before ours, in the order of [`SIGNALS`].
    struct Previous([libc::sigaction; SIGNALS.len()]);

    // SAFETY: plain data (handler addresses, masks, flags), written once before any handler
    // runs and only read afterwards.
    unsafe impl Sync for Previous {}
    // SAFETY: as above.
    unsafe impl Send for Previous {}

    static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    /// The application's hook, set before the handler is installed.
    static AFTER_REPORT: OnceLock<fn()> = OnceLock::new();

    pub(super) fn install(after_report: fn()) {
        AFTER_REPORT.get_or_init(|| after_report);
        PREVIOUS.get_or_init(|| {
            // SAFETY: an all-zero sigaction is a valid value of the C struct.
            let mut previous: [libc::sigaction; SIGNALS.len()] = unsafe { std::mem::zeroed() };
            for ((signal, _), old) in SIGNALS.iter().zip(&mut previous) {
                // SAFETY: queries the current action into a valid struct; installs ours, a
                // function of the right signature, on the alternate stack that Rust's runtime
                // sets up (so that a stack overflow can still be reported).
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_fault as *const () as usize;
                    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(*signal, &action, old);
                }
            }
            Previous(previous)
        });
    }

    extern "C" fn on_fault(signal: c_int, info: *mut libc::siginfo_t, _context: *mut c_void) {
        let site = CURRENT.try_with(Cell::get).ok().flatten();
        if let Some(site) = site {
            report(signal, &site);
            if let Some(after_report) = AFTER_REPORT.get() {
                after_report();
            }
        }
        let Some((index, _)) = SIGNALS.iter().enumerate().find(|(_, (s, _))| *s == signal) else {
            return;
        };
        let previous = &PREVIOUS.get().expect("installed before the handler").0[index];
        // SAFETY: restores the action saved at installation; raising again delivers a signal
        // sent by another process (si_code <= 0) to it, while a fault comes back by itself when
        // the faulting instruction runs again after we return.
        unsafe {
            libc::sigaction(signal, previous, std::ptr::null_mut());
            if (*info).si_code <= 0 {
                libc::raise(signal);
            }
        }
    }

    /// Writes `error: instance NAME crashed with SIGNAL in CALL at t = TIME ...` to stderr.
    fn report(signal: c_int, site: &CallSite) {
        let mut line = Line::default();
        // SAFETY: the slot holds the name of an instance whose call is in progress.
        let name = unsafe { std::slice::from_raw_parts(site.instance, site.instance_len) };
        let signal_name = SIGNALS
            .iter()
            .find(|(s, _)| *s == signal)
            .map_or("a signal", |(_, name)| name);
        line.push(b"error: instance ");
        line.push(name);
        line.push(b" crashed with ");
        line.push(signal_name.as_bytes());
        line.push(b" in ");
        line.push(site.function.as_bytes());
        line.push(b" at t = ");
        let mut number = ryu::Buffer::new();
        line.push(number.format(site.time).as_bytes());
        line.push(b"; the result rows recorded before are kept");
        line.end();
        // SAFETY: write(2) of bytes on our stack; async-signal-safe.
        unsafe {
            libc::write(2, line.bytes.as_ptr().cast(), line.len);
        }
    }

    /// A fixed-size line on the stack (longer text is cut).
    struct Line {
        bytes: [u8; 512],
        len: usize,
    }

    impl Default for Line {
        fn default() -> Self {
            Line {
                bytes: [0; 512],
                len: 0,
            }
        }
    }

    impl Line {
        /// Appends `text`, leaving room for the newline.
        fn push(&mut self, text: &[u8]) {
            let room = self.bytes.len() - 1 - self.len;
            let n = text.len().min(room);
            self.bytes[self.len..self.len + n].copy_from_slice(&text[..n]);
            self.len += n;
        }

        /// Ends the line.
        fn end(&mut self) {
            self.bytes[self.len] = b'\n';
            self.len += 1;
        }
    }
}
