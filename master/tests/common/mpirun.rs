//! Runs of the built `tandem` on the ranks of an MPI job that Open MPI's `mpirun` starts on
//! this machine: oversubscribed (more ranks than cores), allowed to run as root (containers,
//! CI), and over shared memory only, without the single-copy mechanism that containers forbid.

use std::process::Command;

use super::{run, Run};

/// Runs the built `tandem` with `args` on `ranks` MPI ranks.
pub fn tandem_on_ranks(ranks: usize, args: &[&str]) -> Run {
    let mut command = Command::new("mpirun");
    command
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            &ranks.to_string(),
        ])
        .args(["--mca", "btl", "self,vader"])
        .args(["--mca", "btl_vader_single_copy_mechanism", "none"])
        .arg(env!("CARGO_BIN_EXE_tandem"))
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    run(command)
}
