//! `tandem sweep` of the double oscillator: every row equals an individual `tandem run` of its
//! set (the kept result files byte for byte, the metrics recomputed from them), the table is
//! the same on one thread and on two, and a set that makes an FMU fail is a row that says why
//! while the others complete.

mod common;

use std::path::Path;

use common::double_oscillator::Setup;
use common::sweep_table::{base, sweep_args, Table, METRICS};
use common::{read_csv, tandem};
use tandem_tests::double_oscillator::DoubleOscillator;

/// A metric of a result column, as documented: over the rows of the result file.
fn metric(kind: &str, values: &[f64]) -> f64 {
    let rows = values.len() as f64;
    match kind {
        "final" => *values.last().unwrap(),
        "min" => values.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "mean" => values.iter().sum::<f64>() / rows,
        "rms" => (values.iter().map(|v| v * v).sum::<f64>() / rows).sqrt(),
        other => panic!("no metric {other}"),
    }
}

/// Runs `tandem sweep` of `system` with `sets` arguments, the METRICS, `--threads threads` and
/// `--keep-results dir/runs`, and reads the table.
fn sweep(system: &Path, dir: &Path, threads: &str, sets: &[&str]) -> Table {
    let output = dir.join(format!("sweep_{threads}.csv"));
    let kept = dir.join(format!("runs_{threads}"));
    let mut args = sweep_args(system, &output, sets);
    args.extend([
        "--keep-results".to_string(),
        kept.to_str().unwrap().to_string(),
        "--threads".to_string(),
        threads.to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = tandem(&args);
    result.assert_success();
    Table::read(&output)
}

/// Checks every ok row of `table` against `tandem run` of the same set, the set's values taken
/// from the table's columns (which `with` maps onto the oscillator); returns the rows checked.
fn assert_rows_equal_runs(
    table: &Table,
    dir: &Path,
    threads: &str,
    with: impl Fn(&Table, usize) -> DoubleOscillator,
) -> usize {
    let mut checked = 0;
    for row in 0..table.rows.len() {
        if table.rows[row][table.column("status")] != "ok" {
            continue;
        }
        let setup = Setup {
            system: with(table, row),
            ..base()
        };
        let run_dir = dir.join(format!("single_{threads}_{row}"));
        std::fs::create_dir_all(&run_dir).unwrap();
        let output = run_dir.join("out.csv");
        tandem(&[
            "run",
            setup.write(&run_dir).to_str().unwrap(),
            "--output-file",
            output.to_str().unwrap(),
        ])
        .assert_success();
        let kept = dir.join(format!("runs_{threads}/run_{row}.csv"));
        assert_eq!(
            std::fs::read(&kept).unwrap(),
            std::fs::read(&output).unwrap(),
            "row {row}: the kept result file differs from tandem run's"
        );
        let (header, rows) = read_csv(&output);
        for (kind, column) in METRICS {
            let index = header.iter().position(|h| h == column).unwrap();
            let values: Vec<f64> = rows.iter().map(|r| r[index]).collect();
            let expected = metric(kind, &values);
            let got = table.number(row, &format!("{kind}:{column}"));
            assert_eq!(
                got.to_bits(),
                expected.to_bits(),
                "row {row}, {kind}:{column}"
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn a_grid_sweep_equals_individual_runs_on_one_thread_and_on_two() {
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let grids = [
        "--grid",
        "mass2.k=500:1500:2",
        "--grid",
        "spring.k=log:10:1000:2",
    ];
    let one = sweep(&system, dir.path(), "1", &grids);
    let two = sweep(&system, dir.path(), "2", &grids);
    assert_eq!(one.without_wall_time(), two.without_wall_time());
    // The factorial varies the first grid slowest.
    let sets: Vec<(f64, f64)> = (0..one.rows.len())
        .map(|r| (one.number(r, "mass2.k"), one.number(r, "spring.k")))
        .collect();
    assert_eq!(
        sets,
        [
            (500.0, 10.0),
            (500.0, 1000.0),
            (1500.0, 10.0),
            (1500.0, 1000.0)
        ]
    );
    let with = |table: &Table, row: usize| DoubleOscillator {
        k2: table.number(row, "mass2.k"),
        kc: table.number(row, "spring.k"),
        ..DoubleOscillator::UNDAMPED
    };
    assert_eq!(assert_rows_equal_runs(&one, dir.path(), "1", with), 4);
    for row in 0..4 {
        let kept =
            |threads: &str| std::fs::read(dir.path().join(format!("runs_{threads}/run_{row}.csv")));
        assert_eq!(kept("1").unwrap(), kept("2").unwrap(), "run {row}");
    }
}

#[test]
fn a_monte_carlo_sweep_equals_individual_runs_and_its_seed_fixes_the_sets() {
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let samples = [
        "--samples",
        "4",
        "--sample",
        "mass1.m=uniform(0.5,2)",
        "--sample",
        "spring.k=lognormal(4.5,0.3)",
        "--latin-hypercube",
        "--seed",
        "11",
    ];
    let one = sweep(&system, dir.path(), "1", &samples);
    let two = sweep(&system, dir.path(), "2", &samples);
    assert_eq!(one.without_wall_time(), two.without_wall_time());
    let with = |table: &Table, row: usize| DoubleOscillator {
        m1: table.number(row, "mass1.m"),
        kc: table.number(row, "spring.k"),
        ..DoubleOscillator::UNDAMPED
    };
    assert_eq!(assert_rows_equal_runs(&one, dir.path(), "1", with), 4);
    let masses: Vec<f64> = (0..4).map(|r| one.number(r, "mass1.m")).collect();
    assert!(masses.iter().all(|m| (0.5..2.0).contains(m)), "{masses:?}");
    let mut other_seed = samples;
    other_seed[8] = "12";
    let three = sweep(&system, dir.path(), "3", &other_seed);
    assert_ne!(three.number(0, "mass1.m"), one.number(0, "mass1.m"));
}

#[test]
fn a_set_that_makes_an_fmu_fail_is_recorded_and_the_others_complete() {
    // mass2 at k = 1e8 is unstable under symplectic Euler at H = 1 ms: the FMU refuses its
    // state at t = 0.077 (see run_failures.rs).
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let table = sweep(
        &system,
        dir.path(),
        "2",
        &["--grid", "mass2.k=log:1e2:1e8:4"],
    );
    let status: Vec<&str> = (0..4)
        .map(|r| table.rows[r][table.column("status")].as_str())
        .collect();
    assert_eq!(status, ["ok", "ok", "ok", "failed"]);
    let message = &table.rows[3][table.column("message")];
    assert!(
        message.contains(
            "simulation failed at t = 0.077: instance mass2: fmi3GetFloat64 returned Error"
        ),
        "{message}"
    );
    for (kind, column) in METRICS {
        assert_eq!(table.rows[3][table.column(&format!("{kind}:{column}"))], "");
    }
    let with = |table: &Table, row: usize| DoubleOscillator {
        k2: table.number(row, "mass2.k"),
        ..DoubleOscillator::UNDAMPED
    };
    assert_eq!(assert_rows_equal_runs(&table, dir.path(), "2", with), 3);
}

#[test]
fn bad_sweeps_name_the_option_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let system = system.to_str().unwrap();
    let out = dir.path().join("t.csv");
    let out = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["--grid", "mass2.kk=1:2:2"], "mass2.kk"),
        (
            vec!["--grid", "mass2.k=1:2"],
            "--grid mass2.k=1:2: the range needs three fields",
        ),
        (
            vec!["--grid", "mass2.k=1:2:2", "--metric", "final:mass2.pos"],
            "--metric final:mass2.pos: mass2.pos is no result column",
        ),
        (vec!["--samples", "3"], "no sampled parameter"),
        (
            vec!["--grid", "mass2.k=1:2:2", "--samples", "3"],
            "give the parameter sets one way",
        ),
    ] {
        let mut all = vec!["sweep", system, "--output", out];
        all.extend(args);
        tandem(&all).assert_fails_with(needle);
    }
}

#[test]
fn the_cost_and_gradient_columns_equal_tandem_gradient_of_each_set() {
    let section = "\n[gradient]\nparameters = [\"mass1.k\", \"spring.k\"]\ncost = \"integral:mass2.position\"\n";
    let dir = tempfile::tempdir().unwrap();
    let system = dir.path().join("system.toml");
    std::fs::write(&system, base().toml() + section).unwrap();
    let output = dir.path().join("sweep.csv");
    tandem(&[
        "sweep",
        system.to_str().unwrap(),
        "--grid",
        "spring.k=50:150:2",
        "--gradient",
        "--threads",
        "2",
        "--output",
        output.to_str().unwrap(),
    ])
    .assert_success();
    let table = Table::read(&output);
    assert_eq!(table.rows.len(), 2);
    for row in 0..2 {
        let setup = Setup {
            system: DoubleOscillator {
                kc: table.number(row, "spring.k"),
                ..DoubleOscillator::UNDAMPED
            },
            ..base()
        };
        let single = dir.path().join(format!("single_{row}.toml"));
        std::fs::write(&single, setup.toml() + section).unwrap();
        let run = tandem(&["gradient", single.to_str().unwrap()]);
        run.assert_success();
        let cost = run
            .stdout
            .lines()
            .next()
            .unwrap()
            .strip_prefix("J = ")
            .unwrap();
        assert_eq!(table.rows[row][table.column("cost")], cost, "row {row}");
        for parameter in ["mass1.k", "spring.k"] {
            let line = run
                .stdout
                .lines()
                .find(|l| l.starts_with(parameter))
                .unwrap_or_else(|| panic!("no {parameter} in {}", run.stdout));
            let derivative = line.split_whitespace().nth(2).unwrap();
            let column = format!("dJ/d{parameter}");
            assert_eq!(
                table.rows[row][table.column(&column)],
                derivative,
                "row {row}"
            );
        }
    }
}

#[test]
fn the_parquet_table_reads_back_equal_to_the_csv() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    use tandem::output::csv::format_float;

    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let csv = dir.path().join("sweep.csv");
    let parquet = dir.path().join("sweep.parquet");
    // One failed run, whose metrics are null in Parquet and empty in the CSV.
    tandem(&[
        "sweep",
        system.to_str().unwrap(),
        "--grid",
        "mass2.k=log:1e2:1e8:3",
        "--metric",
        "final:mass1.position",
        "--metric",
        "rms:spring.f_a",
        "--output",
        csv.to_str().unwrap(),
        "--output",
        parquet.to_str().unwrap(),
    ])
    .assert_success();
    let table = Table::read(&csv);
    let reader = SerializedFileReader::new(std::fs::File::open(&parquet).unwrap()).unwrap();
    let mut rows = 0;
    for (index, row) in reader.get_row_iter(None).unwrap().enumerate() {
        let row = row.unwrap();
        let (names, cells): (Vec<String>, Vec<String>) = row
            .get_column_iter()
            .map(|(name, field)| {
                let cell = match field {
                    Field::Long(n) => n.to_string(),
                    Field::Double(x) => format_float(*x),
                    Field::Str(text) => text.clone(),
                    Field::Null => String::new(),
                    other => panic!("{name}: unexpected {other:?}"),
                };
                (name.clone(), cell)
            })
            .unzip();
        assert_eq!(names, table.header);
        assert_eq!(cells, table.rows[index], "row {index}");
        rows += 1;
    }
    assert_eq!(rows, 3);
    assert_eq!(table.rows[2][table.column("status")], "failed");
}
