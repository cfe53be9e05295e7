//! The Reference-FMUs' `Clocks` (FMI 3.0, Scheduled Execution only) as a component of a system
//! under `tandem run`: over each macro step [t, t + H) the master activates the partitions of
//! the clock ticks in that interval, and the row at a macro point holds the outputs as the
//! partitions before it left them. The expected values are derived by hand from
//! `Clocks/model.c` and the model description of modelica/Reference-FMUs v0.0.41, as in
//! `reference_clocks.rs` (which runs the same FMU under `tandem simulate`):
//!
//! - `inClock1`: constant, interval 1, priority 0: ticks at 0, 1, ..., 9; its partition counts
//!   `inClock1Ticks` and `totalInClockTicks` and, at t = 4, gives the countdown clock
//!   `inClock3` the interval 0.
//! - `inClock2`: triggered, priority 1: only the user ticks it, so in a system it never ticks
//!   (unless the model description is edited to make it periodic, below). Its partition
//!   counts `inClock2Ticks` and `totalInClockTicks`, adds `input2` to `result2` and sets
//!   `input2` to 0.
//! - `inClock3`: countdown, priority 2: ticks at 4, after `inClock1`; its partition counts
//!   `inClock3Ticks` and `totalInClockTicks` and sets `output3` to 1000.
//!
//! Each run is also compared with `tandem simulate` of the same FMU: the row at a macro point T
//! equals `tandem simulate`'s row of the last time before T at which partitions ran.

mod common;

use std::path::{Path, PathBuf};

use common::{edit_model_description, read_csv, reference_fmu, tandem};

/// The outputs of Clocks that are no clocks, in model description order.
const OUTPUTS: [&str; 6] = [
    "inClock1Ticks",
    "inClock2Ticks",
    "inClock3Ticks",
    "totalInClockTicks",
    "result2",
    "output3",
];

/// `inClock2` made periodic (interval 2 from the start, priority 1 as before): the binary
/// reads no model description, so its partition runs at the ticks the master derives.
const PERIODIC_IN_CLOCK2: (&str, &str) = (
    r#"intervalVariability="triggered" priority="1""#,
    r#"intervalVariability="constant" intervalDecimal="2.0" priority="1""#,
);

/// A folder with a system file, the Reference FMUs it uses and, optionally, an edited Clocks.
struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    /// A folder with `Clocks.fmu` (its model description changed by `edits`) and
    /// `Feedthrough.fmu`.
    fn new(edits: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        edit_model_description(
            &reference_fmu("Clocks"),
            &dir.path().join("Clocks.fmu"),
            |mut text| {
                for (from, to) in edits {
                    assert!(text.contains(from), "{from} is in the model description");
                    text = text.replacen(from, to, 1);
                }
                text
            },
        );
        std::fs::copy(
            reference_fmu("Feedthrough"),
            dir.path().join("Feedthrough.fmu"),
        )
        .unwrap();
        Folder { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `system.toml`: `body` after the experiment from 0 to 10 with macro step 1.
    fn system(&self, body: &str) -> PathBuf {
        let path = self.path("system.toml");
        let text = format!("{body}\n[experiment]\nstop = 10.0\nstep = 1.0\n");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Runs `system` with `extra` options; stderr, the header and the rows of the result.
    fn run(&self, system: &Path, extra: &[&str]) -> (String, Vec<String>, Vec<Vec<f64>>) {
        let output = self.path("run.csv");
        let mut args = vec![
            "run",
            system.to_str().unwrap(),
            "--output-file",
            output.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let run = tandem(&args);
        run.assert_success();
        let (header, rows) = read_csv(&output);
        (run.stderr, header, rows)
    }

    /// `tandem simulate` of this folder's Clocks with `extra` options: the header and rows.
    fn simulate(&self, extra: &[&str]) -> (Vec<String>, Vec<Vec<f64>>) {
        let output = self.path("simulate.csv");
        let fmu = self.path("Clocks.fmu");
        let mut args = vec![
            "simulate",
            fmu.to_str().unwrap(),
            "--output-file",
            output.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        tandem(&args).assert_success();
        read_csv(&output)
    }
}

/// The system of Clocks and Feedthrough: the count of all ticks feeds Feedthrough's Int32
/// input; every output of Clocks and Feedthrough's Int32 output are recorded.
const CLOCKS_AND_FEEDTHROUGH: &str = r#"connections = ["clocks.totalInClockTicks -> f.Int32_input"]

[[component]]
name = "clocks"
fmu = "Clocks.fmu"
interface = "se"

[[component]]
name = "f"
fmu = "Feedthrough.fmu"

[output]
variables = ["clocks.inClock1Ticks", "clocks.inClock2Ticks", "clocks.inClock3Ticks",
             "clocks.totalInClockTicks", "clocks.result2", "clocks.output3", "f.Int32_output"]
"#;

/// The columns `clocks.<output>` of `header`, in the order of [`OUTPUTS`].
fn clock_columns(header: &[String]) -> Vec<usize> {
    OUTPUTS
        .iter()
        .map(|name| {
            let column = format!("clocks.{name}");
            header.iter().position(|h| *h == column).unwrap()
        })
        .collect()
}

/// Asserts that every row of the run (`header`, `rows`) holds, in its Clocks columns,
/// `tandem simulate`'s values (`simulated_header`, `simulated`) of the last time before the
/// row's time (the values after initialization, all 0 for Clocks, before the first).
fn assert_held_simulation(
    (header, rows): (&[String], &[Vec<f64>]),
    (simulated_header, simulated): (&[String], &[Vec<f64>]),
) {
    let run_columns = clock_columns(header);
    let simulated_columns: Vec<usize> = OUTPUTS
        .iter()
        .map(|name| simulated_header.iter().position(|h| h == name).unwrap())
        .collect();
    for row in rows {
        let time = row[0];
        let held: Vec<f64> = match simulated.iter().rev().find(|s| s[0] < time) {
            Some(before) => simulated_columns.iter().map(|&c| before[c]).collect(),
            None => vec![0.0; OUTPUTS.len()],
        };
        let values: Vec<f64> = run_columns.iter().map(|&c| row[c]).collect();
        assert_eq!(values, held, "at t = {time}");
    }
}

#[test]
fn the_partitions_of_each_macro_step_give_the_outputs_at_its_end() {
    let folder = Folder::new(&[]);
    let system = folder.system(CLOCKS_AND_FEEDTHROUGH);
    let (stderr, header, rows) = folder.run(&system, &[]);
    assert_eq!(
        header,
        [
            "time",
            "clocks.inClock1Ticks",
            "clocks.inClock2Ticks",
            "clocks.inClock3Ticks",
            "clocks.totalInClockTicks",
            "clocks.result2",
            "clocks.output3",
            "f.Int32_output"
        ]
    );
    // The row at T shows the ticks in [0, T): inClock1's at 0, ..., T - 1, inClock3's at 4
    // from T = 5 on (the total one more than inClock1's count), never inClock2's. Feedthrough
    // steps from T - 1 with the total communicated there (Jacobi).
    #[rustfmt::skip]
    let expected = [
        // time  c1   c2  c3  total r2  out3    f
        [0.0,   0.,  0., 0., 0.,  0., 0.,     0.],
        [1.0,   1.,  0., 0., 1.,  0., 0.,     0.],
        [2.0,   2.,  0., 0., 2.,  0., 0.,     1.],
        [3.0,   3.,  0., 0., 3.,  0., 0.,     2.],
        [4.0,   4.,  0., 0., 4.,  0., 0.,     3.],
        [5.0,   5.,  0., 1., 6.,  0., 1000.,  4.],
        [6.0,   6.,  0., 1., 7.,  0., 1000.,  6.],
        [7.0,   7.,  0., 1., 8.,  0., 1000.,  7.],
        [8.0,   8.,  0., 1., 9.,  0., 1000.,  8.],
        [9.0,   9.,  0., 1., 10., 0., 1000.,  9.],
        [10.0, 10.,  0., 1., 11., 0., 1000., 10.],
    ];
    let expected: Vec<Vec<f64>> = expected.iter().map(|row| row.to_vec()).collect();
    assert_eq!(rows, expected);
    let simulated = folder.simulate(&[]);
    assert_held_simulation((&header, &rows), (&simulated.0, &simulated.1));
    assert!(
        stderr.contains("(inClock2) never tick in a system"),
        "the triggered clock is named: {stderr}"
    );
    assert!(
        stderr.contains("component clocks: Scheduled Execution, 11 model partitions activated"),
        "ten ticks of inClock1 and one of inClock3: {stderr}"
    );
}

#[test]
fn longer_macro_steps_and_gauss_seidel_hold_the_outputs_of_the_last_tick_before() {
    let folder = Folder::new(&[]);
    let system = folder.system(CLOCKS_AND_FEEDTHROUGH);
    let simulated = folder.simulate(&[]);
    // A macro step of 2.5 holds three or two ticks of inClock1; the stop time 9.5 ends the
    // run before the tick at 9.5 would come (there is none) and after the one at 9.
    for extra in [
        &["--step-size", "2.5"][..],
        &["--step-size", "0.5", "--stop-time", "9.5"],
    ] {
        let (_, header, rows) = folder.run(&system, extra);
        assert_held_simulation((&header, &rows), (&simulated.0, &simulated.1));
        let last = rows.last().unwrap();
        let total = header
            .iter()
            .position(|h| h == "clocks.totalInClockTicks")
            .unwrap();
        assert_eq!(
            last[total], 11.0,
            "every tick before the stop ran ({extra:?})"
        );
    }
    let (_, header, rows) = folder.run(&system, &["--step-size", "2.5"]);
    let times: Vec<f64> = rows.iter().map(|row| row[0]).collect();
    assert_eq!(times, [0.0, 2.5, 5.0, 7.5, 10.0]);
    let total = clock_columns(&header)[3];
    let totals: Vec<f64> = rows.iter().map(|row| row[total]).collect();
    // Ticks of inClock1 before 2.5, 5, 7.5, 10: 3, 5, 8, 10; inClock3's at 4 adds one.
    assert_eq!(totals, [0.0, 3.0, 6.0, 9.0, 11.0]);

    let gauss_seidel = folder.system(&format!(
        "{CLOCKS_AND_FEEDTHROUGH}\n[schedule]\nkind = \"gauss-seidel\"\norder = [\"clocks\", \"f\"]\n"
    ));
    let (_, header, rows) = folder.run(&gauss_seidel, &[]);
    assert_held_simulation((&header, &rows), (&simulated.0, &simulated.1));
    // Feedthrough, stepped after Clocks, sees the total at the end of the macro step.
    let f: Vec<f64> = rows.iter().map(|row| row[7]).collect();
    let totals: Vec<f64> = rows.iter().map(|row| row[total]).collect();
    assert_eq!(f[1..], totals[1..]);
}

/// Clocks with a periodic inClock2 whose `input2` the constant 5 of Feedthrough feeds
/// (its Int32 input starts at 5); no `interface`: an FMU that implements only Scheduled
/// Execution runs with it.
const FED_INPUT: &str = r#"connections = ["f.Int32_output -> clocks.input2"]

[[component]]
name = "clocks"
fmu = "Clocks.fmu"

[[component]]
name = "f"
fmu = "Feedthrough.fmu"
start = { Int32_input = 5 }

[output]
variables = ["clocks.inClock1Ticks", "clocks.inClock2Ticks", "clocks.inClock3Ticks",
             "clocks.totalInClockTicks", "clocks.result2", "clocks.output3"]
"#;

#[test]
fn inputs_are_held_and_written_again_before_the_partitions_of_each_tick_time() {
    let folder = Folder::new(&[PERIODIC_IN_CLOCK2]);
    let system = folder.system(FED_INPUT);
    // inClock2 ticks at 0, 2, 4, 6, 8, after inClock1 (priority): each of its partitions adds
    // the 5 of input2 to result2 and sets input2 to 0, which the master writes back to 5
    // before the next tick time. At t = 4 inClock1, inClock2 and inClock3 run in this order.
    #[rustfmt::skip]
    let expected = [
        // time  c1   c2  c3  total r2   out3
        [0.0,   0.,  0., 0., 0.,  0.,  0.],
        [1.0,   1.,  1., 0., 2.,  5.,  0.],
        [2.0,   2.,  1., 0., 3.,  5.,  0.],
        [3.0,   3.,  2., 0., 5.,  10., 0.],
        [4.0,   4.,  2., 0., 6.,  10., 0.],
        [5.0,   5.,  3., 1., 9.,  15., 1000.],
        [6.0,   6.,  3., 1., 10., 15., 1000.],
        [7.0,   7.,  4., 1., 12., 20., 1000.],
        [8.0,   8.,  4., 1., 13., 20., 1000.],
        [9.0,   9.,  5., 1., 15., 25., 1000.],
        [10.0, 10.,  5., 1., 16., 25., 1000.],
    ];
    let expected: Vec<Vec<f64>> = expected.iter().map(|row| row.to_vec()).collect();
    let (stderr, header, rows) = folder.run(&system, &[]);
    assert_eq!(rows, expected);
    assert!(
        !stderr.contains("never tick"),
        "no triggered clock is left: {stderr}"
    );
    // One macro step over the ticks at 0 to 4: the input is written again before each tick
    // time, so the three partitions of inClock2 in it each add 5.
    let (_, _, long) = folder.run(&system, &["--step-size", "5"]);
    assert_eq!(long, [0, 5, 10].map(|t| expected[t].clone()));
    // `tandem simulate` with input2 = 5 from its input file gives the same values.
    let inputs = folder.path("inputs.csv");
    std::fs::write(&inputs, "time,input2\n0,5\n10,5\n").unwrap();
    let simulated = folder.simulate(&["--input-file", inputs.to_str().unwrap()]);
    assert_held_simulation((&header, &rows), (&simulated.0, &simulated.1));
}

#[test]
fn a_component_whose_input_clocks_only_the_user_ticks_is_refused() {
    // Every input clock triggered: nothing in a system would ever run a partition.
    let folder = Folder::new(&[
        (
            r#"intervalVariability="constant" intervalDecimal="1.0" priority="0""#,
            r#"intervalVariability="triggered" priority="0""#,
        ),
        (
            r#"intervalVariability="countdown" priority="2""#,
            r#"intervalVariability="triggered" priority="2""#,
        ),
    ]);
    let system = folder.system(CLOCKS_AND_FEEDTHROUGH);
    let output = folder.path("refused.csv");
    let run = tandem(&[
        "run",
        system.to_str().unwrap(),
        "--output-file",
        output.to_str().unwrap(),
    ]);
    run.assert_fails_with("system.toml: line 6: component clocks: ");
    run.assert_fails_with(
        "Clocks.fmu has only triggered input clocks (inClock1, inClock2, inClock3), which tick \
         only when the user ticks them",
    );
    assert!(!output.exists(), "refused before anything ran");
}

#[test]
fn what_does_not_apply_to_scheduled_execution_is_refused_by_component() {
    let folder = Folder::new(&[]);
    let system = folder.system(
        &CLOCKS_AND_FEEDTHROUGH.replace("interface = \"se\"", "interface = \"se\"\nstep = 0.5"),
    );
    tandem(&["run", system.to_str().unwrap()]).assert_fails_with(
        "component clocks: step 0.5 applies to Co-Simulation components; a Scheduled \
         Execution component runs its model partitions at the ticks of its clocks",
    );
    let system = folder.system(&CLOCKS_AND_FEEDTHROUGH.replace(
        "fmu = \"Feedthrough.fmu\"",
        "fmu = \"Feedthrough.fmu\"\ninterface = \"se\"",
    ));
    let run = tandem(&["run", system.to_str().unwrap()]);
    run.assert_fails_with("component f: ");
    run.assert_fails_with("Feedthrough.fmu has no Scheduled Execution interface");
}

#[test]
fn gradients_refuse_a_scheduled_execution_component() {
    let folder = Folder::new(&[]);
    let system = folder.system(CLOCKS_AND_FEEDTHROUGH);
    let run = tandem(&[
        "gradient",
        system.to_str().unwrap(),
        "--parameters",
        "f.Float64_continuous_input",
        "--cost",
        "final:f.Int32_output",
    ]);
    run.assert_fails_with("system.toml: component clocks (");
    run.assert_fails_with(
        "Clocks.fmu) is Scheduled Execution: gradients and identification take Co-Simulation \
         and Model Exchange components only",
    );
}

#[test]
fn an_ssd_component_with_the_scheduled_execution_implementation_runs_as_in_toml() {
    let folder = Folder::new(&[]);
    let toml = folder.system(CLOCKS_AND_FEEDTHROUGH);
    let (_, toml_header, toml_rows) = folder.run(&toml, &[]);
    let ssd = folder.path("system.ssd");
    std::fs::write(
        &ssd,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0" name="clocks">
  <ssd:System name="clocks">
    <ssd:Elements>
      <ssd:Component name="clocks" source="Clocks.fmu" implementation="ScheduledExecution"/>
      <ssd:Component name="f" source="Feedthrough.fmu" implementation="CoSimulation"/>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="clocks" startConnector="totalInClockTicks" endElement="f" endConnector="Int32_input"/>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="tandem"><Experiment step="1"/></ssc:Annotation>
      <ssc:Annotation type="tandem">
        <Output variables="clocks.inClock1Ticks clocks.inClock2Ticks clocks.inClock3Ticks clocks.totalInClockTicks clocks.result2 clocks.output3 f.Int32_output"/>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="10"/>
</ssd:SystemStructureDescription>
"#,
    )
    .unwrap();
    let (_, header, rows) = folder.run(&ssd, &[]);
    assert_eq!(header, toml_header);
    assert_eq!(rows, toml_rows);
}
