//! One `tandem` command as a child process: its wall time, CPU time and peak memory (from the
//! kernel's accounting of the child, `wait4`) and the FMU calls its summary line reports
//! (`tandem run`'s; other commands report none).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run took.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Wall time, seconds.
    pub wall: f64,
    /// User and system CPU time, seconds.
    pub cpu: f64,
    /// Peak resident memory, kB.
    pub max_rss_kb: i64,
    /// FMU calls of the run (0 when the command reports none).
    pub fmu_calls: u64,
}

/// Runs `tandem` with `args` to its end; panics when it fails.
// `wait4` reaps the child (it alone gives the child's own peak memory), which clippy cannot see.
#[allow(clippy::zombie_processes)]
pub fn run(tandem: &Path, args: &[String]) -> Measured {
    let start = Instant::now();
    let mut child = Command::new(tandem)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", tandem.display()));
    // The summary line is on standard error, read to its end before the wait.
    let mut summary = String::new();
    child
        .stderr
        .take()
        .expect("standard error is piped")
        .read_to_string(&mut summary)
        .expect("read tandem's standard error");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not waited for by anything else; both pointers are to
    // live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(waited, pid, "wait4 on tandem failed");
    let success = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    assert!(success, "tandem {} failed:\n{summary}", args.join(" "));
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Measured {
        wall,
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss,
        fmu_calls: fmu_calls(&summary).unwrap_or(0),
    }
}

/// The number before "FMU calls" in `tandem run`'s summary line.
fn fmu_calls(summary: &str) -> Option<u64> {
    let before = &summary[..summary.find(" FMU calls")?];
    before.rsplit(' ').next()?.parse().ok()
}

/// The median of each measure over `runs` (the lower middle one for an even count).
pub fn median_of(runs: &[Measured]) -> Measured {
    let median = |value: fn(&Measured) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(value).collect();
        values.sort_by(f64::total_cmp);
        values[(values.len() - 1) / 2]
    };
    Measured {
        wall: median(|m| m.wall),
        cpu: median(|m| m.cpu),
        max_rss_kb: median(|m| m.max_rss_kb as f64) as i64,
        fmu_calls: median(|m| m.fmu_calls as f64) as u64,
    }
}
