//! The Reference-FMUs' `Clocks` (FMI 3.0, Scheduled Execution only) under `tandem simulate`,
//! compared tick by tick with the Reference-FMUs' own synchronous scheduling example
//! (`examples/scs_synchronous.c` of modelica/Reference-FMUs v0.0.41), whose values are
//! derived below by hand from `Clocks/model.c` and the model description.
//!
//! The model (default experiment 0 to 10): three input clocks, each running a model
//! partition, and one output clock.
//! - `inClock1`: constant, `intervalDecimal="1.0"`, no shift, priority 0: ticks at 0, 1, ..., 9
//!   (the run covers [start, stop), as the example's `while (time < 10)`). Its partition
//!   counts `inClock1Ticks` and `totalInClockTicks` and, at t = 4, gives the countdown clock
//!   `inClock3` the interval 0 through the clock-update callback.
//! - `inClock2`: triggered, priority 1: ticked by the user; the example ticks it at 0, 1, 8
//!   and 9. Its partition counts `inClock2Ticks` and `totalInClockTicks`, adds `input2` to
//!   `result2` and zeroes `input2`.
//! - `inClock3`: countdown, priority 2: ticks at 4 + 0 = 4, after `inClock1` (priority).
//!   Its partition counts `inClock3Ticks` and `totalInClockTicks` and sets `output3` to 1000.
//! - `outClock`: output; a partition ticks it (through the callback) when it brings
//!   `totalInClockTicks` to a multiple of 5 and the clock did not tick since last read.
//!
//! The example's own result file (`time,inClock1Ticks,inClock2Ticks,inClock3Ticks,
//! totalInClockTicks`), from running it against this binary, holds the same counters as the
//! input-file test below, row by row.

mod common;

use std::path::{Path, PathBuf};

use common::{read_csv, tandem};

/// The Clocks FMU of the Reference-FMUs v0.0.41.
fn clocks_fmu() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-fmus/fmi3/Clocks.fmu")
}

/// The result columns: time, the outputs that are no clocks (the default), then one column
/// per clock, 1 where it ticked.
const HEADER: [&str; 11] = [
    "time",
    "inClock1Ticks",
    "inClock2Ticks",
    "inClock3Ticks",
    "totalInClockTicks",
    "result2",
    "output3",
    "inClock1",
    "inClock2",
    "inClock3",
    "outClock",
];

/// Runs `tandem simulate Clocks.fmu` with `extra` options; the header and rows of the result.
fn simulate(dir: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<f64>>) {
    let output = dir.join("out.csv");
    let fmu = clocks_fmu();
    let mut args = vec![
        "simulate",
        fmu.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = tandem(&args);
    run.assert_success();
    assert!(
        run.stderr.contains("Scheduled Execution"),
        "the summary names the interface: {}",
        run.stderr
    );
    read_csv(&output)
}

fn rows(table: &[[f64; 11]]) -> Vec<Vec<f64>> {
    table.iter().map(|row| row.to_vec()).collect()
}

#[test]
fn default_options_schedule_the_declared_clocks_tick_by_tick() {
    let dir = tempfile::tempdir().unwrap();
    let (header, values) = simulate(dir.path(), &[]);
    assert_eq!(header, HEADER);
    // No input file: the triggered inClock2 never ticks. inClock1 ticks every second; its
    // count is the total until t = 4, where inClock3 adds one; outClock ticks where the total
    // reaches 5 (t = 4, by inClock1, before inClock3 brings it to 6) and 10 (t = 8).
    #[rustfmt::skip]
    let expected = [
        // time  c1 c2 c3 total r2 out3   k1 k2 k3 out
        [0.0,   1., 0., 0., 1.,  0., 0.,    1., 0., 0., 0.],
        [1.0,   2., 0., 0., 2.,  0., 0.,    1., 0., 0., 0.],
        [2.0,   3., 0., 0., 3.,  0., 0.,    1., 0., 0., 0.],
        [3.0,   4., 0., 0., 4.,  0., 0.,    1., 0., 0., 0.],
        [4.0,   5., 0., 1., 6.,  0., 1000., 1., 0., 1., 1.],
        [5.0,   6., 0., 1., 7.,  0., 1000., 1., 0., 0., 0.],
        [6.0,   7., 0., 1., 8.,  0., 1000., 1., 0., 0., 0.],
        [7.0,   8., 0., 1., 9.,  0., 1000., 1., 0., 0., 0.],
        [8.0,   9., 0., 1., 10., 0., 1000., 1., 0., 0., 1.],
        [9.0,  10., 0., 1., 11., 0., 1000., 1., 0., 0., 0.],
    ];
    assert_eq!(values, rows(&expected));
}

#[test]
fn a_triggered_clock_ticked_from_the_input_file_reproduces_the_reference_example() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs.csv");
    // inClock2 at 0, 1, 8 and 9 as in scs_synchronous.c (the row at 2 holds 0: no tick);
    // input2 = 5 throughout, consumed by each inClock2 partition.
    std::fs::write(
        &inputs,
        "time,inClock2,input2\n0,1,5\n1,1,5\n2,0,5\n8,1,5\n9,1,5\n",
    )
    .unwrap();
    let (header, values) = simulate(dir.path(), &["--input-file", inputs.to_str().unwrap()]);
    assert_eq!(header, HEADER);
    // The example's recorded counters (c1, c2, c3, total) at each time, after inClock1
    // (priority 0), inClock2 (1) and inClock3 (2): the total counts every activation, so it
    // reaches 5 at t = 2, 10 at t = 6 and 15 at t = 9 (the outClock ticks). result2 adds the
    // 5 of input2 at each inClock2 tick.
    #[rustfmt::skip]
    let expected = [
        // time  c1 c2 c3 total r2   out3   k1 k2 k3 out
        [0.0,   1., 1., 0., 2.,  5.,  0.,    1., 1., 0., 0.],
        [1.0,   2., 2., 0., 4.,  10., 0.,    1., 1., 0., 0.],
        [2.0,   3., 2., 0., 5.,  10., 0.,    1., 0., 0., 1.],
        [3.0,   4., 2., 0., 6.,  10., 0.,    1., 0., 0., 0.],
        [4.0,   5., 2., 1., 8.,  10., 1000., 1., 0., 1., 0.],
        [5.0,   6., 2., 1., 9.,  10., 1000., 1., 0., 0., 0.],
        [6.0,   7., 2., 1., 10., 10., 1000., 1., 0., 0., 1.],
        [7.0,   8., 2., 1., 11., 10., 1000., 1., 0., 0., 0.],
        [8.0,   9., 3., 1., 13., 15., 1000., 1., 1., 0., 0.],
        [9.0,  10., 4., 1., 15., 20., 1000., 1., 1., 0., 1.],
    ];
    assert_eq!(values, rows(&expected));
}

#[test]
fn a_triggered_clock_ticks_between_the_periodic_ticks_and_only_within_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs.csv");
    // A tick at 2.5 makes a row of its own; the tick at 10 (the stop time) is outside.
    std::fs::write(&inputs, "time,inClock2\n2.5,1\n10,1\n").unwrap();
    let (_, values) = simulate(
        dir.path(),
        &[
            "--input-file",
            inputs.to_str().unwrap(),
            "--stop-time",
            "10",
        ],
    );
    let times: Vec<f64> = values.iter().map(|row| row[0]).collect();
    assert_eq!(
        times,
        [0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    );
    let at = |time: f64| values.iter().find(|row| row[0] == time).unwrap();
    // At 2.5 only inClock2 ran: its count and the total went up, inClock1's did not.
    assert_eq!(&at(2.5)[1..5], [3.0, 1.0, 0.0, 4.0]);
    assert_eq!(&at(2.5)[7..], [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(values.iter().map(|row| row[8]).sum::<f64>(), 1.0);
}

#[test]
fn only_triggered_clocks_are_ticked_from_the_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs.csv");
    std::fs::write(&inputs, "time,inClock1\n0.5,1\n").unwrap();
    let output = dir.path().join("out.csv");
    tandem(&[
        "simulate",
        clocks_fmu().to_str().unwrap(),
        "--input-file",
        inputs.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ])
    .assert_fails_with(
        "column \"inClock1\": only triggered input clocks are ticked from the input file",
    );
}

#[test]
fn grid_options_are_refused_in_scheduled_execution() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    tandem(&[
        "simulate",
        clocks_fmu().to_str().unwrap(),
        "--output-interval",
        "0.5",
        "--output-file",
        output.to_str().unwrap(),
    ])
    .assert_fails_with("--output-interval: does not apply to Scheduled Execution");
}

#[test]
fn another_interface_is_refused_naming_scheduled_execution() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.csv");
    for interface in ["cs", "me"] {
        tandem(&[
            "simulate",
            clocks_fmu().to_str().unwrap(),
            "--interface-type",
            interface,
            "--output-file",
            output.to_str().unwrap(),
        ])
        .assert_fails_with("(it implements: Scheduled Execution)");
    }
}
