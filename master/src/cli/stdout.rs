//! The commands' standard output. A reader that goes away (`tandem info x.fmu | head -1`)
//! ends the printing, not the command: what is left to print is dropped quietly, the result
//! files are still written and the exit code stays the command's. `println!` would panic.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to standard output failed: nothing more is printed.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` and a line break to standard output, unless it is closed.
pub fn print_line(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"));
    if let Err(error) = written {
        CLOSED.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("warning: cannot write to standard output ({error}); printing stops there");
        }
    }
}

/// `println!` for the commands' output: see [`print_line`].
macro_rules! out {
    () => {
        $crate::cli::stdout::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::stdout::print_line(format_args!($($arg)*))
    };
}
pub(crate) use out;
