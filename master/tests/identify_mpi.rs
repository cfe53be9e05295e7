//! `mpirun -n K tandem identify` (the mpi feature) of the engine mount from three experiments:
//! the experiments shared by 1 and by 3 ranks give the same iterates, bit for bit, and recover
//! the target parameters to 1e-6 relative.

#![cfg(feature = "mpi")]

mod common;

use common::engine_mount::{fitted, three_experiments};
use common::mpirun::tandem_on_ranks;

#[test]
fn identify_recovers_the_engine_mount_from_three_experiments_on_one_rank_and_on_three() {
    // Two of the four parameters over 50 ms, to keep the test short; the others stay at the
    // values the measurements were made with.
    let names = ["mount.c_E1", "mount.d_E"];
    let optimum = [2.0e5, 200.0];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (system, _) = three_experiments(dir.path(), &names, &optimum, 0.05);
    let mut stdouts = Vec::new();
    for ranks in [1, 3] {
        let output = dir.path().join(format!("fitted-{ranks}.csv"));
        let plot = dir.path().join(format!("fit-{ranks}.svg"));
        let run = tandem_on_ranks(
            ranks,
            &[
                "identify",
                system.to_str().expect("UTF-8"),
                "--parameters",
                "mount.c_E1=5e4:1e6,mount.d_E=10:2000",
                "--output",
                output.to_str().expect("UTF-8"),
                "--plot",
                plot.to_str().expect("UTF-8"),
            ],
        );
        run.assert_success();
        if ranks > 1 {
            assert!(
                run.stderr.contains("the experiments shared by 3 MPI ranks"),
                "{}",
                run.stderr
            );
        }
        // Rank 0 alone plots each experiment.
        for k in 1..=3 {
            let plot = dir.path().join(format!("fit-{ranks}_{k}.svg"));
            let svg = std::fs::read_to_string(&plot).expect("the plot of each experiment");
            assert!(svg.contains("mount.load_acceleration"), "plot {k}");
        }
        let values = fitted(&output);
        assert_eq!(values.len(), 2);
        for ((name, value), expected) in values.iter().zip(optimum) {
            let error = (value - expected).abs() / expected;
            println!("{ranks} ranks: {name} fitted {value} for {expected} ({error:.1e})");
            assert!(
                error < 1e-6,
                "{name}: fitted {value} for {expected} ({error:.1e})"
            );
        }
        stdouts.push(run.stdout);
    }
    // Every iteration's J and |grad| printed alike: the sums are made in file order on every
    // rank, whatever the number of ranks.
    assert!(stdouts[0].lines().count() > 5, "{}", stdouts[0]);
    assert_eq!(stdouts[0], stdouts[1]);
}
