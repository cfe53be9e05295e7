//! The MPI job of this process (rsmpi): initialized once with funneled threading (threads may
//! run sets or experiments, but only the main thread calls MPI), finalized when dropped.

use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::{Count, Threading};

use crate::error::{Error, Result};

/// The world communicator of an initialized MPI library.
pub struct Mpi {
    world: SimpleCommunicator,
    // Dropped last: finalizes MPI.
    _universe: Universe,
}

impl Mpi {
    /// Initializes MPI for this process (once: later calls fail).
    pub fn initialize() -> Result<Mpi> {
        let failure = |message: String| Error::invalid_value("MPI", message);
        let (universe, threading) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| failure("the MPI library was already initialized".into()))?;
        if threading < Threading::Funneled {
            return Err(failure(format!(
                "the MPI library offers {threading:?} threading, and tandem needs Funneled \
                 (worker threads next to the main thread, which alone calls MPI)"
            )));
        }
        Ok(Mpi {
            world: universe.world(),
            _universe: universe,
        })
    }

    /// The world communicator.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        usize::try_from(self.world.rank()).expect("MPI ranks are not negative")
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        usize::try_from(self.world.size()).expect("MPI sizes are positive")
    }

    /// Every rank's `mine`, by rank: the lengths first, then the bytes into one buffer.
    pub fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let length = Count::try_from(mine.len()).expect("a message of less than 2 GiB");
        let mut counts: Vec<Count> = vec![0; self.size()];
        self.world.all_gather_into(&length, &mut counts[..]);
        let displacements: Vec<Count> = counts
            .iter()
            .scan(0, |offset, &count| {
                let start = *offset;
                *offset += count;
                Some(start)
            })
            .collect();
        let total = counts.iter().map(|&c| c as usize).sum();
        let mut buffer = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displacements[..]);
            self.world.all_gather_varcount_into(mine, &mut partition);
        }
        counts
            .iter()
            .zip(&displacements)
            .map(|(&count, &start)| buffer[start as usize..(start + count) as usize].to_vec())
            .collect()
    }
}
