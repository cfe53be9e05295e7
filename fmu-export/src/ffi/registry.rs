//! The instances this library handed out. Every FMI call looks its handle up here first, so
//! that a NULL, freed, foreign or wrong-version handle is an Error instead of undefined
//! behaviour.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::ffi::FmiVersion;
use crate::instance::Instance;
use crate::system::System;

/// Live handles: address -> (standard, concrete instance type). Every FMI call looks its
/// handle up, so the map is ordered rather than hashed: a few comparisons for the handful of
/// instances a library has instead of hashing the address (the hashed lookup, lock included,
/// took 160 instructions a call).
static LIVE: Mutex<BTreeMap<usize, (FmiVersion, TypeId)>> = Mutex::new(BTreeMap::new());

fn live() -> MutexGuard<'static, BTreeMap<usize, (FmiVersion, TypeId)>> {
    // A panic while holding the lock cannot leave the map half-updated (single inserts and
    // removes), so a poisoned lock is still consistent.
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Hands `instance` to the host as an opaque handle.
pub fn register<S: System>(instance: Box<Instance<S>>, version: FmiVersion) -> *mut c_void {
    let handle = Box::into_raw(instance) as *mut c_void;
    live().insert(handle as usize, (version, TypeId::of::<Instance<S>>()));
    handle
}

fn is_live<S: System>(handle: *mut c_void, version: FmiVersion) -> bool {
    live().get(&(handle as usize)) == Some(&(version, TypeId::of::<Instance<S>>()))
}

/// The instance behind `handle`, if it is a live handle of `version` and type `S`.
///
/// # Safety
/// No other reference to the instance may be alive while the returned one is used (FMI
/// forbids concurrent calls on one instance).
pub unsafe fn lookup<'a, S: System>(
    handle: *mut c_void,
    version: FmiVersion,
) -> Option<&'a mut Instance<S>> {
    if !is_live::<S>(handle, version) {
        return None;
    }
    // SAFETY: registered handles come from Box::into_raw of an Instance<S> (type checked
    // above) and stay valid until `unregister`; exclusivity is the caller's contract.
    Some(unsafe { &mut *(handle as *mut Instance<S>) })
}

/// Takes the instance behind `handle` back from the host (fmiFreeInstance).
///
/// # Safety
/// As for [`lookup`].
pub unsafe fn unregister<S: System>(
    handle: *mut c_void,
    version: FmiVersion,
) -> Option<Box<Instance<S>>> {
    let mut map = live();
    if map.get(&(handle as usize)) != Some(&(version, TypeId::of::<Instance<S>>())) {
        return None;
    }
    map.remove(&(handle as usize));
    // SAFETY: as in `lookup`; the handle is no longer registered, so this Box is the only owner.
    Some(unsafe { Box::from_raw(handle as *mut Instance<S>) })
}
