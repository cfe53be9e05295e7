//! Runs of the energy-correction benchmarks' system files (`master/systems/`), in this process,
//! with the test FMUs, and their result columns.

use std::path::{Path, PathBuf};

use tandem::instance::{LogLevel, LogSettings};
use tandem::run::{run, RunOptions, RunSummary};
use tandem_tests::fmus::{self, FmiVersion};

/// The path of `master/systems/<name>.toml`.
pub fn system_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("systems")
        .join(format!("{name}.toml"))
}

/// A finished run: its summary and its result file's columns.
pub struct Finished {
    /// What `tandem run` reports.
    pub summary: RunSummary,
    /// Column names, `time` first.
    pub header: Vec<String>,
    /// The rows.
    pub rows: Vec<Vec<f64>>,
}

impl Finished {
    /// The samples of column `name`.
    pub fn column(&self, name: &str) -> Vec<f64> {
        let index = self
            .header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header));
        self.rows.iter().map(|row| row[index]).collect()
    }

    /// The first and the last sample of column `name`.
    pub fn ends(&self, name: &str) -> (f64, f64) {
        let column = self.column(name);
        (column[0], column[column.len() - 1])
    }

    /// `(E(end) - E(start)) / dE` of bond 1: the energy error per unit residual energy.
    pub fn energy_ratio(&self) -> f64 {
        let (e0, e1) = self.ends("total_energy");
        (e1 - e0) / self.ends("bond1.dE").1
    }

    /// The warnings of the energy monitor, as printed.
    pub fn warnings(&self) -> Vec<String> {
        let report = self.summary.energy.as_ref().expect("an energy report");
        report.warnings.iter().map(ToString::to_string).collect()
    }
}

/// What a run changes in a system file.
#[derive(Clone, Debug, Default)]
pub struct Variant<'a> {
    /// Text replacements `(from, to)`, each of which must occur.
    pub edits: &'a [(&'a str, &'a str)],
    /// `--energy-correction`.
    pub correction: Option<bool>,
    /// `--stop-time`.
    pub stop_time: Option<f64>,
}

/// Runs system file `name` of `master/systems` changed by `variant`, with the test FMUs (FMI
/// 3.0); panics if the run fails.
pub fn run_system(name: &str, variant: &Variant<'_>) -> Finished {
    let text = std::fs::read_to_string(system_file(name)).expect("read the system file");
    let text = variant.edits.iter().fold(text, |text, (from, to)| {
        assert!(text.contains(from), "{from:?} is not in {name}.toml");
        text.replacen(from, to, 1)
    });
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write the system file");
    // Builds the FMUs on the first call.
    let fmu_dir = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .parent()
        .expect("the FMU folder")
        .to_path_buf();
    let output = dir.path().join("result.csv");
    let options = RunOptions {
        output_file: Some(output.clone()),
        stop_time: variant.stop_time,
        step_size: None,
        fmu_dir: Some(fmu_dir),
        log: LogSettings {
            level: LogLevel::Error,
            ..LogSettings::default()
        },
        correction: variant.correction,
        ..RunOptions::default()
    };
    let summary = run(&path, &options).unwrap_or_else(|e| panic!("{name} ({variant:?}): {e}"));
    let (header, rows) = super::read_csv(&output);
    Finished {
        summary,
        header,
        rows,
    }
}
