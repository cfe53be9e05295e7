//! Result files that are inputs, two writers of one file, inputs that are not regular files,
//! FMUs that `validate` rejects.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{self, tandem, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// A folder with a copy of the mass FMU, a system file running it and an input CSV.
pub struct Setup {
    /// Removed at the end.
    pub dir: tempfile::TempDir,
}

impl Setup {
    /// The folder with `mass.fmu`, `system.toml` (the mass, 0.1 s in steps of 1 ms,
    /// `extra` appended) and `input.csv`.
    pub fn new(extra: &str) -> Setup {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let fmu = dir.path().join("mass.fmu");
        std::fs::copy(&fmus::find("mass", FmiVersion::Fmi3).path, &fmu).expect("copy the FMU");
        let system = format!(
            "[experiment]\nstop = 0.1\nstep = 1e-3\n\n[[component]]\nname = \"mass\"\n\
             fmu = \"mass.fmu\"\nparameters = {{ k = 10.0 }}\n{extra}"
        );
        std::fs::write(dir.path().join("system.toml"), system).expect("write the system");
        std::fs::write(dir.path().join("input.csv"), "time,F\n0,1\n1,1\n").expect("inputs");
        Setup { dir }
    }

    /// The path of `name` in the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `path(name)` as text, for an argument.
    pub fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// `args` with each `@name` replaced by the path of the file `name`.
    pub fn args(&self, args: &[&str]) -> Vec<String> {
        args.iter()
            .map(|arg| match arg.strip_prefix('@') {
                Some(name) => self.arg(name),
                None => arg.to_string(),
            })
            .collect()
    }

    /// Every file of the folder with its bytes, to check that nothing changed.
    pub fn contents(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(self.dir.path())
            .expect("list the folder")
            .map(|entry| entry.expect("an entry").path())
            .filter(|path| path.is_file())
            .map(|path| {
                let bytes = std::fs::read(&path).expect("read a file");
                (path, bytes)
            })
            .collect();
        files.sort();
        files
    }
}

/// Runs `tandem` with `args`, where `@name` stands for the setup's file `name`.
pub fn tandem_in(setup: &Setup, args: &[&str]) -> Run {
    let args = setup.args(args);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tandem(&args)
}

#[test]
fn a_result_file_never_overwrites_an_input() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["simulate", "@mass.fmu", "--output-file", "@mass.fmu"],
            "",
            "mass.fmu: the result file would overwrite the input",
        ),
        (
            &[
                "simulate",
                "@mass.fmu",
                "--input-file",
                "@input.csv",
                "--output-file",
                "@input.csv",
            ],
            "",
            "input.csv: the result file would overwrite the input",
        ),
        (
            &["run", "@system.toml", "--output-file", "@system.toml"],
            "",
            "system.toml: the result file would overwrite the input",
        ),
        (
            &["run", "@system.toml"],
            "\n[output]\nfile = \"mass.fmu\"\n",
            "mass.fmu: the result file would overwrite the input",
        ),
        (
            &["simulate", "@mass.fmu", "--output-file", "@link.csv"],
            "",
            "link.csv: the result file would overwrite the input",
        ),
    ];
    for (args, extra, message) in cases {
        let setup = Setup::new(extra);
        #[cfg(unix)]
        std::os::unix::fs::symlink(setup.path("mass.fmu"), setup.path("link.csv")).unwrap();
        let before = setup.contents();
        let run = tandem_in(&setup, args);
        run.assert_fails_with(message);
        assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
        assert_eq!(setup.contents(), before, "{args:?} changed a file");
    }
}

#[test]
fn two_runs_writing_one_result_file_are_refused() {
    let setup = Setup::new("");
    let output = setup.arg("out.csv");
    let first = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["simulate", &setup.arg("mass.fmu"), "--stop-time", "20"])
        .args(["--step-size", "1e-5", "--output-file", &output])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the first run");
    // The first run holds the file once its header is there.
    let started = Instant::now();
    while std::fs::metadata(&output).map_or(true, |m| m.len() == 0) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first run wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = tandem_in(
        &setup,
        &["simulate", "@mass.fmu", "--output-file", "@out.csv"],
    );
    let first_done = first.wait_with_output().expect("the first run ends");
    assert!(
        first_done.status.success(),
        "{}",
        String::from_utf8_lossy(&first_done.stderr)
    );
    second.assert_fails_with("out.csv: another run is writing this file; nothing was written");
    let (_, rows) = common::read_csv(&setup.path("out.csv"));
    assert_eq!(rows.len(), 2_000_001, "the first run's rows alone");
}

#[cfg(unix)]
#[test]
fn inputs_that_are_not_regular_files_are_refused_at_once() {
    let setup = Setup::new("");
    let fifo = setup.path("pipe.fmu");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    let started = Instant::now();
    tandem_in(&setup, &["info", "@pipe.fmu"])
        .assert_fails_with("pipe.fmu: not a regular file (a named pipe)");
    tandem_in(
        &setup,
        &["simulate", "@mass.fmu", "--input-file", "/dev/zero"],
    )
    .assert_fails_with("/dev/zero: not a regular file (a device)");
    tandem_in(&setup, &["run", "/dev/stdin"]).assert_fails_with("not a regular file");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "a FIFO blocked"
    );
}

/// The bouncing ball (FMI 3.0) with two variables sharing value reference 1, which FMI 3.0
/// forbids.
fn fmu_sharing_a_value_reference(dir: &Path) -> PathBuf {
    let source = &fmus::find("bouncing_ball", FmiVersion::Fmi3).path;
    common::edit_model_description(source, &dir.join("shared.fmu"), |text| {
        text.replace(r#"valueReference="2""#, r#"valueReference="1""#)
    })
}

#[test]
fn simulate_and_run_refuse_what_validate_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = fmu_sharing_a_value_reference(dir.path());
    let fmu = fmu.display().to_string();
    let validate = tandem(&["validate", &fmu]);
    assert_eq!(validate.code, Some(1), "{}", validate.stderr);
    let output = dir.path().join("out.csv").display().to_string();
    tandem(&["simulate", &fmu, "--output-file", &output])
        .assert_fails_with("modelDescription.xml is invalid, the FMU is not run");
    assert!(
        !Path::new(&output).exists(),
        "no result file for an invalid FMU"
    );
    let system = dir.path().join("system.toml");
    std::fs::write(
        &system,
        format!(
            "[experiment]\nstop = 0.1\nstep = 0.01\n\n[[component]]\nname = \"m\"\nfmu = '{fmu}'\n"
        ),
    )
    .unwrap();
    tandem(&[
        "run",
        &system.display().to_string(),
        "--output-file",
        &output,
    ])
    .assert_fails_with("modelDescription.xml is invalid, the FMU is not run");
}

#[test]
fn validate_refuses_start_values_that_are_no_number() {
    for (start, problem) in [
        ("", "the start value is empty"),
        ("inf", "start value inf is not a finite number"),
        ("1e999", "start value inf is not a finite number"),
        ("NaN", "start value NaN is not a finite number"),
    ] {
        let bytes = common::fmu_with_model_description(
            "mass",
            &[(
                r#"unit="N/m" start="10""#,
                &format!(r#"unit="N/m" start="{start}""#),
            )],
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad_start.fmu");
        std::fs::write(&path, bytes).unwrap();
        let run = tandem(&["validate", &path.display().to_string()]);
        run.assert_fails_with(&format!("variable k: {problem}"));
    }
}
