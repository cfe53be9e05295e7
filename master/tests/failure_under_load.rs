//! A system whose FMU fails at a macro step drawn at random, under Jacobi on one and on two
//! threads and under Gauss-Seidel, multi-rate: the run ends with exit code 1 and a message
//! naming the component, the FMI function and the time; the result file holds whole rows up to
//! the last completed macro step; and every FMU instance is freed (the faulty FMU writes a
//! ledger of its instantiations and frees).

// The faulty FMU is compiled for, and packed as, x86_64 Linux.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

mod common;

use std::path::Path;

use common::faulty::faulty_fmu;
use common::{read_csv, tandem_with_env};
use tandem_tests::fmus::{self, FmiVersion};

/// Pairs of a faulty source driving a mass (which steps four times per macro step).
const PAIRS: usize = 4;
/// The macro step.
const H: f64 = 0.01;
/// Macro steps in a run.
const STEPS: usize = 100;

/// A small deterministic generator (xorshift64*), so that every run of the test draws the
/// same cases.
struct Draws(u64);

impl Draws {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// The system: `PAIRS` faulty sources `f1..` each feeding the force of a mass `m1..`; source
/// `failing` fails from macro step `step` on; `schedule` is the `[schedule]` table's body.
fn system(fmu: &Path, failing: usize, step: usize, schedule: &str) -> String {
    let mass = fmus::find("mass", FmiVersion::Fmi3)
        .path
        .display()
        .to_string();
    let mut text = String::from("connections = [\n");
    for i in 1..=PAIRS {
        text += &format!("    \"f{i}.y -> m{i}.F\",\n");
    }
    text += &format!(
        "]\n\n[experiment]\nstop = {:?}\nstep = {H:?}\n\n",
        STEPS as f64 * H
    );
    for i in 1..=PAIRS {
        // doStep fails when it starts at or after fail_at: half a step before `step`.
        let fail_at = if i == failing {
            (step as f64 - 0.5) * H
        } else {
            1e300
        };
        text += &format!(
            "[[component]]\nname = \"f{i}\"\nfmu = '{}'\nparameters = {{ fail_at = {fail_at:?} }}\n\n\
             [[component]]\nname = \"m{i}\"\nfmu = '{mass}'\nstep = {:?}\n\n",
            fmu.display(),
            H / 4.0
        );
    }
    text + &format!("[schedule]\n{schedule}\n")
}

#[test]
fn an_fmu_failing_at_a_random_step_ends_the_run_cleanly_under_every_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = faulty_fmu(dir.path(), None);
    let schedules = [
        "kind = \"jacobi\"\nthreads = 1",
        "kind = \"jacobi\"\nthreads = 2",
        "kind = \"gauss-seidel\"",
    ];
    let mut draws = Draws(0x7a3d_e11a_5eed_0001);
    for case in 0..9 {
        let schedule = schedules[case % schedules.len()];
        let failing = 1 + draws.below(PAIRS);
        let step = 1 + draws.below(STEPS - 1);
        let label = format!("case {case}: f{failing} fails at step {step}, {schedule:?}");
        let path = dir.path().join(format!("system{case}.toml"));
        std::fs::write(&path, system(&fmu, failing, step, schedule)).unwrap();
        let output = dir.path().join(format!("out{case}.csv"));
        let ledger = dir.path().join(format!("ledger{case}.txt"));
        let run = tandem_with_env(
            &[
                "run",
                path.to_str().unwrap(),
                "--output-file",
                output.to_str().unwrap(),
            ],
            &[("FAULTY_FMU_LEDGER", ledger.to_str().unwrap())],
        );
        let time = step as f64 * H;
        assert_eq!(run.code, Some(1), "{label}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{label}: {}", run.stderr);
        let expected = format!("instance f{failing}: fmi3DoStep returned Error");
        assert!(
            run.stderr.contains(&expected)
                && run
                    .stderr
                    .contains(&format!("simulation failed at t = {time}")),
            "{label}: expected {expected:?} at t = {time} in: {}",
            run.stderr
        );
        // Whole rows at 0, H, ..., up to the last completed macro step.
        assert!(
            std::fs::read_to_string(&output).unwrap().ends_with('\n'),
            "{label}: the last row is whole"
        );
        let (_, rows) = read_csv(&output);
        assert_eq!(rows.len(), step + 1, "{label}: rows");
        for (k, row) in rows.iter().enumerate() {
            assert!(
                (row[0] - k as f64 * H).abs() < 1e-9,
                "{label}: row {k}: {row:?}"
            );
        }
        // Every faulty instance was created once and freed once.
        let lines = std::fs::read_to_string(&ledger).unwrap();
        let count = |what: &str| lines.lines().filter(|l| *l == what).count();
        assert_eq!(count("instantiate"), PAIRS, "{label}: {lines}");
        assert_eq!(
            count("free"),
            PAIRS,
            "{label}: an instance was not freed: {lines}"
        );
    }
}
