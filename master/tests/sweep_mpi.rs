//! `mpirun -n K tandem sweep` (the mpi feature): the runs handed out to 1, 2 and 3 ranks give
//! the table of the local sweep on 1 and 2 threads, bit for bit but for the wall times, for a
//! grid and for Monte Carlo sets; a set that makes an FMU fail is a row that says why.

#![cfg(feature = "mpi")]

mod common;

use std::path::Path;

use common::mpirun::tandem_on_ranks;
use common::sweep_table::{base, sweep_args, Table};
use common::tandem;

/// The table of a sweep of `system` with `sets` arguments: `("threads", n)` on this process's
/// threads, or `("ranks", n)` on MPI ranks.
fn sweep(system: &Path, dir: &Path, on: (&str, usize), sets: &[&str]) -> Table {
    let (how, count) = on;
    let output = dir.join(format!("sweep_{how}_{count}.csv"));
    let mut args = sweep_args(system, &output, sets);
    if how == "threads" {
        args.extend(["--threads".to_string(), count.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = if how == "threads" {
        tandem(&args)
    } else {
        tandem_on_ranks(count, &args)
    };
    run.assert_success();
    if how == "ranks" && count > 1 {
        // Each rank would otherwise run the whole sweep and write the same table.
        let shared = format!("on {count} MPI ranks");
        assert!(run.stderr.contains(&shared), "{shared}: {}", run.stderr);
    }
    Table::read(&output)
}

/// Asserts that `sets` give the same table on 1 and 2 threads and on 1, 2 and 3 ranks, and
/// returns it.
fn same_everywhere(sets: &[&str]) -> Table {
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let local = sweep(&system, dir.path(), ("threads", 1), sets);
    for on in [("threads", 2), ("ranks", 1), ("ranks", 2), ("ranks", 3)] {
        let other = sweep(&system, dir.path(), on, sets);
        assert_eq!(other.header, local.header, "{on:?}");
        assert_eq!(
            other.without_wall_time(),
            local.without_wall_time(),
            "{on:?}"
        );
    }
    local
}

#[test]
fn a_grid_and_a_monte_carlo_sweep_on_one_two_and_three_ranks_equal_the_threaded_tables() {
    // Six runs, more than ranks, so that ranks come back for more.
    let grid = same_everywhere(&[
        "--grid",
        "mass2.k=500:1500:3",
        "--grid",
        "spring.k=log:10:1000:2",
    ]);
    assert_eq!(grid.rows.len(), 6);
    let monte_carlo = same_everywhere(&[
        "--samples",
        "5",
        "--sample",
        "mass1.m=uniform(0.5,2)",
        "--sample",
        "spring.k=lognormal(4.5,0.3)",
        "--seed",
        "3",
    ]);
    assert_eq!(monte_carlo.rows.len(), 5);
    for table in [&grid, &monte_carlo] {
        for row in 0..table.rows.len() {
            assert_eq!(table.rows[row][table.column("status")], "ok", "row {row}");
            // Real numbers, not empty cells: the oscillator moves.
            assert!(table.number(row, "rms:mass1.velocity") > 0.0, "row {row}");
        }
    }
}

#[test]
fn sets_that_make_an_fmu_fail_on_three_ranks_are_rows_that_say_why() {
    // mass2 at k = 1e8 and 1e7 is unstable under symplectic Euler at H = 1 ms (see sweep.rs).
    let dir = tempfile::tempdir().unwrap();
    let system = base().write(dir.path());
    let sets = ["--grid", "mass2.k=log:1e2:1e8:7"];
    let ranks = sweep(&system, dir.path(), ("ranks", 3), &sets);
    let threads = sweep(&system, dir.path(), ("threads", 2), &sets);
    assert_eq!(ranks.without_wall_time(), threads.without_wall_time());
    let status: Vec<&str> = (0..7)
        .map(|r| ranks.rows[r][ranks.column("status")].as_str())
        .collect();
    assert_eq!(status, ["ok", "ok", "ok", "ok", "ok", "failed", "failed"]);
    let message = &ranks.rows[6][ranks.column("message")];
    assert!(
        message.contains("instance mass2: fmi3GetFloat64 returned Error"),
        "{message}"
    );
    assert_eq!(ranks.rows[6][ranks.column("final:mass1.position")], "");
    assert!(ranks.number(4, "max:spring.f_a").is_finite());
}
