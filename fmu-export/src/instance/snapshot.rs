//! FMU states: snapshots of everything dynamic in an instance, handed to the host as opaque
//! handles that the instance owns (a handle the instance did not issue is rejected, never
//! dereferenced).

use std::collections::HashMap;
use std::ffi::c_void;

use crate::instance::dynamic::DynamicState;
use crate::instance::lifecycle::{Kind, Mode};
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::serialization::{self, Layout};
use crate::instance::Instance;
use crate::system::{Integrator, System};

/// An opaque FMU state handle (fmi2FMUstate / fmi3FMUState).
pub type FmuStateHandle = *mut c_void;

/// A saved instance state.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The interface of the instance it was taken from.
    pub kind: Kind,
    /// Time, values, mode, event bookkeeping, input derivatives.
    pub dynamic: DynamicState,
    /// The co-simulation integrator's discrete state (empty before initialization).
    pub integrator: Vec<f64>,
}

/// The FMU states an instance has handed out, keyed by their handle.
#[derive(Default)]
pub struct SnapshotStore {
    live: HashMap<usize, Box<Snapshot>>,
    /// Freed snapshots, whose allocations the next new states reuse (a gradient sweep frees
    /// and takes states at every step). Never more than the most states live at once. Kept
    /// boxed: a box is what a handle points to, so a reused one needs no new allocation.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Snapshot>>,
}

impl SnapshotStore {
    fn insert(&mut self, snapshot: Snapshot) -> FmuStateHandle {
        self.insert_boxed(Box::new(snapshot))
    }

    /// Stores `boxed`; its address is its handle.
    fn insert_boxed(&mut self, boxed: Box<Snapshot>) -> FmuStateHandle {
        let handle = &*boxed as *const Snapshot as FmuStateHandle;
        self.live.insert(handle as usize, boxed);
        handle
    }

    fn get(&self, handle: FmuStateHandle) -> Outcome<&Snapshot> {
        self.live
            .get(&(handle as usize))
            .map(|b| &**b)
            .ok_or_else(|| foreign(handle))
    }

    /// Takes a snapshot out of the store; [`SnapshotStore::insert_boxed`] returns it under the
    /// same handle (its address does not change).
    fn take(&mut self, handle: FmuStateHandle) -> Outcome<Box<Snapshot>> {
        self.live
            .remove(&(handle as usize))
            .ok_or_else(|| foreign(handle))
    }

    fn remove(&mut self, handle: FmuStateHandle) -> Outcome {
        let snapshot = self.take(handle)?;
        self.spare.push(snapshot);
        Ok(())
    }
}

/// Overwrites `target` with the state `dynamic` and saved integrator state `integrator` of
/// an instance of `kind`, reusing its allocations.
fn capture_into(kind: Kind, dynamic: &DynamicState, integrator: &[f64], target: &mut Snapshot) {
    target.kind = kind;
    target.dynamic.clone_from(dynamic);
    target.integrator.clear();
    target.integrator.extend_from_slice(integrator);
}

fn foreign(handle: FmuStateHandle) -> Problem {
    if handle.is_null() {
        Problem::error("the FMU state is NULL")
    } else {
        Problem::error(format!(
            "FMU state {handle:p} was not created by this instance (or was already freed)"
        ))
    }
}

impl<S: System> Instance<S> {
    /// fmiGetFMUState: a new handle if `reuse` is NULL, else `reuse` (one of this instance's
    /// handles) overwritten.
    pub fn get_fmu_state(&mut self, reuse: FmuStateHandle) -> Outcome<FmuStateHandle> {
        self.expect_capturable()?;
        // Overwritten in place: a handle keeps its address, so `reuse` stays valid.
        let target = if reuse.is_null() {
            self.snapshots.spare.pop()
        } else {
            Some(self.snapshots.take(reuse)?)
        };
        let snapshot = match target {
            Some(mut target) => {
                capture_into(self.kind, &self.state, self.saved_integrator(), &mut target);
                target
            }
            None => Box::new(self.capture()?),
        };
        Ok(self.snapshots.insert_boxed(snapshot))
    }

    /// fmiSetFMUState: restores a state of this instance (also out of the failed mode).
    pub fn set_fmu_state(&mut self, handle: FmuStateHandle) -> Outcome {
        // Borrowed out of the store rather than cloned: a reverse sweep restores every step.
        let snapshot = self.snapshots.take(handle)?;
        let outcome = self.restore(&snapshot);
        self.snapshots.insert_boxed(snapshot);
        outcome
    }

    /// fmiFreeFMUState (NULL is ignored, as the standard asks).
    pub fn free_fmu_state(&mut self, handle: FmuStateHandle) -> Outcome {
        if handle.is_null() {
            return Ok(());
        }
        self.snapshots.remove(handle)
    }

    /// fmiSerializedFMUStateSize.
    pub fn serialized_fmu_state_size(&self, handle: FmuStateHandle) -> Outcome<usize> {
        Ok(serialization::encode(self.snapshots.get(handle)?, &self.layout()).len())
    }

    /// fmiSerializeFMUState into a buffer of exactly the serialized size.
    pub fn serialize_fmu_state(&self, handle: FmuStateHandle, out: &mut [u8]) -> Outcome {
        let bytes = serialization::encode(self.snapshots.get(handle)?, &self.layout());
        if out.len() != bytes.len() {
            return Err(Problem::error(format!(
                "the buffer has {} bytes, the serialized FMU state {} (see SerializedFMUStateSize)",
                out.len(),
                bytes.len()
            )));
        }
        out.copy_from_slice(&bytes);
        Ok(())
    }

    /// fmiDeSerializeFMUState: validates `bytes` and returns a new handle.
    pub fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Outcome<FmuStateHandle> {
        let snapshot = serialization::decode(bytes, &self.layout())?;
        Ok(self.snapshots.insert(snapshot))
    }

    /// A snapshot of the current state.
    pub fn capture(&self) -> Outcome<Snapshot> {
        self.expect_capturable()?;
        let integrator = self.saved_integrator().to_vec();
        Ok(Snapshot {
            kind: self.kind,
            dynamic: self.state.clone(),
            integrator,
        })
    }

    /// What a snapshot keeps of the integrator: its state once it holds the instance's.
    fn saved_integrator(&self) -> &[f64] {
        if self.state.integrator_ready {
            self.integrator.state()
        } else {
            &[]
        }
    }

    /// An Error if the state cannot be saved (after a failure).
    fn expect_capturable(&self) -> Outcome {
        if self.state.mode == Mode::Failed {
            return Err(Problem::error(
                "the instance failed earlier; its state cannot be saved",
            ));
        }
        Ok(())
    }

    /// Makes `snapshot` the current state (unchanged if it does not fit this instance).
    pub fn restore(&mut self, snapshot: &Snapshot) -> Outcome {
        if snapshot.kind != self.kind {
            return Err(Problem::error(format!(
                "the FMU state is of a {} instance, this one is {}",
                snapshot.kind.name(),
                self.kind.name()
            )));
        }
        self.check_sensitivity_layout(&snapshot.dynamic)?;
        self.state.clone_from(&snapshot.dynamic);
        if self.state.integrator_ready {
            self.integrator.set_state(&snapshot.integrator);
        } else {
            self.integrator = self.sys.integrator();
        }
        self.touch();
        Ok(())
    }

    /// What a serialized state of this model must look like.
    pub(crate) fn layout(&self) -> Layout {
        Layout::of(
            &self.token,
            self.kind,
            &DynamicState::from_declaration(self.sys.declaration()),
        )
    }
}
