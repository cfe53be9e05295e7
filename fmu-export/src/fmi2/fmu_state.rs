//! FMI 2.0 FMU state: get, set, free, serialize, deserialize.

use crate::ffi::fmu_state;
use crate::fmi2::types::*;
use crate::system::System;

/// fmi2GetFMUstate.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `state` a valid pointer.
pub unsafe fn get_fmu_state<S: System>(c: Fmi2Component, state: *mut Fmi2FmuState) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { fmu_state::get::<S, Fmi2>(c, "fmi2GetFMUstate", state) }
}

/// fmi2SetFMUstate.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate.
pub unsafe fn set_fmu_state<S: System>(c: Fmi2Component, state: Fmi2FmuState) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { fmu_state::set::<S, Fmi2>(c, "fmi2SetFMUstate", state) }
}

/// fmi2FreeFMUstate.
///
/// # Safety
/// As for [`get_fmu_state`].
pub unsafe fn free_fmu_state<S: System>(c: Fmi2Component, state: *mut Fmi2FmuState) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { fmu_state::free::<S, Fmi2>(c, "fmi2FreeFMUstate", state) }
}

/// fmi2SerializedFMUstateSize.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `size` a valid pointer.
pub unsafe fn serialized_fmu_state_size<S: System>(
    c: Fmi2Component,
    state: Fmi2FmuState,
    size: *mut usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe { fmu_state::size::<S, Fmi2>(c, "fmi2SerializedFMUstateSize", state, size) }
}

/// fmi2SerializeFMUstate.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `bytes` a writable buffer of `size` bytes.
pub unsafe fn serialize_fmu_state<S: System>(
    c: Fmi2Component,
    state: Fmi2FmuState,
    bytes: *mut Fmi2Byte,
    size: usize,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        fmu_state::serialize::<S, Fmi2>(c, "fmi2SerializeFMUstate", state, bytes.cast(), size)
    }
}

/// fmi2DeSerializeFMUstate.
///
/// # Safety
/// FMI 2.0 contract: `c` from fmi2Instantiate; `bytes` `size` readable bytes; `state` valid.
pub unsafe fn deserialize_fmu_state<S: System>(
    c: Fmi2Component,
    bytes: *const Fmi2Byte,
    size: usize,
    state: *mut Fmi2FmuState,
) -> Fmi2Status {
    // SAFETY: the FMI 2.0 contract.
    unsafe {
        fmu_state::deserialize::<S, Fmi2>(c, "fmi2DeSerializeFMUstate", bytes.cast(), size, state)
    }
}
