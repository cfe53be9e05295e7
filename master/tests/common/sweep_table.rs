//! The sweep tests' double oscillator and tables: the base system, the metrics every sweep
//! asks for, the arguments of such a sweep, and its table read back.

use std::path::Path;

use super::double_oscillator::Setup;

/// The metrics every sweep here asks for, and how the test computes each from a result column.
pub const METRICS: [(&str, &str); 5] = [
    ("final", "mass1.position"),
    ("min", "mass2.position"),
    ("max", "spring.f_a"),
    ("mean", "mass2.velocity"),
    ("rms", "mass1.velocity"),
];

/// A sweep table: its header and its rows of text cells.
pub struct Table {
    /// The column names.
    pub header: Vec<String>,
    /// The rows of text cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads the CSV table at `path`.
    pub fn read(path: &Path) -> Table {
        let mut reader =
            csv::Reader::from_path(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let header = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_string)
            .collect();
        let rows = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        Table { header, rows }
    }

    /// The index of column `name`.
    pub fn column(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// The number in `row` of column `name`.
    pub fn number(&self, row: usize, name: &str) -> f64 {
        let cell = &self.rows[row][self.column(name)];
        cell.parse()
            .unwrap_or_else(|_| panic!("row {row}, {name}: {cell:?} is no number"))
    }

    /// The rows without the wall time, which no two runs share.
    pub fn without_wall_time(&self) -> Vec<Vec<String>> {
        let wall = self.column("wall_time");
        self.rows
            .iter()
            .map(|row| {
                let mut row = row.clone();
                row.remove(wall);
                row
            })
            .collect()
    }
}

/// The base setup: 0.2 s of Jacobi with ZOH at H = 1 ms.
pub fn base() -> Setup {
    Setup {
        stop: 0.2,
        ..Setup::jacobi("zoh", 1e-3)
    }
}

/// The arguments of `tandem sweep` of `system` writing `output`, with `sets` arguments, the
/// METRICS and no FMU log.
pub fn sweep_args(system: &Path, output: &Path, sets: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "sweep",
        system.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
        "--log-level",
        "off",
    ]
    .iter()
    .chain(sets)
    .map(|a| a.to_string())
    .collect();
    for (kind, column) in METRICS {
        args.extend(["--metric".to_string(), format!("{kind}:{column}")]);
    }
    args
}
