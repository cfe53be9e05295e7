//! Helpers shared by the integration tests: FMU archives made on the fly and runs of the
//! built `tandem` binary.

#![allow(dead_code)]

pub mod double_oscillator;
pub mod energy;
pub mod engine_mount;
pub mod faulty;
pub mod generated_systems;
pub mod gradient;
pub mod mpirun;
pub mod pythonfmu;
pub mod ssp;
pub mod state_space;
pub mod sweep_table;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The FMI 3.0 Reference FMU `name` (`StateSpace`, `Clocks`, ...) of the fixtures.
pub fn reference_fmu(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference-fmus/fmi3")
        .join(format!("{name}.fmu"))
}

/// The text of a file in `tests/fixtures`.
pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .expect("fixture exists")
}

/// Writes a zip archive with `files` (name, content) to `path`.
pub fn write_zip(path: &Path, files: &[(&str, &[u8])]) -> PathBuf {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).expect("create archive"));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in files {
        writer.start_file(*name, options).expect("start zip entry");
        writer.write_all(content).expect("write zip entry");
    }
    writer.finish().expect("finish archive");
    path.to_path_buf()
}

/// The FMI 3.0 test FMU `model` with its modelDescription.xml edited: each `(from, to)`
/// replaces the first `from`, which must occur.
pub fn fmu_with_model_description(model: &str, edits: &[(&str, &str)]) -> Vec<u8> {
    let source = &tandem_tests::fmus::find(model, tandem_tests::fmus::FmiVersion::Fmi3).path;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let edited = edit_model_description(source, &dir.path().join("edited.fmu"), |mut text| {
        for (from, to) in edits {
            assert!(
                text.contains(from),
                "{from:?} is not in {model}'s model description"
            );
            text = text.replacen(from, to, 1);
        }
        text
    });
    std::fs::read(edited).expect("read the edited FMU")
}

/// Copies the FMU `source` to `target` with its modelDescription.xml changed by `edit`.
pub fn edit_model_description(
    source: &Path,
    target: &Path,
    edit: impl FnOnce(String) -> String,
) -> PathBuf {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(source).expect("open the FMU"))
        .expect("read the FMU");
    let mut files = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("an entry");
        if entry.is_dir() {
            continue;
        }
        let mut content = Vec::new();
        entry.read_to_end(&mut content).expect("read an entry");
        files.push((entry.name().expect("an entry name").to_string(), content));
    }
    let (_, xml) = files
        .iter_mut()
        .find(|(name, _)| name == "modelDescription.xml")
        .expect("a modelDescription.xml");
    *xml = edit(String::from_utf8(xml.clone()).expect("UTF-8")).into_bytes();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, content)| (name.as_str(), content.as_slice()))
        .collect();
    write_zip(target, &files)
}

/// The result of one `tandem` run.
pub struct Run {
    /// Exit code (None when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Asserts a clean failure: exit code 1, the message on stderr, and no panic.
    pub fn assert_fails_with(&self, needle: &str) {
        assert_eq!(
            self.code,
            Some(1),
            "expected exit code 1\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "tandem panicked: {}",
            self.stderr
        );
        assert!(
            self.stderr.contains(needle),
            "expected {needle:?} on stderr, got: {}",
            self.stderr
        );
    }

    /// Asserts success.
    pub fn assert_success(&self) {
        assert_eq!(
            self.code,
            Some(0),
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
    }
}

/// Runs the built `tandem` with `args`, with extra environment variables.
pub fn tandem_with_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tandem"));
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    run(command)
}

/// Runs `command` to its end and keeps what it printed.
pub fn run(mut command: Command) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("run tandem");
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Runs the built `tandem` with `args`.
pub fn tandem(args: &[&str]) -> Run {
    tandem_with_env(args, &[])
}

/// Reads a result CSV: the header names and the rows of numbers.
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("header")
        .split(',')
        .map(|h| h.trim_matches('"').to_string())
        .collect();
    let rows = lines
        .map(|line| {
            line.split(',')
                .map(|x| x.parse().unwrap_or_else(|_| panic!("number in {line:?}")))
                .collect()
        })
        .collect();
    (header, rows)
}
