//! FMI 3.0 FMU state: get, set, free, serialize, deserialize.

use crate::ffi::fmu_state;
use crate::fmi3::types::*;
use crate::system::System;

/// fmi3GetFMUState.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `state` a valid pointer.
pub unsafe fn get_fmu_state<S: System>(
    instance: Fmi3Instance,
    state: *mut Fmi3FmuState,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { fmu_state::get::<S, Fmi3>(instance, "fmi3GetFMUState", state) }
}

/// fmi3SetFMUState.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function.
pub unsafe fn set_fmu_state<S: System>(instance: Fmi3Instance, state: Fmi3FmuState) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { fmu_state::set::<S, Fmi3>(instance, "fmi3SetFMUState", state) }
}

/// fmi3FreeFMUState.
///
/// # Safety
/// As for [`get_fmu_state`].
pub unsafe fn free_fmu_state<S: System>(
    instance: Fmi3Instance,
    state: *mut Fmi3FmuState,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { fmu_state::free::<S, Fmi3>(instance, "fmi3FreeFMUState", state) }
}

/// fmi3SerializedFMUStateSize.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `size` a valid pointer.
pub unsafe fn serialized_fmu_state_size<S: System>(
    instance: Fmi3Instance,
    state: Fmi3FmuState,
    size: *mut usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe { fmu_state::size::<S, Fmi3>(instance, "fmi3SerializedFMUStateSize", state, size) }
}

/// fmi3SerializeFMUState.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `bytes` a writable buffer
/// of `size` bytes.
pub unsafe fn serialize_fmu_state<S: System>(
    instance: Fmi3Instance,
    state: Fmi3FmuState,
    bytes: *mut Fmi3Byte,
    size: usize,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        fmu_state::serialize::<S, Fmi3>(instance, "fmi3SerializeFMUState", state, bytes, size)
    }
}

/// fmi3DeserializeFMUState.
///
/// # Safety
/// FMI 3.0 contract: `instance` from an fmi3Instantiate function; `bytes` `size` readable
/// bytes; `state` a valid pointer.
pub unsafe fn deserialize_fmu_state<S: System>(
    instance: Fmi3Instance,
    bytes: *const Fmi3Byte,
    size: usize,
    state: *mut Fmi3FmuState,
) -> Fmi3Status {
    // SAFETY: the FMI 3.0 contract.
    unsafe {
        fmu_state::deserialize::<S, Fmi3>(instance, "fmi3DeserializeFMUState", bytes, size, state)
    }
}
