//! Ctrl-C, SIGTERM and SIGKILL: `identify` and `gradient` stop at the next macro step like
//! `run` (identify writing its best point so far), two signals in quick succession count as
//! one (a double Ctrl-C, GNU `timeout` signalling the child then its group), and the
//! temporary folders of a killed run are removed at the next start, those of live runs kept.
//! Every run gets a temporary directory of its own (`TMPDIR`), which must be empty at its end.

// Signals, /proc and the test FMUs' binaries: Linux.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tandem::temporary::{prefix, Kind};

use crate::common::double_oscillator::Setup;
use crate::common::engine_mount::measure;

/// The longest a case waits for the run to reach the point it interrupts.
const PATIENCE: Duration = Duration::from_secs(60);

/// The temporary folders of a run of [`oscillator`]: one per FMU file.
const FMU_FOLDERS: usize = 2;

/// The double oscillator of three components (two FMU files, the masses sharing one, so two
/// temporary folders), `stop` seconds in steps of 1 ms, written into `dir` with the coupling
/// spring at `k`.
fn oscillator(dir: &Path, stop: f64, k: f64) -> PathBuf {
    let setup = Setup {
        stop,
        ..Setup::gauss_seidel(["mass1", "spring", "mass2"], "zoh", 1e-3)
    };
    let system = setup.write(dir);
    let text = std::fs::read_to_string(&system).expect("the system file");
    let spring = "parameters = { k = 100.0 }";
    assert!(text.contains(spring), "the setup's spring: {text}");
    let edited = text.replace(spring, &format!("parameters = {{ k = {k:?} }}"));
    std::fs::write(&system, edited).expect("rewrite the system file");
    system
}

/// A case's folder: the system and results in `files`, the run's own `TMPDIR` in `temporary`.
struct Case {
    files: tempfile::TempDir,
    temporary: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        Case {
            files: tempfile::tempdir().expect("a temporary folder"),
            temporary: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.files.path().join(name)
    }

    /// Starts `tandem args` with this case's `TMPDIR`, its output piped, in a process group of
    /// its own (as under `timeout`).
    fn start(&self, args: &[&str]) -> Child {
        Command::new(env!("CARGO_BIN_EXE_tandem"))
            .args(args)
            .env("TMPDIR", self.temporary.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("start tandem")
    }

    /// The `tandem-*` entries of the run's `TMPDIR`.
    fn leftovers(&self) -> Vec<String> {
        std::fs::read_dir(self.temporary.path())
            .expect("the run's TMPDIR")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name.starts_with("tandem-"))
            .collect()
    }

    /// Waits until the run has unpacked its FMU files, which it does after it has set up its
    /// signal handlers.
    fn wait_for_the_fmus(&self, child: &mut Child) {
        let began = Instant::now();
        while self.leftovers().len() < FMU_FOLDERS {
            if let Some(status) = child.try_wait().expect("the run's status") {
                panic!("tandem ended before unpacking its FMUs: {status}");
            }
            assert!(began.elapsed() < PATIENCE, "no FMU unpacked");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// What a run left when it ended.
struct Ended {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ended {
    /// Waits for `child`, after `stdout` (what the test read of it) and the rest of its output.
    fn wait(mut child: Child, mut stdout: String) -> Ended {
        let mut rest = child.stdout.take().expect("piped stdout");
        rest.read_to_string(&mut stdout).expect("read stdout");
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("piped stderr")
            .read_to_string(&mut stderr)
            .expect("read stderr");
        let status = child.wait().expect("wait for tandem");
        Ended {
            status,
            stdout,
            stderr,
        }
    }

    /// Asserts the end of a run the user interrupted: exit code 1 like every failure, no
    /// signal that killed it, `message` on stderr, no panic and no temporary folder left.
    fn assert_interrupted(&self, case: &Case, message: &str) {
        let context = format!("stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        assert_eq!(self.status.signal(), None, "killed by a signal\n{context}");
        assert_eq!(self.status.code(), Some(1), "{context}");
        assert!(self.stderr.contains(message), "no {message:?}\n{context}");
        assert!(!self.stderr.contains("panicked"), "{context}");
        assert_eq!(case.leftovers(), Vec::<String>::new(), "{context}");
    }
}

/// Sends `signal` to the process `pid` (negative: to its process group).
fn kill(pid: i32, signal: i32) {
    // SAFETY: kill takes no pointers; the test started the process or group `pid`.
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(sent, 0, "kill({pid}, {signal})");
}

/// The PID of `child` for [`kill`].
fn pid(child: &Child) -> i32 {
    i32::try_from(child.id()).expect("a PID fits in an i32")
}

/// Identifies the spring of the double oscillator (30 % off) and interrupts it with `signal`
/// once the iteration table has two rows; returns the case and the run's end.
fn interrupt_identify(signal: i32) -> (Case, Ended, PathBuf) {
    let case = Case::new();
    let system = oscillator(case.files.path(), 2.0, 100.0);
    let data = case.path("measured.csv");
    measure(&system, &["spring.k"], &[100.0], "mass2.position", &data);
    let system = oscillator(case.files.path(), 2.0, 70.0);
    let output = case.path("fitted.toml");
    let plot = case.path("fit.svg");
    let mut child = case.start(&[
        "identify",
        system.to_str().expect("UTF-8"),
        "--data",
        data.to_str().expect("UTF-8"),
        "--parameters",
        "spring.k=10:1000",
        "--gradient-tolerance",
        "0",
        "--output",
        output.to_str().expect("UTF-8"),
        "--plot",
        plot.to_str().expect("UTF-8"),
    ]);
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut read = String::new();
    let began = Instant::now();
    // The header, iteration 0 and iteration 1.
    while read.lines().count() < 3 {
        assert!(
            lines.read_line(&mut read).expect("read stdout") > 0,
            "identify ended before its second iteration: {read}"
        );
        assert!(began.elapsed() < PATIENCE, "no iterations: {read}");
    }
    kill(pid(&child), signal);
    child.stdout = Some(lines.into_inner());
    let ended = Ended::wait(child, read);
    assert!(!plot.exists(), "no plot of an interrupted fit");
    (case, ended, output)
}

/// Asserts what an interrupted identification wrote: the best point so far, in bounds, with
/// the signal in its heading, and the message naming the file.
fn assert_best_point_written(ended: &Ended, output: &Path, signal: &str) {
    let text = std::fs::read_to_string(output)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", output.display(), ended.stderr));
    assert!(
        text.starts_with("# Fitted by tandem identify:")
            && text.contains(&format!("(interrupted by {signal})")),
        "{text}"
    );
    let value: f64 = text
        .lines()
        .find_map(|line| line.strip_prefix("\"spring.k\" = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no fitted spring.k in {text}"));
    assert!((10.0..=1000.0).contains(&value), "{value}");
    assert!(
        ended.stderr.contains(&format!(
            "error: interrupted by {signal}; the best point so far (J = "
        )) && ended
            .stderr
            .contains(&format!("is written to {}", output.display())),
        "{}",
        ended.stderr
    );
    assert!(ended.stdout.contains(&format!("interrupted by {signal}")));
}

#[test]
fn identify_interrupted_by_sigint_writes_its_best_point() {
    let (case, ended, output) = interrupt_identify(libc::SIGINT);
    ended.assert_interrupted(&case, "interrupted by SIGINT; the best point so far");
    assert_best_point_written(&ended, &output, "SIGINT");
}

#[test]
fn identify_interrupted_by_sigterm_writes_its_best_point() {
    let (case, ended, output) = interrupt_identify(libc::SIGTERM);
    ended.assert_interrupted(&case, "interrupted by SIGTERM; the best point so far");
    assert_best_point_written(&ended, &output, "SIGTERM");
}

/// Starts the gradient of the double oscillator's spring over a run long enough to be
/// interrupted, and sends `signal` once its FMUs are unpacked.
fn interrupt_gradient(signal: i32) -> (Case, Ended) {
    let case = Case::new();
    let system = oscillator(case.files.path(), 1000.0, 100.0);
    let mut child = case.start(&[
        "gradient",
        system.to_str().expect("UTF-8"),
        "--parameters",
        "spring.k",
        "--cost",
        "integral:mass2.position",
    ]);
    case.wait_for_the_fmus(&mut child);
    std::thread::sleep(Duration::from_millis(200));
    kill(pid(&child), signal);
    let ended = Ended::wait(child, String::new());
    (case, ended)
}

#[test]
fn gradient_interrupted_by_sigint_says_so_and_cleans_up() {
    let (case, ended) = interrupt_gradient(libc::SIGINT);
    ended.assert_interrupted(
        &case,
        "error: interrupted by SIGINT; no gradient was computed",
    );
    assert_eq!(ended.stdout, "", "no gradient printed");
}

#[test]
fn gradient_interrupted_by_sigterm_says_so_and_cleans_up() {
    let (case, ended) = interrupt_gradient(libc::SIGTERM);
    ended.assert_interrupted(
        &case,
        "error: interrupted by SIGTERM; no gradient was computed",
    );
}

/// Runs the double oscillator for long, sends the signals `send` does to its PID once its
/// FMUs are unpacked, and asserts that the run ended as after one `signal`; `times` times, so
/// that the signals meet the run at many points.
fn signal_runs(times: usize, signal: &str, send: impl Fn(i32)) {
    for _ in 0..times {
        let case = Case::new();
        let system = oscillator(case.files.path(), 1000.0, 100.0);
        let output = case.path("out.csv");
        let mut child = case.start(&[
            "run",
            system.to_str().expect("UTF-8"),
            "--output-file",
            output.to_str().expect("UTF-8"),
        ]);
        case.wait_for_the_fmus(&mut child);
        send(pid(&child));
        let ended = Ended::wait(child, String::new());
        ended.assert_interrupted(&case, &format!("error: interrupted by {signal} at t = "));
    }
}

#[test]
fn a_double_ctrl_c_counts_as_one() {
    signal_runs(10, "SIGINT", |pid| {
        kill(pid, libc::SIGINT);
        kill(pid, libc::SIGINT);
    });
}

#[test]
fn sigterm_to_the_child_then_its_group_counts_as_one() {
    // What GNU timeout does when the time is up.
    signal_runs(10, "SIGTERM", |pid| {
        kill(pid, libc::SIGTERM);
        kill(-pid, libc::SIGTERM);
    });
}

#[test]
fn a_killed_runs_folders_are_removed_at_the_next_start_and_a_live_ones_kept() {
    let case = Case::new();
    let mut ended = Command::new("true").spawn().expect("start true");
    let dead = ended.id();
    ended.wait().expect("wait for true");
    let temporary = case.temporary.path();
    let make = |name: String| {
        let folder = temporary.join(name);
        std::fs::create_dir_all(folder.join("binaries/x86_64-linux")).expect("a folder");
        std::fs::write(folder.join("binaries/x86_64-linux/model.so"), "binary").expect("a file");
        folder
    };
    let abandoned = [
        make(format!("{}aB3dE9", prefix(Kind::Fmu, dead))),
        make(format!("{}Zz0000", prefix(Kind::Ssp, dead))),
        make(format!("{}q1w2e3", prefix(Kind::Sweep, dead))),
    ];
    let live = make(format!("{}aB3dE9", prefix(Kind::Fmu, std::process::id())));
    // Not Tandem's names: the unpacking of earlier versions, another program's.
    let foreign = [
        make(format!("tandem-fmu-{dead}-aB3dE9")),
        make("tandem-fmu-aB3dE9".into()),
        make(format!("{}aB3dE9.bak", prefix(Kind::Fmu, dead))),
    ];
    // A link named like an abandoned folder: neither it nor what it points to is touched.
    let target = make("elsewhere".into());
    let link = temporary.join(format!("{}L1nk00", prefix(Kind::Fmu, dead)));
    std::os::unix::fs::symlink(&target, &link).expect("a symbolic link");
    let fmu = &tandem_tests::fmus::find("mass", tandem_tests::fmus::FmiVersion::Fmi3).path;
    let run = crate::common::tandem_with_env(
        &["info", fmu.to_str().expect("UTF-8")],
        &[("TMPDIR", temporary.to_str().expect("UTF-8"))],
    );
    run.assert_success();
    for folder in &abandoned {
        assert!(!folder.exists(), "{} is left", folder.display());
    }
    for folder in foreign.iter().chain([&live, &target]) {
        assert!(
            folder.join("binaries/x86_64-linux/model.so").exists(),
            "{} was removed",
            folder.display()
        );
    }
    assert!(link.symlink_metadata().is_ok(), "the link was removed");
    let mut left = case.leftovers();
    left.sort();
    assert_eq!(
        left.len(),
        5,
        "{left:?}: the live folder, the foreign ones and the link"
    );
}
