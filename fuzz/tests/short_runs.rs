//! A short fuzzing pass of every target with a fixed seed: every seed is accepted, every
//! rejected seed refused, and no mutant may make a reader panic. (`cargo xtask fuzz` runs the
//! long passes.) One test, as the fuzzing loop replaces the panic hook of the whole process
//! while it runs.

use tandem_fuzz::{engine, Options, Target};

#[test]
fn no_mutant_of_the_seeds_makes_a_reader_panic() {
    let options = Options {
        runs: 400,
        seed: 1,
        crashes: None,
    };
    let mut problems = Vec::new();
    for target in Target::ALL {
        let harness = tandem_fuzz::Harness::new(target).unwrap();
        for (i, seed) in target.seeds().iter().enumerate() {
            assert_eq!(
                harness.run(seed),
                target.accepts_seeds(),
                "{} seed {i}",
                target.name()
            );
        }
        for (i, seed) in target.rejected_seeds().iter().enumerate() {
            assert!(
                !harness.run(seed),
                "{} rejected seed {i} was accepted",
                target.name()
            );
        }
        let report = engine::run(target, &options).unwrap();
        assert_eq!(report.cases, options.runs);
        // Mutants are mostly rejected, but not all: the mutator does not only break inputs.
        if target.accepts_seeds() {
            assert!(
                report.accepted > 0 && report.accepted < report.cases,
                "{}: {report:?}",
                target.name()
            );
        }
        for failure in report.failures {
            problems.push(format!(
                "{}: {}\n  input: {:?}\n  reproduce: {}",
                target.name(),
                failure.message,
                String::from_utf8_lossy(&failure.input),
                engine::reproduce_command(target, options.seed, failure.case)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
