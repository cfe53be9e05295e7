//! Command lines that ask for runs that never end, tables that cannot fit, costs and data that
//! are wrong, and a standard output that closes: each is refused up front, with a message
//! naming the file or option, or ends quietly.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::files::{tandem_in, Setup};

/// The `[gradient]` section of the mass: its stiffness, and the integral of its position.
const GRADIENT: &str =
    "\n[gradient]\nparameters = [\"mass.k\"]\ncost = \"integral:mass.position\"\n";

#[test]
fn time_grids_that_never_end_are_refused_before_anything_is_written() {
    let setup = Setup::new("");
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "simulate",
                "@mass.fmu",
                "--interface-type",
                "me",
                "--start-time",
                "1",
                "--stop-time",
                "2",
                "--output-interval",
                "1e-17",
            ],
            "--output-interval: the output interval 1e-17 does not advance time at t = 2",
        ),
        (
            &["simulate", "@mass.fmu", "--step-size", "1e-300"],
            "--step-size: the step size 1e-300 does not advance time at t = 10",
        ),
        (
            &["simulate", "@mass.fmu", "--stop-time", "1e308"],
            "does not advance time at t = 1e308",
        ),
        (
            &["simulate", "@mass.fmu", "--stop-time", "inf"],
            "--stop-time: the stop time inf is not a finite number",
        ),
        (
            &[
                "simulate",
                "@mass.fmu",
                "--step-size",
                "1e-9",
                "--stop-time",
                "100",
            ],
            "give a larger --output-interval, or --force",
        ),
    ];
    for (args, message) in cases {
        let started = Instant::now();
        tandem_in(&setup, args).assert_fails_with(message);
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?} ran");
        assert!(
            !setup.path("mass_out.csv").exists() && !std::path::Path::new("mass_out.csv").exists()
        );
    }
    for (experiment, message) in [
        (
            "[experiment]\nstop = 2.0\nstart = 1.0\nstep = 1e-17\n",
            "the macro step 1e-17 does not advance time at t = 2",
        ),
        (
            "[experiment]\nstop = inf\nstep = 1e-3\n",
            "the stop time inf is not a finite number",
        ),
    ] {
        let system = std::fs::read_to_string(setup.path("system.toml"))
            .unwrap()
            .replace("[experiment]\nstop = 0.1\nstep = 1e-3\n", experiment);
        std::fs::write(setup.path("endless.toml"), system).unwrap();
        let run = tandem_in(
            &setup,
            &["run", "@endless.toml", "--output-file", "@endless.csv"],
        );
        run.assert_fails_with(message);
        assert!(run.stderr.contains("endless.toml"), "{}", run.stderr);
        assert!(!setup.path("endless.csv").exists());
    }
}

#[test]
fn sweeps_that_cannot_fit_in_memory_are_refused_up_front() {
    let setup = Setup::new("");
    for (args, message) in [
        (
            &["--grid", "mass.k=1:2:1000000000"][..],
            "--grid: 1000000000 runs: a sweep runs at most",
        ),
        (
            &[
                "--grid",
                "mass.k=1:2:10000000000",
                "--grid",
                "mass.c=0:1:10000000000",
            ][..],
            "more than 2^64",
        ),
        (
            &["--samples", "1000000000", "--sample", "mass.k=normal(10,1)"][..],
            "--samples: 1000000000 runs",
        ),
    ] {
        // Under a bound of 2 GB of address space, which the plan alone would exceed.
        let command =
            format!(
            "ulimit -v 2000000; exec '{}' sweep '{}' --metric final:mass.position --output '{}' {}",
            env!("CARGO_BIN_EXE_tandem"),
            setup.arg("system.toml"),
            setup.arg("sweep.csv"),
            args.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(" ")
        );
        let started = Instant::now();
        let run = super::common::run({
            let mut shell = Command::new("sh");
            shell.args(["-c", &command]);
            shell
        });
        run.assert_fails_with(message);
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}

#[test]
fn costs_and_measurements_are_blamed_where_they_are_written() {
    let setup = Setup::new("\n[gradient]\nparameters = [\"mass.k\"]\ncost = \"\"\n");
    let run = tandem_in(&setup, &["gradient", "@system.toml"]);
    run.assert_fails_with("system.toml: [gradient] cost:");
    assert!(!run.stderr.contains("--cost"), "{}", run.stderr);

    std::fs::write(
        setup.path("measured.csv"),
        "time,mass.position\n0,0\nnan,1\n",
    )
    .unwrap();
    let run = tandem_in(
        &setup,
        &[
            "gradient",
            "@system.toml",
            "--cost",
            "least-squares",
            "--data",
            "@measured.csv",
        ],
    );
    run.assert_fails_with("measured.csv: line 3, column 1: \"nan\" is not a number");
    tandem_in(
        &setup,
        &[
            "identify",
            "@system.toml",
            "--data",
            "/dev/zero",
            "--parameters",
            "mass.k=1:100",
        ],
    )
    .assert_fails_with("/dev/zero: not a regular file (a device)");
}

/// Runs `tandem` with `args` (`@name`: the setup's file) and a standard output whose reader is
/// gone; returns the exit code and standard error.
#[cfg(unix)]
fn with_stdout_closed(setup: &Setup, args: &[&str]) -> (Option<i32>, Option<i32>, String) {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(setup.args(args))
        .current_dir(setup.dir.path())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run tandem");
    (
        output.status.code(),
        output.status.signal(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn every_command_ends_quietly_when_its_standard_output_closes() {
    let setup = Setup::new(GRADIENT);
    let problem = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/codesign/mass-spring-damper.toml"),
    )
    .unwrap()
    .replace(
        "../../../target/fmus/fmi3/mass_spring_damper.fmu",
        &tandem_tests::fmus::find("mass_spring_damper", tandem_tests::fmus::FmiVersion::Fmi3)
            .path
            .display()
            .to_string(),
    );
    std::fs::write(setup.path("codesign.toml"), problem).unwrap();
    let mut data = String::from("time,mass.position\n");
    for i in 0..=10 {
        data += &format!("{},{}\n", i as f64 / 100.0, 0.0);
    }
    std::fs::write(setup.path("measured.csv"), data).unwrap();
    let commands: &[&[&str]] = &[
        &["--help"],
        &["info", "@mass.fmu"],
        &["validate", "@mass.fmu"],
        &["simulate", "@mass.fmu"],
        &["run", "@system.toml"],
        &["gradient", "@system.toml", "--check"],
        &[
            "identify",
            "@system.toml",
            "--data",
            "@measured.csv",
            "--parameters",
            "mass.k=1:100",
            "--max-iterations",
            "2",
        ],
        &["codesign", "@codesign.toml"],
        &[
            "sweep",
            "@system.toml",
            "--grid",
            "mass.k=5:15:2",
            "--metric",
            "final:mass.position",
        ],
    ];
    for args in commands {
        let (code, signal, stderr) = with_stdout_closed(&setup, args);
        assert_eq!(signal, None, "{args:?} was killed: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
}
