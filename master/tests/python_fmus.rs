//! Third-party FMUs: FMI 2.0 co-simulation FMUs built with `pythonfmu` and FMI 3.0
//! co-simulation and model-exchange FMUs built with `pythonfmu3`, simulated by the built
//! `tandem` binary and checked against analytic solutions.
//!
//! These FMUs do not link the Python runtime: they expect the process that loads them to
//! provide its symbols (as a Python host such as FMPy does). The tests therefore preload the
//! test environment's libpython; without it the binary fails to load with a clear error, which
//! `without_the_python_runtime_the_load_error_names_the_symbol` checks.

mod common;

use std::path::Path;

use common::pythonfmu::{build, libpython};
use common::{fixture, read_csv, tandem_with_env, write_zip, Run};

/// Runs `tandem` with the Python runtime preloaded.
fn tandem(args: &[&str]) -> Run {
    tandem_with_env(args, &[("LD_PRELOAD", libpython())])
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The column `name` of a result file with its time column.
fn column(path: &Path, name: &str) -> Vec<(f64, f64)> {
    let (header, rows) = read_csv(path);
    assert_eq!(header[0], "time");
    let index = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    rows.iter().map(|row| (row[0], row[index])).collect()
}

#[test]
fn fmi2_cs_linear_decay_matches_the_exponential() {
    let fmu = build("pythonfmu", "linear_decay_fmi2", "LinearDecay");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("decay.csv");
    let args = [
        "simulate",
        s(&fmu),
        "--stop-time",
        "2",
        "--step-size",
        "0.1",
        "--output-interval",
        "0.2",
        "--start-value",
        "k=2",
        "--start-value",
        "x0=3",
        "--output-file",
        s(&out),
    ];
    tandem(&args).assert_success();
    let x = column(&out, "x");
    assert_eq!(x.len(), 11, "rows at 0, 0.2, ..., 2");
    for (t, value) in x {
        let exact = 3.0 * (-2.0 * t).exp();
        assert!(
            (value - exact).abs() <= 1e-12 * exact.max(1e-3),
            "x({t}) = {value}, expected {exact}"
        );
    }
}

#[test]
fn fmi3_cs_integrator_follows_an_interpolated_input() {
    let fmu = build("pythonfmu3", "integrator_fmi3", "Integrator");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("ramp.csv");
    std::fs::write(&input, "\"time\",\"u\"\n0,0\n4,8\n").unwrap();
    let out = dir.path().join("integrator.csv");
    let (h, gain) = (0.05, 1.5);
    tandem(&[
        "simulate",
        s(&fmu),
        "--stop-time",
        "2",
        "--step-size",
        "0.05",
        "--start-value",
        "gain=1.5",
        "--input-file",
        s(&input),
        "--output-file",
        s(&out),
    ])
    .assert_success();
    let y = column(&out, "y");
    assert_eq!(y.len(), 41);
    for (t, value) in y {
        // u = 2 t held over each step: y(t) = gain * sum 2 t_k h = gain * (t^2 - t h).
        let discrete = gain * (t * t - t * h);
        assert!(
            (value - discrete).abs() < 1e-9,
            "y({t}) = {value}, expected {discrete}"
        );
        assert!(
            (value - gain * t * t).abs() <= gain * t * h + 1e-12,
            "within one step of the continuous integral at t = {t}"
        );
    }
}

#[test]
fn fmi3_me_decay_is_integrated_to_the_requested_tolerance() {
    let fmu = build("pythonfmu3", "decay_me_fmi3", "Decay");
    let dir = tempfile::tempdir().unwrap();
    // A run long enough that the longest step the master allows (1/50 of the run) does not
    // decide the error at the coarse tolerance.
    let error_at = |tolerance: &str| {
        let out = dir.path().join(format!("decay_{tolerance}.csv"));
        tandem(&[
            "simulate",
            s(&fmu),
            "--stop-time",
            "30",
            "--output-interval",
            "0.1",
            "--relative-tolerance",
            tolerance,
            "--output-file",
            s(&out),
        ])
        .assert_success();
        let x = column(&out, "x");
        assert_eq!(x.len(), 301);
        x.iter()
            .map(|&(t, value)| (value - (-t).exp()).abs())
            .fold(0.0, f64::max)
    };
    let coarse = error_at("1e-4");
    let fine = error_at("1e-9");
    assert!(coarse < 1e-3, "max error at rtol 1e-4: {coarse}");
    assert!(fine < 1e-8, "max error at rtol 1e-9: {fine}");
    assert!(
        fine < coarse,
        "a tighter tolerance gives a smaller error: {coarse} vs {fine}"
    );
}

/// The bouncing ball's height: free fall from h0, each impact multiplies the speed by e.
fn ball_height(t: f64, g: f64, e: f64, h0: f64) -> f64 {
    let mut impact = (2.0 * h0 / g).sqrt();
    if t <= impact {
        return h0 - 0.5 * g * t * t;
    }
    let mut speed = e * g * impact;
    loop {
        let flight = 2.0 * speed / g;
        if t <= impact + flight {
            let s = t - impact;
            return speed * s - 0.5 * g * s * s;
        }
        impact += flight;
        speed *= e;
    }
}

#[test]
fn fmi3_me_bouncing_ball_locates_every_impact() {
    let fmu = build("pythonfmu3", "bouncing_ball_me_fmi3", "BouncingBall");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ball.csv");
    let run = tandem(&[
        "simulate",
        s(&fmu),
        "--stop-time",
        "1.2",
        "--output-interval",
        "0.05",
        "--relative-tolerance",
        "1e-9",
        "--no-record-events",
        "--output-file",
        s(&out),
    ]);
    run.assert_success();
    // Impacts at 0.4515, 0.9031 and 1.1288 s before the stop time.
    assert!(
        run.stderr.contains("3 events"),
        "three impacts are handled: {}",
        run.stderr
    );
    let h = column(&out, "h");
    assert_eq!(h.len(), 25);
    for (t, value) in h {
        let exact = ball_height(t, 9.81, 0.5, 1.0);
        assert!(
            (value - exact).abs() < 1e-6,
            "h({t}) = {value}, expected {exact}"
        );
    }
}

#[test]
fn fmi3_me_event_rows_bracket_the_impact() {
    let fmu = build("pythonfmu3", "bouncing_ball_me_fmi3", "BouncingBall");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ball_events.csv");
    tandem(&[
        "simulate",
        s(&fmu),
        "--stop-time",
        "0.6",
        "--output-interval",
        "0.1",
        "--relative-tolerance",
        "1e-9",
        "--record-events",
        "--output-file",
        s(&out),
    ])
    .assert_success();
    let v = column(&out, "v");
    let impact = (2.0f64 / 9.81).sqrt();
    let at_impact: Vec<&(f64, f64)> = v
        .iter()
        .filter(|(t, _)| (t - impact).abs() < 1e-9)
        .collect();
    assert_eq!(
        at_impact.len(),
        2,
        "one row before and one after the event: {v:?}"
    );
    assert!(
        (at_impact[0].1 + 9.81 * impact).abs() < 1e-6,
        "speed before the impact: {:?}",
        at_impact[0]
    );
    assert!(
        (at_impact[1].1 - 0.5 * 9.81 * impact).abs() < 1e-6,
        "speed after the impact: {:?}",
        at_impact[1]
    );
}

#[test]
fn a_failing_step_keeps_earlier_results_and_names_the_call() {
    let fmu = build("pythonfmu", "failing_fmi2", "Failing");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("failing.csv");
    let run = tandem(&[
        "simulate",
        s(&fmu),
        "--stop-time",
        "1",
        "--step-size",
        "0.1",
        "--output-file",
        s(&out),
    ]);
    run.assert_fails_with("instance Failing: fmi2DoStep returned");
    let y = column(&out, "y");
    assert_eq!(y.len(), 6, "rows up to t = 0.5 stay on disk: {y:?}");
    assert!((y[5].0 - 0.5).abs() < 1e-12 && (y[5].1 - 0.5).abs() < 1e-12);
}

#[test]
fn without_the_python_runtime_the_load_error_names_the_symbol() {
    let fmu = build("pythonfmu", "linear_decay_fmi2", "LinearDecay");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.csv");
    let run = tandem_with_env(
        &["simulate", s(&fmu), "--output-file", s(&out)],
        &[("LD_PRELOAD", "")],
    );
    run.assert_fails_with(
        "LinearDecay.fmu/binaries/linux64/LinearDecay.so: cannot load the FMU binary",
    );
    assert!(run.stderr.contains("undefined symbol"), "{}", run.stderr);
}

#[test]
fn a_binary_without_fmi_functions_names_the_missing_function() {
    let dir = tempfile::tempdir().unwrap();
    let library = std::fs::read(libpython()).expect("read libpython");
    let path = write_zip(
        &dir.path().join("impostor.fmu"),
        &[
            (
                "modelDescription.xml",
                fixture("fmi2_bouncing_ball.xml").as_bytes(),
            ),
            ("binaries/linux64/BouncingBallCS.so", &library),
        ],
    );
    tandem(&["simulate", s(&path), "--output-file", s(&dir.path().join("o.csv"))])
        .assert_fails_with("impostor.fmu/binaries/linux64/BouncingBallCS.so: the binary does not export the required function fmi2GetTypesPlatform");
}

#[test]
fn info_and_validate_accept_pythonfmu_fmus() {
    for (builder, script, model) in [
        ("pythonfmu", "linear_decay_fmi2", "LinearDecay"),
        ("pythonfmu3", "bouncing_ball_me_fmi3", "BouncingBall"),
    ] {
        let fmu = build(builder, script, model);
        let info = tandem(&["info", s(&fmu)]);
        info.assert_success();
        assert!(info.stdout.contains(model), "{}", info.stdout);
        tandem(&["validate", s(&fmu)]).assert_success();
    }
}
