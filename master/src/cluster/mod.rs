//! The processes a command runs on: this one alone, or (with the `mpi` feature, when started by
//! `mpirun` or `srun`) the ranks of an MPI job. Commands ask the cluster who they are and
//! exchange bytes ([`wire`]) through it; without MPI every exchange is with oneself.

#[cfg(feature = "mpi")]
pub mod mpi_world;
pub mod wire;

use crate::error::{Error, Result};
use wire::{decode, encode};

/// Environment variables that MPI launchers set in every process they start: Open MPI's
/// `mpirun`, PMI-2 launchers (MPICH's Hydra, Slurm's `srun --mpi=pmi2`) and PMIx launchers
/// (Slurm's `srun --mpi=pmix`, Open MPI 5).
pub const LAUNCHER_VARIABLES: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"];

/// Where a command runs.
pub enum Cluster {
    /// This process alone.
    Alone,
    /// The ranks of an MPI job (possibly of one rank).
    #[cfg(feature = "mpi")]
    Mpi(mpi_world::Mpi),
}

impl Cluster {
    /// The MPI job this process was started in by a launcher, else this process alone.
    #[cfg(feature = "mpi")]
    pub fn join() -> Result<Cluster> {
        if !launched() {
            return Ok(Cluster::Alone);
        }
        Ok(Cluster::Mpi(mpi_world::Mpi::initialize()?))
    }

    /// This process alone; an error when a launcher started it as one of several ranks, which
    /// would each run the whole command.
    #[cfg(not(feature = "mpi"))]
    pub fn join() -> Result<Cluster> {
        let ranks = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
            .iter()
            .filter_map(|name| std::env::var(name).ok()?.parse::<usize>().ok())
            .max();
        match ranks {
            Some(ranks) if ranks > 1 => Err(Error::invalid_value(
                "MPI",
                format!(
                    "this tandem was built without the mpi feature but started as one of \
                     {ranks} MPI ranks, each of which would run the whole command: build it \
                     with --features mpi, or start it without mpirun or srun"
                ),
            )),
            _ => Ok(Cluster::Alone),
        }
    }

    /// This process's rank, from 0.
    pub fn rank(&self) -> usize {
        match self {
            Cluster::Alone => 0,
            #[cfg(feature = "mpi")]
            Cluster::Mpi(mpi) => mpi.rank(),
        }
    }

    /// How many ranks there are.
    pub fn size(&self) -> usize {
        match self {
            Cluster::Alone => 1,
            #[cfg(feature = "mpi")]
            Cluster::Mpi(mpi) => mpi.size(),
        }
    }

    /// Whether this is rank 0, the one that prints and writes files.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// Every rank's `mine`, by rank (collective: every rank must call it).
    pub fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        match self {
            Cluster::Alone => vec![mine.to_vec()],
            #[cfg(feature = "mpi")]
            Cluster::Mpi(mpi) => mpi.all_gather(mine),
        }
    }

    /// `result` where every rank succeeded, else an error on every rank (collective): its own
    /// on a rank that failed, the lowest failing rank's on the others; so that all ranks go on,
    /// or all stop, together.
    pub fn agree<T>(&self, result: Result<T>) -> Result<T> {
        if self.size() == 1 {
            return result;
        }
        let mine: std::result::Result<(), String> =
            result.as_ref().map(|_| ()).map_err(|e| e.to_string());
        let failure = self.all_gather(&encode(&mine)).iter().enumerate().find_map(
            |(rank, bytes)| match decode(bytes) {
                Some(Ok(())) => None,
                Some(Err(message)) => Some((rank, message)),
                None => Some((rank, malformed(rank))),
            },
        );
        match (result, failure) {
            (Err(error), _) => Err(error),
            (Ok(_), Some((rank, message))) => {
                Err(Error::invalid_value(format!("MPI rank {rank}"), message))
            }
            (Ok(value), None) => Ok(value),
        }
    }
}

/// Whether an MPI launcher started this process.
pub fn launched() -> bool {
    LAUNCHER_VARIABLES
        .iter()
        .any(|name| std::env::var_os(name).is_some())
}

/// The message for bytes from `rank` that are not what was expected.
pub fn malformed(rank: usize) -> String {
    format!(
        "MPI rank {rank} sent a message this rank cannot read (do all ranks run the same \
         tandem?)"
    )
}
