//! Naming the case that kills the fuzzing process (a stack overflow, which Rust turns into an
//! abort, or a fault): a handler of SIGABRT, SIGSEGV and SIGBUS writes the case number and its
//! reproduce command with write(2), then lets the signal end the process.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::targets::Target;

static CASE: AtomicU64 = AtomicU64::new(0);
static SEED: AtomicU64 = AtomicU64::new(0);
/// The index of the target in [`Target::ALL`].
static TARGET: AtomicUsize = AtomicUsize::new(0);

/// Notes that case `case` is running.
pub fn set_case(case: u64) {
    CASE.store(case, Ordering::Relaxed);
}

/// Installs the handler for runs of `target` from `seed`.
pub fn install(target: Target, seed: u64) {
    SEED.store(seed, Ordering::Relaxed);
    TARGET.store(
        Target::ALL
            .iter()
            .position(|t| *t == target)
            .expect("listed"),
        Ordering::Relaxed,
    );
    #[cfg(unix)]
    for signal in [libc::SIGABRT, libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: installs a handler of the right signature, with SA_RESETHAND so that the
        // signal raised again after it takes the default action; SA_ONSTACK runs it on the
        // alternate stack Rust sets up, so that it works after a stack overflow.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    let target = Target::ALL[TARGET.load(Ordering::Relaxed)].name();
    let (seed, case) = (SEED.load(Ordering::Relaxed), CASE.load(Ordering::Relaxed));
    let mut line = [0u8; 256];
    let mut len = 0;
    let mut push = |bytes: &[u8]| {
        let n = bytes.len().min(line.len() - len);
        line[len..len + n].copy_from_slice(&bytes[..n]);
        len += n;
    };
    let mut number = [0u8; 20];
    push(b"\nfuzz: case ");
    push(decimal(case, &mut number));
    push(b" killed the process (signal ");
    push(decimal(signal as u64, &mut number));
    push(b"); reproduce with: cargo xtask fuzz ");
    push(target.as_bytes());
    push(b" --seed ");
    push(decimal(seed, &mut number));
    push(b" --case ");
    push(decimal(case, &mut number));
    push(b"\n");
    // SAFETY: write(2) of a buffer on this stack and raise(3), both async-signal-safe; the
    // handler was reset to the default action, which ends the process.
    unsafe {
        libc::write(2, line.as_ptr().cast(), len);
        libc::raise(signal);
    }
}

/// `value` in decimal, written into `buffer` without allocating.
fn decimal(mut value: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buffer[start..];
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_are_written_without_allocation() {
        let mut buffer = [0u8; 20];
        assert_eq!(super::decimal(0, &mut buffer), b"0");
        assert_eq!(super::decimal(1_000_007, &mut buffer), b"1000007");
        assert_eq!(
            super::decimal(u64::MAX, &mut buffer),
            u64::MAX.to_string().as_bytes()
        );
    }
}
