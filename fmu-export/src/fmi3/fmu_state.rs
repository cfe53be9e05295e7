//! FMI 3.0 FMU state: get, set, free, serialize, deserialize.

use crate::ffi::fmu_state::{self, fmu_state_functions};
use crate::fmi3::types::*;
use crate::system::System;

fmu_state_functions! {
    Fmi3(Fmi3Instance, Fmi3FmuState, Fmi3Byte) -> Fmi3Status;
    get_fmu_state = "fmi3GetFMUState";
    set_fmu_state = "fmi3SetFMUState";
    free_fmu_state = "fmi3FreeFMUState";
    serialized_fmu_state_size = "fmi3SerializedFMUStateSize";
    serialize_fmu_state = "fmi3SerializeFMUState";
    deserialize_fmu_state = "fmi3DeserializeFMUState";
}
